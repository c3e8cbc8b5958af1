import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { makeUser } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { countImageRows, isStored, listStored } from "~/images/test-fixtures.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { today } from "~/lib/dates.server";
import { createKid, listKidsOf, listVisibleKidsOf, removeKid, updateKid, viewKid } from "./kids.server";
import { createMoment } from "./moment-changes.server";
import { befriend, insertLikeAndComment, jpegUpload } from "./kids-test-helpers.server";

const elsa = { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" as const };

// refusals as the access module words them (app/models/access.server.ts)
const HIDDEN = { ok: false, kind: "forbidden", message: "You are not authorized", hidden: true };
const NOT_OWNER = { ok: false, kind: "forbidden", message: "You are not authorized" };
const KID_NOT_FOUND = { ok: false, kind: "not-found", message: "Kid not found" };

/** The keys of every stored photo (through the photo store: this file runs on both backends). */
const keyDirs = async () => new Set((await listStored()).map((f) => f.split("/")[0]));

describe("kids", () => {
  it("creates a kid with and without a photo and lists a user's own kids in id order", async () => {
    const owner = await makeUser();
    const a = await createKid(owner.id, elsa, null);
    const b = await createKid(owner.id, { ...elsa, name: "Leo" }, await jpegUpload());
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.kid).toEqual({
      id: expect.any(Number),
      user_id: owner.id,
      ...elsa,
      photo: null,
      default_audience: "everyone",
    });
    expect(b.kid.photo).toMatchObject({ key: expect.any(String), widths: expect.any(Array) });
    const kids = await listKidsOf(owner.id);
    expect(kids.map((k) => k.name)).toEqual(["Elsa", "Leo"]);
    expect(await listKidsOf((await makeUser()).id)).toEqual([]);
    const byOwner = await listVisibleKidsOf(owner.id, [owner.id]);
    expect(byOwner.get(owner.id)!.map((k) => k.id)).toEqual([a.kid.id, b.kid.id]);
  });

  it("refuses a file that is not an image, leaving nothing behind", async () => {
    const owner = await makeUser();
    const images = await countImageRows();
    const result = await createKid(
      owner.id,
      elsa,
      await uploadFromBuffer(Buffer.from("not an image at all"), "x.jpg", "image/jpeg"),
    );
    expect(result).toEqual({
      ok: false,
      kind: "invalid",
      message: "Only image files are accepted.",
      fieldErrors: { image: ["Only image files are accepted."] },
    });
    expect(await countImageRows()).toBe(images);
    expect(await listKidsOf(owner.id)).toEqual([]);
  });

  it("shows a kid to the owner and accepted friends only; others learn nothing more than 'hidden'", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    const pending = await makeUser();
    const stranger = await makeUser();
    await befriend(friend.id, owner.id);
    await befriend(owner.id, pending.id, "pending");
    const created = await createKid(owner.id, elsa, null);
    if (!created.ok) throw new Error("setup");
    const id = created.kid.id;
    expect(await viewKid(owner.id, id)).toMatchObject({ ok: true, isOwner: true });
    expect(await viewKid(friend.id, id)).toMatchObject({ ok: true, isOwner: false });
    expect(await viewKid(pending.id, id)).toEqual(HIDDEN);
    expect(await viewKid(stranger.id, id)).toEqual(HIDDEN);
    expect(await viewKid(owner.id, 999999)).toEqual(KID_NOT_FOUND);
  });

  it("lets only the owner update; a new photo replaces the old one and its files", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    await befriend(owner.id, friend.id);
    const created = await createKid(owner.id, elsa, await jpegUpload());
    if (!created.ok) throw new Error("setup");
    const oldKey = created.kid.photo!.key;
    expect((await keyDirs()).has(oldKey)).toBe(true);

    expect(await updateKid(friend.id, created.kid.id, { ...elsa, name: "Hacked" }, null)).toEqual(NOT_OWNER);
    expect(await updateKid((await makeUser()).id, created.kid.id, elsa, null)).toEqual(HIDDEN);
    expect(await updateKid(owner.id, 999999, elsa, null)).toEqual(KID_NOT_FOUND);

    const textOnly = await updateKid(
      owner.id,
      created.kid.id,
      { name: "Elsa Marie", birth_date: "2019-03-15", relationship: "Dad" },
      null,
    );
    expect(textOnly).toMatchObject({
      ok: true,
      kid: { name: "Elsa Marie", birth_date: "2019-03-15", relationship: "Dad", photo: { key: oldKey } },
    });

    const withPhoto = await updateKid(owner.id, created.kid.id, elsa, await jpegUpload(80, 80));
    if (!withPhoto.ok) throw new Error("update failed");
    expect(withPhoto.kid.photo!.key).not.toBe(oldKey);
    expect((await keyDirs()).has(oldKey)).toBe(false);
    expect((await keyDirs()).has(withPhoto.kid.photo!.key)).toBe(true);
    expect(await db()("images").where("key", oldKey).first()).toBeUndefined();
  });

  it("a refused photo on update changes nothing", async () => {
    const owner = await makeUser();
    const created = await createKid(owner.id, elsa, null);
    if (!created.ok) throw new Error("setup");
    const bad = await uploadFromBuffer(Buffer.from("GIF89a broken"), "x.gif", "image/gif");
    const result = await updateKid(owner.id, created.kid.id, { ...elsa, name: "Changed" }, bad);
    expect(result).toMatchObject({ ok: false, kind: "invalid" });
    expect((await viewKid(owner.id, created.kid.id)) as { kid: { name: string } }).toMatchObject({
      kid: { name: "Elsa" },
    });
    expect(fs.existsSync(bad.path)).toBe(false);
  });

  it("removing a kid removes its moments, their likes and comments, and every photo file", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    await befriend(owner.id, friend.id);
    const created = await createKid(owner.id, elsa, await jpegUpload());
    const other = await createKid(owner.id, { ...elsa, name: "Other" }, await jpegUpload());
    if (!created.ok || !other.ok) throw new Error("setup");
    const m1 = await createMoment(owner.id, created.kid.id, { title: "One", content: "First" }, await jpegUpload());
    const m2 = await createMoment(owner.id, created.kid.id, { title: "Two", content: "Second" }, await jpegUpload());
    const keep = await createMoment(
      owner.id,
      other.kid.id,
      { title: "Keep", content: "Other kid" },
      await jpegUpload(),
    );
    if (!m1.ok || !m2.ok || !keep.ok) throw new Error("setup");
    await insertLikeAndComment(m1.moment.id, friend.id);
    await insertLikeAndComment(m2.moment.id, owner.id);
    await insertLikeAndComment(keep.moment.id, friend.id);
    const doomedKeys = [created.kid.photo!.key, m1.moment.photo!.key, m2.moment.photo!.key];
    for (const key of doomedKeys) expect((await keyDirs()).has(key)).toBe(true);

    expect(await removeKid(friend.id, created.kid.id)).toEqual(NOT_OWNER);
    expect(await removeKid(owner.id, created.kid.id)).toEqual({ ok: true });
    expect(await removeKid(owner.id, created.kid.id)).toEqual(KID_NOT_FOUND);

    expect(await db()("daily_logs").where("kid_id", created.kid.id).count({ n: "*" }).first()).toEqual({ n: 0 });
    expect(await db()("likes").whereIn("daily_log_id", [m1.moment.id, m2.moment.id]).count({ n: "*" }).first()).toEqual(
      { n: 0 },
    );
    expect(
      await db()("comments").whereIn("daily_log_id", [m1.moment.id, m2.moment.id]).count({ n: "*" }).first(),
    ).toEqual({ n: 0 });
    expect(await db()("images").whereIn("key", doomedKeys).count({ n: "*" }).first()).toEqual({ n: 0 });
    for (const key of doomedKeys) expect(await isStored(key)).toBe(false);
    // the other kid and its moment are untouched
    expect((await keyDirs()).has(other.kid.photo!.key)).toBe(true);
    expect((await keyDirs()).has(keep.moment.photo!.key)).toBe(true);
    expect(await db()("likes").where("daily_log_id", keep.moment.id).count({ n: "*" }).first()).toEqual({ n: 1 });
  });

  it("takes today in the configured time zone", () => {
    expect(today()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
