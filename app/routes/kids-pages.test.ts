import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as myKids from "./my-kids";
import * as kidNew from "./kid-new";
import * as kidUpdate from "./kid-update";
import * as kidMoments from "./kid-moments";
import { args, formErrorsOf, req, statusOf } from "../../tests/helpers";
import { config } from "~/lib/config.server";
import { db } from "~/lib/db.server";
import { createKid, listKidsOf } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { insertMoments, jpeg, jpegUpload } from "~/models/kids-test-helpers.server";
import { multipart, people, thrown } from "../../tests/kit/kid-pages";

// The kid and moment pages as a browser without JavaScript uses them (the moment pages:
// moment-pages.test.ts).

describe("My Kids page", () => {
  it("lists the user's kids with a grammatical age, and removes one (owner only)", async () => {
    const { owner, kid, cookies } = await people();
    const data = await myKids.loader(args(req("/my-kids-list", { cookie: cookies.owner })));
    expect(data.kids).toEqual([
      {
        id: kid.id,
        name: "Elsa",
        photo: null,
        birthDate: "2019-03-14",
        born: "14 March 2019",
        age: expect.stringMatching(/^\d+ years, \d+ months?, \d+ days?$/),
        coParented: false,
      },
    ]);
    const remove = (cookie: string, kidId: string) =>
      myKids.action(args(req("/my-kids-list", { cookie, form: { intent: "remove-kid", kidId } })));
    expect((await thrown(() => remove(cookies.friend, String(kid.id)))).status).toBe(403);
    expect((await thrown(() => remove(cookies.stranger, String(kid.id)))).status).toBe(404);
    expect((await thrown(() => remove(cookies.owner, "abc"))).status).toBe(404);
    const done = await remove(cookies.owner, String(kid.id));
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/my-kids-list");
    expect(await listKidsOf(owner.id)).toEqual([]);
  });

  it("sends signed-out visitors to the log-in page", async () => {
    const r = await thrown(() => myKids.loader(args(req("/my-kids-list"))));
    expect(r.status).toBe(302);
    expect(r.location).toBe("/login?redirectTo=%2Fmy-kids-list");
  });
});

describe("Add Kid and Update Kid pages", () => {
  it("adds a kid with a photo and goes to My Kids", async () => {
    const { owner, cookies } = await people();
    const res = await kidNew.action(
      args(
        req("/kids/add-new", {
          cookie: cookies.owner,
          form: multipart({ name: "Leo", year: "2021", month: "08", day: "02", relationship: "Dad" }, await jpeg()),
        }),
      ),
    );
    expect(statusOf(res)).toBe(302);
    const kids = await listKidsOf(owner.id);
    expect(kids.find((k) => k.name === "Leo")).toMatchObject({
      birth_date: "2021-08-02",
      relationship: "Dad",
      photo: { key: expect.any(String) },
    });
  });

  it("answers 400 with every message, the image error beside the image field, and adds nothing", async () => {
    const { owner, cookies } = await people();
    const empty = await kidNew.action(args(req("/kids/add-new", { cookie: cookies.owner, form: multipart({}) })));
    expect(statusOf(empty)).toBe(400);
    expect(formErrorsOf(empty)).toMatchObject({
      name: ["Name is required"],
      year: ["Select Year"],
      month: ["Select Month"],
      day: ["Select Day"],
      relationship: ["Please choose a relationship"],
    });
    const notImage = await kidNew.action(
      args(
        req("/kids/add-new", {
          cookie: cookies.owner,
          form: multipart(
            { name: "Leo", year: "2021", month: "02", day: "29", relationship: "Dad" },
            new Blob(["text"], { type: "image/jpeg" }),
          ),
        }),
      ),
    );
    expect(formErrorsOf(notImage)).toMatchObject({
      day: ["February 2021 has only 28 days. Please choose a real date"],
    });
    const badFile = await kidNew.action(
      args(
        req("/kids/add-new", {
          cookie: cookies.owner,
          form: multipart(
            { name: "Leo", year: "2021", month: "02", day: "28", relationship: "Dad" },
            new Blob(["text"], { type: "image/jpeg" }),
          ),
        }),
      ),
    );
    expect(statusOf(badFile)).toBe(400);
    expect(formErrorsOf(badFile)).toMatchObject({ image: ["Only image files are accepted."] });
    expect((await listKidsOf(owner.id)).map((k) => k.name)).toEqual(["Elsa"]);
    expect(fs.readdirSync(path.join(config().uploadsDir, ".tmp")).filter((f) => f.endsWith(".upload"))).toEqual([]);
  });

  it("update: prefilled for the owner, 403 for a friend, 404 for a stranger; update wording", async () => {
    const { kid, cookies } = await people();
    const load = (cookie: string) =>
      kidUpdate.loader(args(req(`/kids/${kid.id}/update`, { cookie }), { kidId: String(kid.id) }));
    const data = await load(cookies.owner);
    expect(data.defaults).toEqual({
      name: "Elsa",
      year: "2019",
      month: "03",
      day: "14",
      relationship: "Mom",
      default_audience: "everyone",
    });
    expect((await thrown(() => load(cookies.friend))).status).toBe(403);
    expect((await thrown(() => load(cookies.stranger))).status).toBe(404);

    const post = (cookie: string, fields: Record<string, string>) =>
      kidUpdate.action(
        args(req(`/kids/${kid.id}/update`, { cookie, form: multipart(fields) }), { kidId: String(kid.id) }),
      );
    expect((await thrown(() => post(cookies.friend, { name: "X" }))).status).toBe(403);
    expect((await thrown(() => post(cookies.stranger, { name: "X" }))).status).toBe(404);
    const invalid = await post(cookies.owner, { name: "n".repeat(51) });
    expect(formErrorsOf(invalid)).toMatchObject({
      name: ["Name cannot be more than 50 characters"],
      year: ["Please choose a year"],
      month: ["Please choose a month"],
      day: ["Please choose a day"],
      relationship: ["Please choose a relationship"],
    });
    const ok = await post(cookies.owner, {
      name: "Elsa Marie",
      year: "2019",
      month: "03",
      day: "15",
      relationship: "Other",
    });
    expect(statusOf(ok)).toBe(302);
    expect((ok as Response).headers.get("Location")).toBe("/my-kids-list");
  });
});

describe("a kid's moments page", () => {
  it("shows the newest 20 with an Older moments cursor; owner, friend, stranger", async () => {
    const { kid, cookies } = await people();
    await insertMoments(kid.id, 25);
    const load = (cookie: string, search = "") =>
      kidMoments.loader(args(req(`/kids/${kid.id}/dailyLogs${search}`, { cookie }), { kidId: String(kid.id) }));
    const first = await load(cookies.owner);
    expect(first.canChange).toBe(true);
    expect(first.moments).toHaveLength(20);
    expect(first.moments[0]).toEqual({
      id: expect.any(Number),
      title: "Moment 25",
      content: "Content 25",
      photos: [],
      clips: [],
      milestone: null,
      date: { takenOn: "2024-01-01", date: "1 January 2024", age: "Elsa was 4 years, 9 months" },
      audience: "everyone",
      postedBy: expect.any(String),
    });
    expect(first.next).toEqual(expect.any(String));
    expect(Object.keys(first.social).map(Number)).toEqual(first.moments.map((m) => m.id).sort((a, b) => a - b));
    const older = await load(cookies.owner, `?before=${encodeURIComponent(first.next!)}`);
    expect(older.moments.map((m) => m.title)).toEqual(["Moment 5", "Moment 4", "Moment 3", "Moment 2", "Moment 1"]);
    expect(older.next).toBeNull();
    expect(older.isOlderPage).toBe(true);

    expect((await load(cookies.friend)).canChange).toBe(false);
    expect((await thrown(() => load(cookies.stranger))).status).toBe(404);
    expect(
      (
        await thrown(() =>
          kidMoments.loader(args(req("/kids/999999/dailyLogs", { cookie: cookies.owner }), { kidId: "999999" })),
        )
      ).status,
    ).toBe(404);
    expect((await thrown(() => load(cookies.owner, "?before=garbage"))).status).toBe(400);
  });

  it("runs the same number of SQL queries for a kid with 1 and with 25 moments", async () => {
    const { owner, cookies } = await people();
    const friendCookie = cookies.friend;
    const counts: number[] = [];
    for (const n of [1, 25]) {
      const made = await createKid(
        owner.id,
        { name: `Kid${n}`, birth_date: "2020-01-01", relationship: "Dad" },
        await jpegUpload(),
      );
      if (!made.ok) throw new Error("setup");
      for (let i = 0; i < Math.min(n, 3); i++)
        await createMoment(owner.id, made.kid.id, { title: `p${i}`, content: "x" }, await jpegUpload());
      if (n > 3) await insertMoments(made.kid.id, n - 3);
      for (const cookie of [cookies.owner, friendCookie]) {
        let queries = 0;
        const count = () => void queries++;
        db().on("query", count);
        try {
          const page = await kidMoments.loader(
            args(req(`/kids/${made.kid.id}/dailyLogs`, { cookie }), { kidId: String(made.kid.id) }),
          );
          expect(page.moments).toHaveLength(Math.min(n, 20));
        } finally {
          db().off("query", count);
        }
        counts.push(queries);
      }
    }
    // owner and friend views differ by the friendship check; neither grows with the moments
    expect(counts[0]).toBe(counts[2]);
    expect(counts[1]).toBe(counts[3]);
    expect(counts[0]).toBeGreaterThan(0);
  });

  it("deletes a moment from the list (owner only) and goes back to the kid's moments", async () => {
    const { owner, kid, cookies } = await people();
    const made = await createMoment(owner.id, kid.id, { title: "Bye", content: "x" }, await jpegUpload());
    if (!made.ok) throw new Error("setup");
    const del = (cookie: string) =>
      kidMoments.action(
        args(
          req(`/kids/${kid.id}/dailyLogs`, {
            cookie,
            form: { intent: "delete-moment", momentId: String(made.moment.id) },
          }),
          { kidId: String(kid.id) },
        ),
      );
    expect((await thrown(() => del(cookies.friend))).status).toBe(403);
    expect((await thrown(() => del(cookies.stranger))).status).toBe(404);
    const ok = await del(cookies.owner);
    expect(ok.headers.get("Location")).toBe(`/kids/${kid.id}/dailyLogs`);
    expect(await db()("daily_logs").where("id", made.moment.id).first()).toBeUndefined();
  });
});
