import { afterEach, describe, expect, it } from "vitest";
import sharp from "sharp";
import { makeUser } from "../../../tests/helpers";
import { resetEnvCache } from "../../../server/env.mjs";
import { db } from "~/lib/db.server";
import { today } from "~/lib/dates.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { findImageByKey } from "~/images/storage.server";
import { countImageRows, isStored, tempFiles } from "~/images/test-fixtures.server";
import { canViewImage } from "../access.server";
import { createKid, removeKid } from "../kids.server";
import { listFeed } from "../feed.server";
import { befriend } from "../kids-test-helpers.server";
import { addPhotosToDrafts, type DraftItem } from "./add.server";
import { discardDraft, dropPhoto, mergeDrafts, movePhoto, splitDraft, updateDraft } from "./edit.server";
import { sweepExpiredDrafts } from "./expiry.server";
import { publishAllDrafts, publishDraft } from "./publish.server";
import { getDraft, listDrafts, type Draft } from "./read.server";
import { lastRefused } from "./refusals.server";

// Draft moments (docs/decisions/0065-drafts.md): grouping by the day taken, ten per draft, the
// review's changes, publishing, expiry, and that a draft is its author's alone.

/** A small real JPEG as a temp file, with an EXIF date (and offset) when given. */
async function photo(name: string, taken?: { at: string; offset?: string }): Promise<DraftItem> {
  let img = sharp({ create: { width: 24, height: 16, channels: 3, background: "#3a6" } }).jpeg();
  if (taken) {
    const [date, time] = taken.at.split("T") as [string, string];
    img = img.withExif({
      IFD2: {
        DateTimeOriginal: `${date.replaceAll("-", ":")} ${time}`,
        ...(taken.offset ? { OffsetTimeOriginal: taken.offset } : {}),
      },
    });
  }
  const file = await uploadFromBuffer(await img.toBuffer(), name, "image/jpeg");
  return { name, path: file.path };
}

async function family() {
  const parent = await makeUser();
  const made = await createKid(parent.id, { name: "Ada", birth_date: "2020-01-01", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("kid");
  return { parent, kid: made.kid };
}

async function drafts(userId: number, kidId: number): Promise<Draft[]> {
  const r = await listDrafts(userId, kidId);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.drafts;
}

const ok = <T extends { ok: boolean }>(r: T): Extract<T, { ok: true }> => {
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r as Extract<T, { ok: true }>;
};

describe("adding photos to drafts", () => {
  const zone = process.env.TIME_ZONE;
  afterEach(() => {
    if (zone === undefined) delete process.env.TIME_ZONE;
    else process.env.TIME_ZONE = zone;
    resetEnvCache();
  });

  it("groups by the day taken (EXIF, the family's time zone, takenAt over EXIF, upload day), in the order taken, with refusals", async () => {
    process.env.TIME_ZONE = "Europe/Berlin";
    resetEnvCache();
    const { parent, kid } = await family();
    const items = [
      await photo("b.jpg", { at: "2024-06-02T10:00:00" }),
      await photo("a.jpg", { at: "2024-06-02T08:00:00" }),
      // 23:30 in London is 00:30 the next day in Berlin
      await photo("london.jpg", { at: "2024-06-02T23:30:00", offset: "+01:00" }),
      // no offset: the camera's clock is the day
      await photo("late.jpg", { at: "2024-06-03T23:59:00" }),
      // an import's own instant wins over EXIF: 22:30 UTC on 4 June is 5 June in Berlin
      {
        ...(await photo("takeout.jpg", { at: "2024-06-01T12:00:00" })),
        takenAt: new Date("2024-06-04T22:30:00Z"),
        text: "By the lake",
      },
      await photo("undated.jpg"),
      { name: "notes.txt", path: (await uploadFromBuffer(Buffer.from("not a photo"), "notes.txt")).path },
    ];
    const added = ok(await addPhotosToDrafts(parent.id, kid.id, items));
    expect(added.refused).toEqual([{ name: "notes.txt", reason: "Only image files are accepted." }]);
    const list = await drafts(parent.id, kid.id);
    const byDay = Object.fromEntries(list.map((d) => [d.takenOn, d.photos.map((p) => p.name)]));
    expect(byDay).toEqual({
      "2024-06-02": ["a.jpg", "b.jpg"],
      "2024-06-03": ["london.jpg", "late.jpg"],
      "2024-06-05": ["takeout.jpg"],
      [today()]: ["undated.jpg"],
    });
    const takeout = list.find((d) => d.takenOn === "2024-06-05")!;
    expect(takeout.title).toBe("5 June 2024");
    expect(takeout.content).toBe("By the lake");
    expect(added.drafts.map((d) => d.id).sort()).toEqual(list.map((d) => d.id).sort());
    // every temp file is gone
    expect(tempFiles()).toEqual([]);
    // the review page lists what the last add refused, to its author only, until the next add
    expect(await lastRefused(parent.id, kid.id)).toEqual([
      { name: "notes.txt", reason: "Only image files are accepted." },
    ]);
    const other = await makeUser();
    expect(await lastRefused(other.id, kid.id)).toEqual([]);
    ok(await addPhotosToDrafts(parent.id, kid.id, [await photo("one-more.jpg")]));
    expect(await lastRefused(parent.id, kid.id)).toEqual([]);
  });

  it("puts at most ten photos in a draft: the eleventh of a day starts another; later photos fill the room left", async () => {
    const { parent, kid } = await family();
    const items = [];
    for (let i = 0; i < 11; i++)
      items.push(await photo(`p${i}.jpg`, { at: `2024-07-01T10:${String(i).padStart(2, "0")}:00` }));
    ok(await addPhotosToDrafts(parent.id, kid.id, items));
    let list = await drafts(parent.id, kid.id);
    expect(list.map((d) => d.photos.length)).toEqual([10, 1]);
    expect(list[1]!.photos[0]!.name).toBe("p10.jpg");
    ok(await addPhotosToDrafts(parent.id, kid.id, [await photo("more.jpg", { at: "2024-07-01T18:00:00" })]));
    list = await drafts(parent.id, kid.id);
    expect(list.map((d) => d.photos.map((p) => p.name).length)).toEqual([10, 2]);
  });

  it("is the kid's parents' to do, and a draft and its photos are its author's alone", async () => {
    const { parent, kid } = await family();
    const friend = await makeUser();
    await befriend(parent.id, friend.id);
    const refused = await addPhotosToDrafts(friend.id, kid.id, [await photo("x.jpg")]);
    expect(refused.ok).toBe(false);
    expect(tempFiles()).toEqual([]);
    const added = ok(await addPhotosToDrafts(parent.id, kid.id, [await photo("x.jpg")]));
    const draft = added.drafts[0]!;
    const image = (await findImageByKey(draft.photos[0]!.key))!;
    expect(await canViewImage(parent.id, image)).toBe(true);
    expect(await canViewImage(friend.id, image)).toBe(false);
    expect((await getDraft(friend.id, draft.id)).ok).toBe(false);
    expect((await discardDraft(friend.id, draft.id)).ok).toBe(false);
    expect((await publishDraft(friend.id, draft.id)).ok).toBe(false);
    expect((await dropPhoto(friend.id, draft.photos[0]!.id)).ok).toBe(false);
    expect((await listDrafts(friend.id, kid.id)).ok).toBe(false);
    expect(ok(await getDraft(parent.id, draft.id)).draft.id).toBe(draft.id);

    // the kid's other parent adds drafts of their own, and sees neither the owner's nor their photos
    const coParent = await makeUser();
    await befriend(parent.id, coParent.id);
    await db()("co_parents").insert({
      kid_id: kid.id,
      user_id: coParent.id,
      status: "accepted",
      created_at: new Date().toISOString(),
    });
    const theirs = ok(await addPhotosToDrafts(coParent.id, kid.id, [await photo("co.jpg")])).drafts[0]!;
    expect((await drafts(coParent.id, kid.id)).map((d) => d.id)).toEqual([theirs.id]);
    expect((await drafts(parent.id, kid.id)).map((d) => d.id)).toEqual([draft.id]);
    expect((await getDraft(coParent.id, draft.id)).ok).toBe(false);
    expect(await canViewImage(coParent.id, image)).toBe(false);
    expect((await mergeDrafts(coParent.id, theirs.id, draft.id)).ok).toBe(false);
    expect((await movePhoto(coParent.id, theirs.photos[0]!.id, draft.id)).ok).toBe(false);
    expect((await movePhoto(parent.id, draft.photos[0]!.id, theirs.id)).ok).toBe(false);
  });
});

describe("reviewing drafts", () => {
  async function twoDays() {
    const { parent, kid } = await family();
    const items = [];
    for (let i = 0; i < 3; i++) items.push(await photo(`a${i}.jpg`, { at: `2024-08-01T10:0${i}:00` }));
    for (let i = 0; i < 2; i++) items.push(await photo(`b${i}.jpg`, { at: `2024-08-02T10:0${i}:00` }));
    ok(await addPhotosToDrafts(parent.id, kid.id, items));
    const [day2, day1] = await drafts(parent.id, kid.id);
    return { parent, kid, day1: day1!, day2: day2! };
  }
  const names = (d: Draft | undefined) => d?.photos.map((p) => p.name);

  it("moves a photo, splits a draft, merges two, drops a photo, discards a draft (its files go)", async () => {
    const { parent, kid, day1, day2 } = await twoDays();
    ok(await movePhoto(parent.id, day1.photos[2]!.id, day2.id));
    const [d2, d1] = await drafts(parent.id, kid.id);
    expect(names(d1)).toEqual(["a0.jpg", "a1.jpg"]);
    expect(names(d2)).toEqual(["b0.jpg", "b1.jpg", "a2.jpg"]);

    ok(await splitDraft(parent.id, day2.id, d2!.photos[1]!.id));
    let list = await drafts(parent.id, kid.id);
    expect(list.map(names)).toEqual([["b0.jpg"], ["b1.jpg", "a2.jpg"], ["a0.jpg", "a1.jpg"]]);
    const split = list[1]!;
    expect(split.takenOn).toBe("2024-08-02");

    ok(await mergeDrafts(parent.id, split.id, day1.id));
    list = await drafts(parent.id, kid.id);
    expect(list.map(names)).toEqual([["b0.jpg"], ["a0.jpg", "a1.jpg", "b1.jpg", "a2.jpg"]]);

    ok(await movePhoto(parent.id, list[0]!.photos[0]!.id, "new"));
    list = await drafts(parent.id, kid.id);
    expect(list.map(names)).toEqual([["b0.jpg"], ["a0.jpg", "a1.jpg", "b1.jpg", "a2.jpg"]]);
    expect(list[0]!.id).not.toBe(day2.id); // the emptied draft went

    const dropped = list[1]!.photos[0]!;
    ok(await dropPhoto(parent.id, dropped.id));
    expect(await isStored(dropped.key)).toBe(false);
    const before = await countImageRows();
    ok(await discardDraft(parent.id, list[0]!.id));
    expect(await countImageRows()).toBe(before - 1);
    expect(await isStored(list[0]!.photos[0]!.key)).toBe(false);
    list = await drafts(parent.id, kid.id);
    expect(list.map(names)).toEqual([["a1.jpg", "b1.jpg", "a2.jpg"]]);
  });

  it("refuses a merge past ten photos and a move into a full draft", async () => {
    const { parent, kid } = await family();
    const items = [];
    for (let i = 0; i < 12; i++)
      items.push(await photo(`p${i}.jpg`, { at: `2024-09-01T10:${String(i).padStart(2, "0")}:00` }));
    ok(await addPhotosToDrafts(parent.id, kid.id, items));
    const [full, rest] = await drafts(parent.id, kid.id);
    const merged = await mergeDrafts(parent.id, rest!.id, full!.id);
    expect(merged.ok ? null : merged.message).toMatch(/Together they would have 12 photos/);
    const moved = await movePhoto(parent.id, rest!.photos[0]!.id, full!.id);
    expect(moved.ok ? null : moved.message).toMatch(/10 photos already/);
  });

  it("publishes a draft as a dated moment its relatives see and are told of; unfinished drafts say what they need", async () => {
    const { parent, kid, day1, day2 } = await twoDays();
    const relative = await makeUser();
    await befriend(parent.id, relative.id);
    const unfinished = await publishDraft(parent.id, day1.id);
    expect(unfinished.ok).toBe(false);
    if (unfinished.ok) return;
    expect(Object.keys(unfinished.fieldErrors ?? {}).sort()).toEqual(
      ["content", ...day1.photos.map((p) => `photo_${p.id}_alt`)].sort(),
    );
    const saved = await updateDraft(parent.id, day1.id, {
      title: "Picnic",
      content: "Sun and sandwiches",
      takenOn: "2024-08-01",
      milestone: "First steps",
      audience: "everyone",
      alts: day1.photos.map((p, i) => ({ id: p.id, alt: `Ada eating ${i}` })),
    });
    expect(ok(saved).draft.photos.map((p) => p.alt)).toEqual(["Ada eating 0", "Ada eating 1", "Ada eating 2"]);
    const keys = day1.photos.map((p) => p.key);
    const all = ok(await publishAllDrafts(parent.id, kid.id));
    expect(all.published).toHaveLength(1);
    expect(all.unfinished.map((u) => u.draftId)).toEqual([day2.id]);
    const feed = await listFeed(relative.id, { limit: 20 });
    const moment = feed.moments.find((m) => m.id === all.published[0]);
    expect(moment?.taken_on).toBe("2024-08-01");
    expect(moment?.milestone).toBe("First steps");
    expect(moment?.photos.map((p) => p.alt)).toEqual(["Ada eating 0", "Ada eating 1", "Ada eating 2"]);
    expect(moment?.photo_count).toBe(3);
    // the same stored photos, now the moment's: the relative may see them
    for (const key of keys) expect(await canViewImage(relative.id, (await findImageByKey(key))!)).toBe(true);
    const told = await db()("notifications")
      .where({ user_id: relative.id, moment_id: all.published[0]! })
      .count({ n: "*" });
    expect(Number(told[0]!.n)).toBe(1);
    expect((await drafts(parent.id, kid.id)).map((d) => d.id)).toEqual([day2.id]);
  });
});

describe("the end of drafts", () => {
  it("sweeps drafts untouched for DRAFT_DAYS with their photos; a removed kid's drafts go with it", async () => {
    const { parent, kid } = await family();
    ok(
      await addPhotosToDrafts(parent.id, kid.id, [
        await photo("old.jpg"),
        await photo("new.jpg", { at: "2024-01-02T10:00:00" }),
      ]),
    );
    const [a, b] = await drafts(parent.id, kid.id);
    await db()("drafts").where("id", a!.id).update({ updated_at: "2020-01-01T00:00:00.000Z" });
    expect(await sweepExpiredDrafts()).toBeGreaterThanOrEqual(1);
    expect(await isStored(a!.photos[0]!.key)).toBe(false);
    expect(await findImageByKey(a!.photos[0]!.key)).toBeNull();
    expect((await drafts(parent.id, kid.id)).map((d) => d.id)).toEqual([b!.id]);
    ok(await removeKid(parent.id, kid.id));
    expect(await findImageByKey(b!.photos[0]!.key)).toBeNull();
    expect(await isStored(b!.photos[0]!.key)).toBe(false);
  });
});
