import { describe, expect, it } from "vitest";
import * as create from "./kids-daily-logs-new";
import * as one from "./daily-logs-id";
import { args, req } from "../../../tests/helpers";
import { isStored } from "~/images/test-fixtures.server";
import { db } from "~/lib/db.server";
import { insertLikeAndComment, jpeg } from "~/models/kids-test-helpers.server";
import { form, LOG_SHAPE, PARENT_SHAPE, setup } from "../../../tests/kit/api-moments";

// One moment by its id through the API: read, update, delete, and several photos (listing and
// posting: daily-logs.test.ts).

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
    // each photo's full-size copy (docs/decisions/0063-full-size-originals.md), under the same key
    for (const p of log.photos as { url: string; original_url: string }[])
      expect(p.original_url).toBe(p.url.replace(/\/[0-9]+\.webp$/, "/original.jpg"));

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
