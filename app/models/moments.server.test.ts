import { describe, expect, it } from "vitest";
import { makeUser } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { isStored } from "~/images/test-fixtures.server";
import { createKid } from "./kids.server";
import {
  createMoment,
  decodeCursor,
  deleteMoment,
  encodeCursor,
  listMoments,
  updateMoment,
  viewMoment,
} from "./moments.server";
import { befriend, insertLikeAndComment, insertMoments, jpegUpload } from "./kids-test-helpers.server";

// refusals as the access module words them (app/models/access.server.ts)
const HIDDEN = { ok: false, kind: "forbidden", message: "You are not authorized", hidden: true };
const NOT_OWNER = { ok: false, kind: "forbidden", message: "You are not authorized" };
const KID_NOT_FOUND = { ok: false, kind: "not-found", message: "Kid not found" };
const MOMENT_NOT_FOUND = { ok: false, kind: "not-found", message: "Daily log not found" };

async function kidOf(ownerId: number, name = "Elsa") {
  const r = await createKid(ownerId, { name, birth_date: "2020-01-01", relationship: "Mom" }, null);
  if (!r.ok) throw new Error("setup");
  return r.kid;
}

describe("moments", () => {
  it("creates a moment (owner only, photo required) and shows it to owner and friends", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    const stranger = await makeUser();
    await befriend(owner.id, friend.id);
    const kid = await kidOf(owner.id);

    expect(await createMoment(friend.id, kid.id, { title: "t", content: "c" }, await jpegUpload())).toEqual(NOT_OWNER);
    expect(await createMoment(stranger.id, kid.id, { title: "t", content: "c" }, await jpegUpload())).toEqual(HIDDEN);
    expect(await createMoment(owner.id, 999999, { title: "t", content: "c" }, await jpegUpload())).toEqual(KID_NOT_FOUND);
    expect(await createMoment(owner.id, kid.id, { title: "t", content: "c" }, null)).toMatchObject({ ok: false, kind: "invalid" });

    const made = await createMoment(owner.id, kid.id, { title: "Park", content: "Pigeons" }, await jpegUpload());
    if (!made.ok) throw new Error("create failed");
    expect(made.moment).toMatchObject({ kid_id: kid.id, title: "Park", content: "Pigeons", photo: { key: expect.any(String) } });
    expect(made.moment.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    expect(await viewMoment(owner.id, made.moment.id)).toMatchObject({ ok: true, isOwner: true, kid: { id: kid.id, name: "Elsa" } });
    expect(await viewMoment(friend.id, made.moment.id)).toMatchObject({ ok: true, isOwner: false });
    expect(await viewMoment(stranger.id, made.moment.id)).toEqual(HIDDEN);
    expect(await viewMoment(owner.id, 999999)).toEqual(MOMENT_NOT_FOUND);
    expect(await listMoments(stranger.id, kid.id)).toEqual(HIDDEN);
  });

  it("pages a kid's moments newest first with an opaque cursor, ties broken by id", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    await insertMoments(kid.id, 45);
    // two moments with the same instant as moment 26: the first page ends between them
    const same = "2024-01-01T00:00:25.000Z";
    await db()("daily_logs").insert([
      { kid_id: kid.id, title: "Tie A", content: "x", created_at: same, updated_at: same },
      { kid_id: kid.id, title: "Tie B", content: "x", created_at: same, updated_at: same },
    ]);
    const seen: string[] = [];
    let before = null;
    let pages = 0;
    for (;;) {
      const page = await listMoments(owner.id, kid.id, { limit: 20, before });
      if (!page.ok) throw new Error("refused");
      seen.push(...page.moments.map((m) => m.title));
      pages++;
      if (!page.next) break;
      before = decodeCursor(page.next);
      expect(before).not.toBeNull();
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(47);
    expect(new Set(seen).size).toBe(47);
    expect(seen.slice(0, 2)).toEqual(["Moment 45", "Moment 44"]);
    expect(seen.slice(18, 22)).toEqual(["Moment 27", "Tie B", "Tie A", "Moment 26"]);
    expect(seen[46]).toBe("Moment 1");
    const all = await listMoments(owner.id, kid.id);
    expect(all.ok && all.moments.map((m) => m.title)).toEqual(seen);
    expect(all.ok && all.next).toBeNull();
  });

  it("decodes only its own cursors", () => {
    const c = encodeCursor({ created_at: "2024-06-06T18:04:05.000Z", id: 42 });
    expect(decodeCursor(c)).toEqual({ createdAt: "2024-06-06T18:04:05.000Z", id: 42 });
    for (const bad of ["", "abc", "!!!", Buffer.from("2024-06-06_1").toString("base64url"), Buffer.from("2024-06-06T18:04:05.000Z_0").toString("base64url")]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });

  it("updates (owner only), keeps created_at, replaces the photo and its files", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    await befriend(owner.id, friend.id);
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, { title: "Old", content: "Old text" }, await jpegUpload());
    if (!made.ok) throw new Error("setup");
    const oldKey = made.moment.photo!.key;

    expect(await updateMoment(friend.id, made.moment.id, { title: "x", content: "y" }, null)).toEqual(NOT_OWNER);
    const text = await updateMoment(owner.id, made.moment.id, { title: "New", content: "New text" }, null);
    expect(text).toMatchObject({ ok: true, moment: { title: "New", content: "New text", created_at: made.moment.created_at, photo: { key: oldKey } } });

    const photo = await updateMoment(owner.id, made.moment.id, { title: "New", content: "New text" }, await jpegUpload(90, 60));
    if (!photo.ok) throw new Error("update failed");
    expect(photo.moment.photo!.key).not.toBe(oldKey);
    expect(photo.moment.created_at).toBe(made.moment.created_at);
    expect(await isStored(oldKey)).toBe(false);
    expect(await isStored(photo.moment.photo!.key)).toBe(true);
  });

  it("deletes a moment (owner only) with its likes, comments and photo", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    await befriend(owner.id, friend.id);
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, { title: "Bye", content: "Soon gone" }, await jpegUpload());
    if (!made.ok) throw new Error("setup");
    await insertLikeAndComment(made.moment.id, friend.id);
    const key = made.moment.photo!.key;

    expect(await deleteMoment(friend.id, made.moment.id)).toEqual(NOT_OWNER);
    expect(await deleteMoment((await makeUser()).id, made.moment.id)).toEqual(HIDDEN);
    expect(await deleteMoment(owner.id, made.moment.id)).toEqual({ ok: true, kidId: kid.id });
    expect(await deleteMoment(owner.id, made.moment.id)).toEqual(MOMENT_NOT_FOUND);
    expect(await db()("likes").where("daily_log_id", made.moment.id).first()).toBeUndefined();
    expect(await db()("comments").where("daily_log_id", made.moment.id).first()).toBeUndefined();
    expect(await db()("images").where("key", key).first()).toBeUndefined();
    expect(await isStored(key)).toBe(false);
  });
});
