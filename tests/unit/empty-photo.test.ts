// A zero-byte file sent as a photo (empty.jpg, image/jpeg) is "Only image files are accepted."
// everywhere a photo can be sent: the kid forms (where a photo is optional, so it used to be
// dropped silently), the moment forms, the profile picture, pages and /api alike. A part with an
// empty file name and no bytes (what a browser sends when no file was chosen) stays "no file".
import { describe, expect, it } from "vitest";
import * as kidNew from "../../app/routes/kid-new";
import * as momentNew from "../../app/routes/moment-new";
import * as picture from "../../app/routes/profile-picture";
import * as apiKidsNew from "../../app/routes/api/kids-new";
import * as apiMomentsNew from "../../app/routes/api/kids-daily-logs-new";
import * as apiUpload from "../../app/routes/api/users-upload-profile-picture";
import { args, cookieFor, formErrorsOf, makeUser, req, statusOf } from "../helpers";
import { db } from "../../app/lib/db.server";
import { createKid } from "../../app/models/kids.server";
import { IMAGE_MESSAGES, chosenFileProblem } from "../../app/images/limits";
import { PictureSchema } from "../../app/forms/profile-picture";
import { kidFormSchema } from "../../app/forms/kid";
import { momentFormSchema } from "../../app/forms/moment";
import { listUploads } from "../../app/images/test-fixtures.server";
import { parseWithZod } from "@conform-to/zod/v4";

const NOT_AN_IMAGE = "Only image files are accepted.";
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await db()(table).where(where).count({ n: "*" }).first())?.n ?? 0);

function form(fields: Record<string, string>, file?: File) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  if (file) fd.set("image", file);
  return fd;
}
const emptyJpeg = () => new File([], "empty.jpg", { type: "image/jpeg" });
const noFile = () => new File([], "", { type: "application/octet-stream" });
const KID = { name: "Elsa", year: "2019", month: "03", day: "14", relationship: "Mom" };

describe("a zero-byte photo", () => {
  it("Add a kid (page): refused on the photo, no kid; no file chosen: the kid is added", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const refused = await kidNew.action(args(req("/kids/add-new", { cookie, form: form(KID, emptyJpeg()) })));
    expect(statusOf(refused)).toBe(400);
    expect(formErrorsOf(refused).image).toEqual([NOT_AN_IMAGE]);
    expect(await count("kids", { user_id: me.id })).toBe(0);
    const added = await kidNew.action(args(req("/kids/add-new", { cookie, form: form(KID, noFile()) })));
    expect(statusOf(added)).toBe(302);
    expect(await count("kids", { user_id: me.id })).toBe(1);
    expect(listUploads().filter((f) => f.startsWith(".tmp"))).toEqual([]);
  });

  it("POST /api/kids/new: 400 (B) on image; no kid", async () => {
    const me = await makeUser();
    const fields = { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" };
    const res = await apiKidsNew.action(
      args(req("/api/kids/new", { cookie: await cookieFor(me), form: form(fields, emptyJpeg()) })),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { image: [NOT_AN_IMAGE] } });
    expect(await count("kids", { user_id: me.id })).toBe(0);
  });

  it("Add a moment (page and /api): the one message, not also 'Image is required'", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const kid = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("setup");
    const fields = { title: "Beach", content: "Sand" };
    const page = await momentNew.action(
      args(req(`/kids/${kid.kid.id}/dailyLogs/new`, { cookie, form: form(fields, emptyJpeg()) }), {
        kidId: String(kid.kid.id),
      }),
    );
    expect(statusOf(page)).toBe(400);
    expect(formErrorsOf(page).image).toEqual([NOT_AN_IMAGE]);
    const api = await apiMomentsNew.action(
      args(req(`/api/kids/${kid.kid.id}/daily_logs/new`, { cookie, form: form(fields, emptyJpeg()) }), {
        kidId: String(kid.kid.id),
      }),
    );
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ errors: { image: [NOT_AN_IMAGE] } });
    // no file chosen is still "Image is required"
    const none = await momentNew.action(
      args(req(`/kids/${kid.kid.id}/dailyLogs/new`, { cookie, form: form(fields, noFile()) }), {
        kidId: String(kid.kid.id),
      }),
    );
    expect(formErrorsOf(none).image).toEqual(["Image is required"]);
    expect(await count("daily_logs", { kid_id: kid.kid.id })).toBe(0);
  });

  it("the profile picture (page and /api): 'Only image files are accepted.'", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const page = await picture.action(
      args(req("/profile/picture", { cookie, form: form({ intent: "upload" }, emptyJpeg()) })),
    );
    expect(statusOf(page)).toBe(400);
    expect(formErrorsOf(page).image).toEqual([NOT_AN_IMAGE]);
    const api = await apiUpload.action(
      args(req("/api/users/upload-profile-picture", { cookie, form: form({}, emptyJpeg()) })),
    );
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ errors: { image: [NOT_AN_IMAGE] } });
  });

  it("the browser's check says the same before sending; a nameless empty part is no file", () => {
    expect(chosenFileProblem(emptyJpeg())).toBe(IMAGE_MESSAGES.notAnImage);
    expect(chosenFileProblem(noFile())).toBeNull();
    const check = (
      schema: Parameters<typeof parseWithZod>[1]["schema"],
      fields: Record<string, string>,
      file: File,
    ) => {
      const submission = parseWithZod(form(fields, file), { schema });
      return submission.status === "error" ? submission.error?.image : undefined;
    };
    expect(check(PictureSchema, {}, emptyJpeg())).toEqual([NOT_AN_IMAGE]);
    expect(check(PictureSchema, {}, noFile())).toEqual(["Image is required"]);
    expect(check(kidFormSchema("add", "2026-01-01"), KID, emptyJpeg())).toEqual([NOT_AN_IMAGE]);
    expect(check(kidFormSchema("add", "2026-01-01"), KID, noFile())).toBeUndefined();
    expect(check(momentFormSchema("add"), { title: "t", content: "c" }, emptyJpeg())).toEqual([NOT_AN_IMAGE]);
  });
});
