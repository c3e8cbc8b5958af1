import { describe, expect, it } from "vitest";
import * as list from "./kids-daily-logs";
import * as create from "./kids-daily-logs-new";
import * as one from "./daily-logs-id";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { isStored } from "~/images/test-fixtures.server";
import { db } from "~/lib/db.server";
import { createKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { befriend, insertLikeAndComment, insertMoments, jpeg, jpegUpload } from "~/models/kids-test-helpers.server";

const LOG_SHAPE = {
  id: expect.any(Number),
  kid_id: expect.any(Number),
  title: expect.any(String),
  content: expect.any(String),
  image_url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/),
  created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  taken_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  milestone: null,
  posted_by: expect.any(Number),
  photos: [
    {
      url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/),
      width: expect.any(Number),
      height: expect.any(Number),
      alt: expect.any(String),
    },
  ],
};
/** What the kid's owner and co-parents see besides (docs/api.md): the audience. */
const PARENT_SHAPE = { ...LOG_SHAPE, audience: "everyone" };

function form(fields: Record<string, string>, image?: Buffer) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  if (image) fd.set("image", new Blob([new Uint8Array(image)], { type: "image/jpeg" }), "moment.jpg");
  return fd;
}

async function setup() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(friend.id, owner.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  const moment = await createMoment(owner.id, made.kid.id, { title: "Park", content: "Pigeons" }, await jpegUpload());
  if (!moment.ok) throw new Error("setup");
  return {
    owner,
    friend,
    kid: made.kid,
    moment: moment.moment,
    cookies: { owner: await cookieFor(owner), friend: await cookieFor(friend), stranger: await cookieFor(stranger) },
  };
}

describe("401 for every daily_logs call without a session", () => {
  it("answers 401 (C) on every method", async () => {
    const cases: [typeof list.loader, string, string, Record<string, string>][] = [
      [list.loader, "/api/kids/1/daily_logs", "GET", { kidId: "1" }],
      [create.action, "/api/kids/1/daily_logs/new", "POST", { kidId: "1" }],
      [one.loader, "/api/daily_logs/1", "GET", { id: "1" }],
      [one.action, "/api/daily_logs/x", "PUT", { id: "x" }],
      [one.action, "/api/daily_logs/1", "DELETE", { id: "1" }],
    ];
    for (const [fn, url, method, params] of cases) {
      const res = await fn(args(req(url, { method }), params));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
    }
  });
});

describe("GET /api/kids/{kidId}/daily_logs", () => {
  it("lists every moment newest first, to the owner and a friend; 403 to a stranger; 404 for unknown kids", async () => {
    const { owner, kid, moment, cookies } = await setup();
    const second = await createMoment(owner.id, kid.id, { title: "Later", content: "Newer" }, await jpegUpload());
    if (!second.ok) throw new Error("setup");
    const get = (cookie: string, kidId: string, search = "") =>
      list.loader(args(req(`/api/kids/${kidId}/daily_logs${search}`, { cookie }), { kidId }));
    for (const cookie of [cookies.owner, cookies.friend]) {
      const res = await get(cookie, String(kid.id));
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({
        daily_logs: [expect.objectContaining(LOG_SHAPE), expect.objectContaining(LOG_SHAPE)],
        next: null,
      });
      expect(body.daily_logs.map((l: { id: number }) => l.id)).toEqual([second.moment.id, moment.id]);
      const keys = [
        "content",
        "created_at",
        "id",
        "image_url",
        "kid_id",
        "milestone",
        "photos",
        "posted_by",
        "taken_on",
        "title",
      ];
      // the audience only to the kid's owner (and co-parents)
      expect(Object.keys(body.daily_logs[0]).sort()).toEqual(cookie === cookies.owner ? ["audience", ...keys] : keys);
      expect(body.daily_logs[0].posted_by).toBe(owner.id);
    }
    const hidden = await get(cookies.stranger, String(kid.id));
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ errors: { message: "You are not authorized" } });
    for (const id of ["999999", "zero"]) {
      const res = await get(cookies.owner, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: { message: "Kid not found" } });
    }
  });

  it("pages with ?limit=N&before=<cursor> and answers next", async () => {
    const { owner, cookies } = await setup();
    const made = await createKid(owner.id, { name: "Leo", birth_date: "2021-01-01", relationship: "Dad" }, null);
    if (!made.ok) throw new Error("setup");
    await insertMoments(made.kid.id, 7);
    const get = (search: string) =>
      list.loader(
        args(req(`/api/kids/${made.kid.id}/daily_logs${search}`, { cookie: cookies.owner }), {
          kidId: String(made.kid.id),
        }),
      );
    const titles: string[] = [];
    let search = "?limit=3";
    for (let i = 0; i < 5; i++) {
      const body = await (await get(search)).json();
      titles.push(...body.daily_logs.map((l: { title: string }) => l.title));
      if (!body.next) break;
      expect(typeof body.next).toBe("string");
      search = `?limit=3&before=${encodeURIComponent(body.next)}`;
    }
    expect(titles).toEqual(["Moment 7", "Moment 6", "Moment 5", "Moment 4", "Moment 3", "Moment 2", "Moment 1"]);
    // moments without photos serialize image_url null
    expect((await (await get("?limit=1")).json()).daily_logs[0].image_url).toBeNull();
  });

  it("400 (C) for a bad limit or cursor, but only after 404 and 403", async () => {
    const { kid, cookies } = await setup();
    const get = (cookie: string, kidId: string, search: string) =>
      list.loader(args(req(`/api/kids/${kidId}/daily_logs${search}`, { cookie }), { kidId }));
    for (const search of [
      "?limit=0",
      "?limit=abc",
      "?before=nonsense!",
      "?limit=2&before=" + Buffer.from("x_1").toString("base64url"),
    ]) {
      const res = await get(cookies.owner, String(kid.id), search);
      expect(res.status).toBe(400);
      expect(Object.keys((await res.json()).errors)).toEqual(["message"]);
    }
    expect((await get(cookies.stranger, String(kid.id), "?limit=0")).status).toBe(403);
    expect((await get(cookies.owner, "999999", "?limit=0")).status).toBe(404);
  });
});

describe("POST /api/kids/{kidId}/daily_logs/new", () => {
  it("creates a moment: 201 DailyLog", async () => {
    const { kid, cookies } = await setup();
    const res = await create.action(
      args(
        req(`/api/kids/${kid.id}/daily_logs/new`, {
          cookie: cookies.owner,
          form: form({ title: " Snow ", content: "Eleven flakes" }, await jpeg()),
        }),
        { kidId: String(kid.id) },
      ),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ ...PARENT_SHAPE, kid_id: kid.id, title: "Snow", content: "Eleven flakes" });
  });

  it("takes taken_on and milestone on create and update, with field errors for bad ones", async () => {
    const { kid, cookies } = await setup();
    const post = (fields: Record<string, string>) =>
      create.action(
        args(req(`/api/kids/${kid.id}/daily_logs/new`, { cookie: cookies.owner, form: form(fields, undefined) }), {
          kidId: String(kid.id),
        }),
      );
    const withPhoto = async (fields: Record<string, string>) =>
      create.action(
        args(req(`/api/kids/${kid.id}/daily_logs/new`, { cookie: cookies.owner, form: form(fields, await jpeg()) }), {
          kidId: String(kid.id),
        }),
      );
    const res = await withPhoto({
      title: "Steps",
      content: "Three!",
      taken_on: "2020-07-01",
      milestone: "First steps",
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created).toEqual({
      ...PARENT_SHAPE,
      kid_id: kid.id,
      title: "Steps",
      content: "Three!",
      taken_on: "2020-07-01",
      milestone: "First steps",
    });
    const other = await withPhoto({
      title: "Swim",
      content: "Splash",
      milestone: "Other",
      milestone_label: "First swim",
    });
    expect(await other.json()).toMatchObject({ milestone: "First swim" });
    const bad = await post({ title: "t", content: "c", taken_on: "2020-02-30", milestone: "Other" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errors: {
        taken_on: ["Date must be a real date, for example 2024-06-14"],
        milestone_label: ["Milestone label is required when the milestone is Other"],
        image: ["Image is required"],
      },
    });
    const future = await withPhoto({ title: "t", content: "c", taken_on: "2999-01-01" });
    expect(future.status).toBe(400);
    expect(await future.json()).toEqual({ errors: { taken_on: ["Date can not be in the future"] } });

    const put = (fields: Record<string, string>) =>
      one.action(
        args(req(`/api/daily_logs/${created.id}`, { method: "PUT", cookie: cookies.owner, form: form(fields) }), {
          id: String(created.id),
        }),
      );
    const kept = await put({ title: "Steps", content: "Four!" });
    expect(await kept.json()).toMatchObject({ content: "Four!", taken_on: "2020-07-01", milestone: "First steps" });
    const cleared = await put({ title: "Steps", content: "Four!", milestone: "none", taken_on: "2020-07-02" });
    expect(await cleared.json()).toMatchObject({ taken_on: "2020-07-02", milestone: null });
  });

  it("404 → 403 → 400 (image required, spec messages)", async () => {
    const { kid, cookies } = await setup();
    const post = (cookie: string, kidId: string, body: FormData) =>
      create.action(args(req(`/api/kids/${kidId}/daily_logs/new`, { cookie, form: body }), { kidId }));
    const notFound = await post(cookies.owner, "999999", form({}));
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ errors: { message: "Kid not found" } });
    for (const cookie of [cookies.friend, cookies.stranger]) {
      const res = await post(cookie, String(kid.id), form({ title: "t", content: "c" }, await jpeg()));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ errors: { message: "You are not authorized" } });
    }
    const invalid = await post(cookies.owner, String(kid.id), form({ image: "null" }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      errors: { title: ["Title is required"], content: ["Content is required"], image: ["Image is required"] },
    });
    const long = await post(
      cookies.owner,
      String(kid.id),
      form({ title: "t".repeat(51), content: "c".repeat(2001) }, await jpeg()),
    );
    expect(await long.json()).toEqual({
      errors: {
        title: ["Title can not be more than 50 characters"],
        content: ["Content can not be more than 2000 characters"],
      },
    });
  });
});

describe("GET /api/daily_logs/{id}", () => {
  it("answers the DailyLog to owner and friend; 403 to a stranger; 404 otherwise", async () => {
    const { moment, cookies } = await setup();
    const get = (cookie: string, id: string) => one.loader(args(req(`/api/daily_logs/${id}`, { cookie }), { id }));
    const res = await get(cookies.friend, String(moment.id));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ...LOG_SHAPE,
      id: moment.id,
      title: "Park",
      content: "Pigeons",
      created_at: moment.created_at,
    });
    const hidden = await get(cookies.stranger, String(moment.id));
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ errors: { message: "You are not authorized" } });
    const missing = await get(cookies.owner, "999999");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ errors: { message: "Daily log not found" } });
  });
});

describe("PUT /api/daily_logs/{id}", () => {
  it("updates text and photo, keeps created_at, deletes the old file", async () => {
    const { moment, cookies } = await setup();
    const put = (body: FormData) =>
      one.action(
        args(req(`/api/daily_logs/${moment.id}`, { method: "PUT", cookie: cookies.owner, form: body }), {
          id: String(moment.id),
        }),
      );
    const text = await put(form({ title: "Park!", content: "More pigeons", image: "null" }));
    expect(text.status).toBe(200);
    const t = await text.json();
    expect(t).toEqual({
      ...PARENT_SHAPE,
      id: moment.id,
      title: "Park!",
      content: "More pigeons",
      created_at: moment.created_at,
    });
    expect(t.image_url).toContain(moment.photo!.key);
    const photo = await put(form({ title: "Park!", content: "More pigeons" }, await jpeg(120, 90)));
    const p = await photo.json();
    expect(p.image_url).not.toContain(moment.photo!.key);
    expect(p.created_at).toBe(moment.created_at);
    expect(await isStored(moment.photo!.key)).toBe(false);
  });

  it("404 → 403 → 400 with the 'cannot' wording", async () => {
    const { moment, cookies } = await setup();
    const put = (cookie: string, id: string, json: unknown) =>
      one.action(args(req(`/api/daily_logs/${id}`, { method: "PUT", cookie, json }), { id }));
    expect((await put(cookies.owner, "999999", {})).status).toBe(404);
    expect((await put(cookies.friend, String(moment.id), {})).status).toBe(403);
    expect((await put(cookies.stranger, String(moment.id), {})).status).toBe(403);
    const invalid = await put(cookies.owner, String(moment.id), { title: "t".repeat(51), content: "c".repeat(2001) });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      errors: {
        title: ["Title cannot be more than 50 characters"],
        content: ["Content cannot be more than 2000 characters"],
      },
    });
  });
});

describe("DELETE /api/daily_logs/{id}", () => {
  it("deletes the moment with its likes, comments and photo; owner only", async () => {
    const { friend, moment, cookies } = await setup();
    await insertLikeAndComment(moment.id, friend.id);
    const del = (cookie: string) =>
      one.action(args(req(`/api/daily_logs/${moment.id}`, { method: "DELETE", cookie }), { id: String(moment.id) }));
    expect((await del(cookies.friend)).status).toBe(403);
    expect((await del(cookies.stranger)).status).toBe(403);
    const ok = await del(cookies.owner);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ message: "This daily_log is deleted successfully" });
    expect(await db()("likes").where("daily_log_id", moment.id).first()).toBeUndefined();
    expect(await db()("comments").where("daily_log_id", moment.id).first()).toBeUndefined();
    expect(await isStored(moment.photo!.key)).toBe(false);
    const again = await del(cookies.owner);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ errors: { message: "Daily log not found" } });
  });
});

describe("several photos (docs/api.md)", () => {
  const photosForm = async (fields: Record<string, string>, count: number) => {
    const fd = form(fields);
    for (let i = 0; i < count; i++)
      fd.append("image", new Blob([new Uint8Array(await jpeg(50 + i, 40))], { type: "image/jpeg" }), `p${i}.jpg`);
    return fd;
  };

  it("POST takes several image parts with alt_<n>; PUT with image parts replaces them all; 11 are refused", async () => {
    const { kid, cookies } = await setup();
    const post = (body: FormData) =>
      create.action(
        args(req(`/api/kids/${kid.id}/daily_logs/new`, { cookie: cookies.owner, form: body }), {
          kidId: String(kid.id),
        }),
      );
    const res = await post(
      await photosForm({ title: "Zoo", content: "Animals", alt_1: "A lion", alt_2: "A bear", alt_3: "A seal" }, 3),
    );
    expect(res.status).toBe(201);
    const log = await res.json();
    expect(log.photos.map((p: { alt: string; width: number }) => [p.alt, p.width])).toEqual([
      ["A lion", 50],
      ["A bear", 51],
      ["A seal", 52],
    ]);
    expect(log.image_url).toBe(log.photos[0].url);

    const missing = await post(await photosForm({ title: "Zoo", content: "Animals", alt_1: "A lion" }, 2));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      errors: { alt_2: ["Enter the alt text of photo 2 (a short description for people who cannot see it)"] },
    });
    const tooMany = await post(await photosForm({ title: "Zoo", content: "Animals" }, 11));
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toEqual({ errors: { image: ["A moment can have at most 10 photos."] } });

    const put = await one.action(
      args(
        req(`/api/daily_logs/${log.id}`, {
          method: "PUT",
          cookie: cookies.owner,
          form: await photosForm({ title: "Zoo", content: "Animals", alt_1: "New 1", alt_2: "New 2" }, 2),
        }),
        { id: String(log.id) },
      ),
    );
    expect(put.status).toBe(200);
    const after = await put.json();
    expect(after.photos.map((p: { alt: string }) => p.alt)).toEqual(["New 1", "New 2"]);
    for (const p of log.photos) expect(await isStored(p.url.split("/")[2])).toBe(false);
  });
});
