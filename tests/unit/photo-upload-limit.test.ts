import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { countImageRows, listUploads } from "~/images/test-fixtures.server";
import { createKid } from "~/models/kids.server";
import { jpeg } from "~/models/kids-test-helpers.server";
import * as apiMomentNew from "~/routes/api/kids-daily-logs-new";
import * as apiMoment from "~/routes/api/daily-logs-id";
import * as apiKidNew from "~/routes/api/kids-new";
import * as apiPicture from "~/routes/api/users-upload-profile-picture";
import * as momentNew from "~/routes/moment-new";
import * as picturePage from "~/routes/profile-picture";
import { resetEnvCache } from "../../server/env.mjs";
import { args, cookieFor, makeUser, req } from "../helpers";

// Uploads are limited per account (PHOTO_UPLOADS_PER_HOUR): every photo of a moment, a kid or a
// profile picture counts, on pages and /api alike, in the shared limit table (so across processes).
// Past the limit the answer is 429 with a clear message, before any photo is decoded: a refused
// "photo" here is not even an image, and the answer is the limit's, not "Only image files".

const LIMIT = 3;
const MESSAGE =
  /^You have uploaded as many photos as you may in an hour \(3\)\. Try again in (60 minutes|59 minutes)\.$/;

beforeEach(async () => {
  process.env.PHOTO_UPLOADS_PER_HOUR = String(LIMIT);
  resetEnvCache();
  await resetLimits();
});
afterEach(() => {
  delete process.env.PHOTO_UPLOADS_PER_HOUR;
  resetEnvCache();
});

function momentForm(photos: (Buffer | string)[]) {
  const fd = new FormData();
  fd.set("title", "Snow");
  fd.set("content", "Eleven flakes");
  photos.forEach((p, i) => {
    fd.append("image", new Blob([typeof p === "string" ? p : new Uint8Array(p)], { type: "image/jpeg" }), `p${i}.jpg`);
    fd.set(`alt_${i + 1}`, `Photo ${i + 1}`);
  });
  return fd;
}

const moments = async (kidId: number) => (await db()("daily_logs").where("kid_id", kidId)).length;

describe("photos per account per hour", () => {
  it("counts every photo of moments, kids and profile pictures; past the limit 429 on /api and on the pages, nothing decoded or kept; other accounts go on", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const made = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!made.ok) throw new Error("setup");
    const kidId = String(made.kid.id);
    const postMoment = (photos: (Buffer | string)[]) =>
      apiMomentNew.action(
        args(req(`/api/kids/${kidId}/daily_logs/new`, { cookie, form: momentForm(photos) }), { kidId }),
      );

    // two photos of a moment, then a kid's photo: three, the hour's limit
    expect((await postMoment([await jpeg(), await jpeg()])).status).toBe(201);
    const kidForm = new FormData();
    for (const [k, v] of Object.entries({ name: "Ola", birth_date: "2020-01-02", relationship: "Mom" }))
      kidForm.set(k, v);
    kidForm.set("image", new Blob([new Uint8Array(await jpeg())], { type: "image/jpeg" }), "kid.jpg");
    expect((await apiKidNew.action(args(req("/api/kids/new", { cookie, form: kidForm })))).status).toBe(201);
    const rows = await countImageRows();

    // a fourth: refused before the bytes are looked at (not an image, yet the answer is the limit's)
    const refused = await postMoment(["not an image at all"]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(3500);
    const body = (await refused.json()) as { errors: { message: string } };
    expect(body.errors.message).toMatch(MESSAGE);
    expect(await moments(made.kid.id)).toBe(1);

    // the moment's page form: the same message on the form, 429
    const page = (await momentNew.action(
      args(req(`/kids/${kidId}/dailyLogs/new`, { cookie, form: momentForm([await jpeg()]) }), { kidId }),
    )) as {
      init: { status: number; headers: Record<string, string> };
      data: { result: { error: Record<string, string[]> } };
    };
    expect(page.init.status).toBe(429);
    expect(page.data.result.error[""]).toEqual([expect.stringMatching(MESSAGE)]);

    // a profile picture, on /api and on its page
    const pictureForm = async () => {
      const fd = new FormData();
      fd.set("image", new Blob([new Uint8Array(await jpeg())], { type: "image/jpeg" }), "me.jpg");
      return fd;
    };
    const api = await apiPicture.action(
      args(req("/api/users/upload-profile-picture", { cookie, form: await pictureForm() })),
    );
    expect([api.status, ((await api.json()) as { errors: { message: string } }).errors.message]).toEqual([
      429,
      expect.stringMatching(MESSAGE),
    ]);
    const picture = (await picturePage.action(
      args(req("/profile/picture", { cookie, form: await pictureForm() })),
    )) as { init: { status: number } };
    expect(picture.init.status).toBe(429);

    // nothing of the refused uploads was kept: no photo row, no temp file, no moment
    expect(await countImageRows()).toBe(rows);
    expect(listUploads()).toEqual([]);
    expect(await moments(made.kid.id)).toBe(1);
    expect((await db()("users").where("id", me.id).first()).image_id ?? null).toBeNull();

    // a form without a new photo is no upload, even with an empty file input: the moment's title changes
    const [moment] = await db()("daily_logs").where("kid_id", made.kid.id);
    const edit = new FormData();
    edit.set("title", "Snow day");
    edit.set("content", "Eleven flakes");
    edit.append("image", new Blob([]), "");
    const momentId = String(moment.id);
    const edited = await apiMoment.action(
      args(req(`/api/daily_logs/${momentId}`, { method: "PUT", cookie, form: edit }), { id: momentId }),
    );
    expect(edited.status).toBe(200);
    expect((await db()("daily_logs").where("id", moment.id).first()).title).toBe("Snow day");

    // another account uploads
    const other = await makeUser();
    const otherKid = await createKid(other.id, { name: "Mo", birth_date: "2019-03-14", relationship: "Dad" }, null);
    if (!otherKid.ok) throw new Error("setup");
    const otherId = String(otherKid.kid.id);
    const theirs = await apiMomentNew.action(
      args(
        req(`/api/kids/${otherId}/daily_logs/new`, {
          cookie: await cookieFor(other),
          form: momentForm([await jpeg()]),
        }),
        { kidId: otherId },
      ),
    );
    expect(theirs.status).toBe(201);
  });

  it("one request that takes the count past the limit is refused whole", async () => {
    const me = await makeUser();
    const made = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!made.ok) throw new Error("setup");
    const kidId = String(made.kid.id);
    const four = momentForm(await Promise.all([jpeg(), jpeg(), jpeg(), jpeg()]));
    const rows = await countImageRows();
    const res = await apiMomentNew.action(
      args(req(`/api/kids/${kidId}/daily_logs/new`, { cookie: await cookieFor(me), form: four }), { kidId }),
    );
    expect(res.status).toBe(429);
    expect(await moments(made.kid.id)).toBe(0);
    expect(await countImageRows()).toBe(rows);
    expect(listUploads()).toEqual([]);
  });
});
