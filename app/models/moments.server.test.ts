import { describe, expect, it } from "vitest";
import { makeUser } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { isStored } from "~/images/test-fixtures.server";
import { createKid } from "./kids.server";
import { createMoment, deleteMoment, updateMoment } from "./moment-changes.server";
import { decodeCursor, encodeCursor } from "./moment-cursors.server";
import { listMoments, viewMoment } from "./moments.server";
import { befriend, insertLikeAndComment, insertMoments, jpegUpload } from "./kids-test-helpers.server";
import sharp from "sharp";
import { uploadFromBuffer } from "~/images/multipart.server";
import { today } from "~/lib/dates.server";

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
    expect(await createMoment(owner.id, 999999, { title: "t", content: "c" }, await jpegUpload())).toEqual(
      KID_NOT_FOUND,
    );
    expect(await createMoment(owner.id, kid.id, { title: "t", content: "c" }, null)).toMatchObject({
      ok: false,
      kind: "invalid",
    });

    const made = await createMoment(owner.id, kid.id, { title: "Park", content: "Pigeons" }, await jpegUpload());
    if (!made.ok) throw new Error("create failed");
    expect(made.moment).toMatchObject({
      kid_id: kid.id,
      title: "Park",
      content: "Pigeons",
      photo: { key: expect.any(String) },
    });
    expect(made.moment.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    expect(await viewMoment(owner.id, made.moment.id)).toMatchObject({
      ok: true,
      isOwner: true,
      kid: { id: kid.id, name: "Elsa" },
    });
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
      { kid_id: kid.id, title: "Tie A", content: "x", taken_on: "2024-01-01", created_at: same, updated_at: same },
      { kid_id: kid.id, title: "Tie B", content: "x", taken_on: "2024-01-01", created_at: same, updated_at: same },
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

  it("sorts by the moment's date first, then creation, and pages through equal dates", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id);
    const row = (title: string, taken_on: string, created_at: string) => ({
      kid_id: kid.id,
      title,
      content: "x",
      taken_on,
      created_at,
      updated_at: created_at,
    });
    await db()("daily_logs").insert([
      row("Back-dated, added last", "2023-05-01", "2024-03-01T10:00:00.000Z"),
      row("Newest date", "2024-02-01", "2024-02-01T10:00:00.000Z"),
      row("Same day 1", "2024-01-15", "2024-01-15T08:00:00.000Z"),
      row("Same day 2", "2024-01-15", "2024-01-15T09:00:00.000Z"),
      row("Same day 3", "2024-01-15", "2024-01-20T09:00:00.000Z"),
    ]);
    const seen: string[] = [];
    let before = null;
    for (;;) {
      const page = await listMoments(owner.id, kid.id, { limit: 2, before });
      if (!page.ok) throw new Error("refused");
      seen.push(...page.moments.map((m) => m.title));
      if (!page.next) break;
      before = decodeCursor(page.next);
    }
    expect(seen).toEqual(["Newest date", "Same day 3", "Same day 2", "Same day 1", "Back-dated, added last"]);
  });

  it("decodes only its own cursors", () => {
    const c = encodeCursor({ taken_on: "2024-06-01", created_at: "2024-06-06T18:04:05.000Z", id: 42 });
    expect(decodeCursor(c)).toEqual({ takenOn: "2024-06-01", createdAt: "2024-06-06T18:04:05.000Z", id: 42 });
    const old = Buffer.from("2024-06-06T18:04:05.000Z_42").toString("base64url");
    for (const bad of [
      "",
      "abc",
      "!!!",
      old,
      Buffer.from("2024-06-06_1").toString("base64url"),
      Buffer.from("2024-06-01_2024-06-06T18:04:05.000Z_0").toString("base64url"),
    ]) {
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
    expect(text).toMatchObject({
      ok: true,
      moment: { title: "New", content: "New text", created_at: made.moment.created_at, photo: { key: oldKey } },
    });

    const photo = await updateMoment(
      owner.id,
      made.moment.id,
      { title: "New", content: "New text" },
      await jpegUpload(90, 60),
    );
    if (!photo.ok) throw new Error("update failed");
    expect(photo.moment.photo!.key).not.toBe(oldKey);
    expect(photo.moment.created_at).toBe(made.moment.created_at);
    expect(await isStored(oldKey)).toBe(false);
    expect(await isStored(photo.moment.photo!.key)).toBe(true);
  });

  it("dates a new moment: the parent's date, else the photo's EXIF date, else today; refuses impossible dates", async () => {
    const owner = await makeUser();
    const kid = await kidOf(owner.id); // born 2020-01-01
    const exifPhoto = async (date: string) =>
      uploadFromBuffer(
        await sharp({ create: { width: 32, height: 24, channels: 3, background: "#3c3" } })
          .jpeg()
          .withExif({ IFD2: { DateTimeOriginal: date } })
          .toBuffer(),
        "phone.jpg",
        "image/jpeg",
      );
    const given = await createMoment(
      owner.id,
      kid.id,
      { title: "Given", content: "x", takenOn: "2021-05-06" },
      await exifPhoto("2022:01:02 10:00:00"),
    );
    expect(given).toMatchObject({ ok: true, moment: { taken_on: "2021-05-06", milestone: null } });
    const fromExif = await createMoment(
      owner.id,
      kid.id,
      { title: "Exif", content: "x", milestone: "First steps" },
      await exifPhoto("2022:01:02 10:00:00"),
    );
    expect(fromExif).toMatchObject({ ok: true, moment: { taken_on: "2022-01-02", milestone: "First steps" } });
    const plain = await createMoment(owner.id, kid.id, { title: "Today", content: "x" }, await jpegUpload());
    expect(plain).toMatchObject({ ok: true, moment: { taken_on: today() } });
    const tooOldExif = await createMoment(
      owner.id,
      kid.id,
      { title: "Old camera", content: "x" },
      await exifPhoto("2001:01:01 10:00:00"),
    );
    expect(tooOldExif).toMatchObject({ ok: true, moment: { taken_on: today() } });

    const future = await createMoment(
      owner.id,
      kid.id,
      { title: "F", content: "x", takenOn: "2999-01-01" },
      await jpegUpload(),
    );
    expect(future).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { taken_on: ["Date can not be in the future"] },
    });
    const early = await createMoment(
      owner.id,
      kid.id,
      { title: "E", content: "x", takenOn: "2018-12-31" },
      await jpegUpload(),
    );
    expect(early).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { taken_on: ["Date can not be more than 1 year before Elsa's birth date"] },
    });
    expect(
      await createMoment(owner.id, kid.id, { title: "E", content: "x", takenOn: "2019-01-01" }, await jpegUpload()),
    ).toMatchObject({ ok: true });

    // updating: absent date and milestone stay; given ones change; null clears the milestone
    if (!fromExif.ok) throw new Error("setup");
    const same = await updateMoment(owner.id, fromExif.moment.id, { title: "Exif", content: "y" }, null);
    expect(same).toMatchObject({ ok: true, moment: { taken_on: "2022-01-02", milestone: "First steps" } });
    const moved = await updateMoment(
      owner.id,
      fromExif.moment.id,
      { title: "Exif", content: "y", takenOn: "2021-12-31", milestone: null },
      null,
    );
    expect(moved).toMatchObject({ ok: true, moment: { taken_on: "2021-12-31", milestone: null } });
    expect(
      await updateMoment(owner.id, fromExif.moment.id, { title: "Exif", content: "y", takenOn: "2999-01-01" }, null),
    ).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { taken_on: ["Date cannot be in the future"] },
    });
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
