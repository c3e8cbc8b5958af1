import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeUser } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { countImageRows, isStored, listStored } from "~/images/test-fixtures.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { findImageByKey } from "~/images/storage.server";
import { canViewImage } from "./access.server";
import { createKid, removeKid } from "./kids.server";
import { createMoment, deleteMoment, updateMoment } from "./moment-changes.server";
import { listMoments, viewMoment } from "./moments.server";
import type { MomentPhotos } from "./moment-photos.server";
import { listFeed } from "./feed.server";
import { befriend, jpeg, jpegUpload } from "./kids-test-helpers.server";

// Several photos per moment (docs/decisions/0030-several-photos-per-moment.md): limits, order,
// reorder and remove, all-or-nothing, access to every photo, deletion of every file.

async function kidOf(ownerId: number) {
  const r = await createKid(ownerId, { name: "Elsa", birth_date: "2020-01-01", relationship: "Mom" }, null);
  if (!r.ok) throw new Error("setup");
  return r.kid;
}

const COLOURS = ["#c33", "#3c3", "#33c", "#cc3", "#3cc", "#c3c", "#888", "#111", "#eee", "#963", "#369"];

async function photos(n: number, alts = (i: number) => `Photo ${i + 1}`): Promise<MomentPhotos> {
  const added = [];
  for (let i = 0; i < n; i++) {
    added.push({
      file: await uploadFromBuffer(await jpeg(40 + i, 30, COLOURS[i]), `p${i}.jpg`, "image/jpeg"),
      alt: alts(i),
      slot: i + 1,
    });
  }
  return { added };
}

const input = { title: "Beach", content: "Sand everywhere" };

describe("several photos per moment", () => {
  it("adds a moment with three photos in order, each with its alt text; image_url's photo is the first", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, input, await photos(3));
    if (!made.ok) throw new Error(JSON.stringify(made));
    expect(made.moment.photos.map((p) => p.alt)).toEqual(["Photo 1", "Photo 2", "Photo 3"]);
    expect(made.moment.photos.map((p) => p.width)).toEqual([40, 41, 42]);
    expect(made.moment.photo!.key).toBe(made.moment.photos[0]!.key);
    expect(made.moment.photo_count).toBe(3);
    for (const p of made.moment.photos) expect(await isStored(p.key)).toBe(true);
    // the lists read them too (the kid's page, the feed)
    const page = await listMoments(owner.id, kid.id, { limit: 20 });
    if (!page.ok) throw new Error("list");
    expect(page.moments[0]!.photos.map((p) => p.key)).toEqual(made.moment.photos.map((p) => p.key));
    const feed = await listFeed(owner.id, { limit: 20 });
    expect(feed.moments[0]!.photos.map((p) => p.alt)).toEqual(["Photo 1", "Photo 2", "Photo 3"]);
  });

  it("a HEIC photo from an iPhone goes through the same pipeline beside a JPEG", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const heic = fs.readFileSync(path.resolve(import.meta.dirname, "../../tests/fixtures/iphone.heic"));
    const upload = await photos(1, () => "A JPEG");
    upload.added.push({
      file: await uploadFromBuffer(heic, "IMG_0001.HEIC", "image/heic"),
      alt: "From the iPhone",
      slot: 2,
    });
    const made = await createMoment(owner.id, kid.id, input, upload);
    if (!made.ok) throw new Error(JSON.stringify(made));
    expect(made.moment.photos.map((p) => p.alt)).toEqual(["A JPEG", "From the iPhone"]);
    for (const p of made.moment.photos) expect(await isStored(p.key)).toBe(true);
  });

  it("one photo without alt text gets the title; several need an alt text each (field errors, nothing written)", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const one = await createMoment(owner.id, kid.id, input, await photos(1, () => ""));
    if (!one.ok) throw new Error("one");
    expect(one.moment.photos.map((p) => p.alt)).toEqual(["Beach"]);

    const rows = await countImageRows();
    const stored = (await listStored()).length;
    const missing = await createMoment(owner.id, kid.id, input, await photos(3, (i) => (i === 1 ? " " : "ok")));
    expect(missing).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { alt_2: [expect.stringContaining("alt text of photo 2")] },
    });
    expect(await countImageRows()).toBe(rows);
    expect((await listStored()).length).toBe(stored);
  });

  it("refuses 11 photos and a non-image among good ones: nothing written, no file left", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const rows = await countImageRows();
    const stored = (await listStored()).length;
    const moments = Number((await db()("daily_logs").count({ n: "*" }).first())?.n);

    expect(await createMoment(owner.id, kid.id, input, await photos(11))).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { image: ["A moment can have at most 10 photos."] },
    });
    const bad = await photos(3);
    await bad.added[2]!.file.discard();
    bad.added[2] = {
      file: await uploadFromBuffer(Buffer.from("not an image at all"), "notes.txt", "text/plain"),
      alt: "Text",
      slot: 3,
    };
    expect(await createMoment(owner.id, kid.id, input, bad)).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { image_3: ["Only image files are accepted."] },
    });
    expect(await countImageRows()).toBe(rows);
    expect((await listStored()).length).toBe(stored);
    expect(Number((await db()("daily_logs").count({ n: "*" }).first())?.n)).toBe(moments);
  });

  it("ten photos are fine; an update that would make eleven is refused", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, input, await photos(10));
    if (!made.ok) throw new Error(JSON.stringify(made));
    expect(made.moment.photos).toHaveLength(10);
    const more = await photos(1);
    expect(await updateMoment(owner.id, made.moment.id, input, { ...more, edits: [] })).toMatchObject({
      ok: false,
      fieldErrors: { image: ["A moment can have at most 10 photos."] },
    });
  });

  it("reorders, removes (deleting its files), changes alt text, appends new photos and moves updated_at", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, input, await photos(3));
    if (!made.ok) throw new Error("setup");
    const [a, b, c] = made.moment.photos as [
      (typeof made.moment.photos)[0],
      (typeof made.moment.photos)[0],
      (typeof made.moment.photos)[0],
    ];
    await db()("daily_logs").where("id", made.moment.id).update({ updated_at: "2020-01-01T00:00:00.000Z" });

    const added = await photos(1, () => "New one");
    const updated = await updateMoment(owner.id, made.moment.id, input, {
      added: added.added,
      edits: [
        { id: a.id, position: 2, alt: "First, now second" },
        { id: b.id, remove: true },
        { id: c.id, position: 1 },
      ],
    });
    if (!updated.ok) throw new Error(JSON.stringify(updated));
    const after = updated.moment.photos;
    expect(after.map((p) => p.alt)).toEqual(["Photo 3", "First, now second", "New one"]);
    expect(after.slice(0, 2).map((p) => p.key)).toEqual([c.key, a.key]);
    expect(updated.moment.photo!.key).toBe(c.key); // image_url follows the first
    expect(await isStored(b.key)).toBe(false);
    expect(await findImageByKey(b.key)).toBeNull();
    const row = await db()("daily_logs").where("id", made.moment.id).first("updated_at", "photo_count");
    expect(row.updated_at > "2020-01-01T00:00:00.000Z").toBe(true);
    expect(Number(row.photo_count)).toBe(3);

    // removing every photo is refused; removing down to one keeps its alt text
    const all = after.map((p) => ({ id: p.id, remove: true }));
    expect(await updateMoment(owner.id, made.moment.id, input, { added: [], edits: all })).toMatchObject({
      ok: false,
      fieldErrors: { image: [expect.any(String)] },
    });
    const down = await updateMoment(owner.id, made.moment.id, input, { added: [], edits: all.slice(1) });
    if (!down.ok) throw new Error("down");
    expect(down.moment.photos.map((p) => p.key)).toEqual([c.key]);
  });

  it("a single new photo without edits (the API's PUT) replaces all the photos", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, input, await photos(3));
    if (!made.ok) throw new Error("setup");
    const updated = await updateMoment(owner.id, made.moment.id, input, await jpegUpload(70, 50));
    if (!updated.ok) throw new Error("update");
    expect(updated.moment.photos.map((p) => [p.width, p.alt])).toEqual([[70, "Beach"]]);
    for (const p of made.moment.photos) expect(await isStored(p.key)).toBe(false);
  });

  it("every photo of a multi-photo moment is visible exactly when the moment is", async () => {
    const owner = await makeUser();
    const friend = await makeUser();
    const stranger = await makeUser();
    await befriend(friend.id, owner.id);
    const kid = await kidOf(owner.id);
    const made = await createMoment(owner.id, kid.id, input, await photos(3));
    if (!made.ok) throw new Error("setup");
    for (const p of made.moment.photos) {
      const image = await findImageByKey(p.key);
      expect(image).not.toBeNull();
      expect(await canViewImage(owner.id, image!)).toBe(true);
      expect(await canViewImage(friend.id, image!)).toBe(true);
      expect(await canViewImage(stranger.id, image!)).toBe(false);
    }
    // a moment for the parents only: the friend loses every photo of it
    await db()("daily_logs").where("id", made.moment.id).update({ audience: "us" });
    for (const p of made.moment.photos)
      expect(await canViewImage(friend.id, (await findImageByKey(p.key))!)).toBe(false);
  });

  it("deleting a moment or its kid removes every photo's rows and files", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const first = await createMoment(owner.id, kid.id, input, await photos(3));
    const second = await createMoment(owner.id, kid.id, input, await photos(2));
    if (!first.ok || !second.ok) throw new Error("setup");
    expect(await deleteMoment(owner.id, first.moment.id)).toMatchObject({ ok: true });
    for (const p of first.moment.photos) {
      expect(await isStored(p.key)).toBe(false);
      expect(await findImageByKey(p.key)).toBeNull();
    }
    expect(await db()("moment_photos").where("daily_log_id", first.moment.id).count({ n: "*" }).first()).toMatchObject({
      n: 0,
    });
    expect(await removeKid(owner.id, kid.id)).toEqual({ ok: true });
    for (const p of second.moment.photos) {
      expect(await isStored(p.key)).toBe(false);
      expect(await findImageByKey(p.key)).toBeNull();
    }
    expect(await viewMoment(owner.id, second.moment.id)).toMatchObject({ ok: false, kind: "not-found" });
  });
});
