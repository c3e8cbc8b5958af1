import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { photoStore, type PhotoStore } from "~/images/photo-store.server";
import { withNewImage } from "~/images/storage.server";
import { readStored } from "~/images/test-fixtures.server";
import { makeUser } from "../../tests/helpers";
import { collect, unzip } from "../../tests/unit/support/unzip";
import {
  insertCoParent,
  insertComment,
  insertFriendship,
  insertKid,
  insertLike,
  insertMoment,
  storePhoto,
} from "../../tests/unit/friends-fixtures";
import { insertReadyClip } from "../../tests/unit/clip-fixtures";
import { exportZip } from "./export-zip.server";
import { safeName } from "./export.server";

// docs/spec.md §2 "Your data": the export's ZIP.

async function noisyPhoto(kind: "kid" | "moment", ownerId: number, seed: number) {
  const bytes = await sharp({
    create: {
      width: 900,
      height: 700,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 100 + seed, sigma: 60 },
    },
  })
    .jpeg({ quality: 95 })
    .toBuffer();
  const result = await withNewImage(await uploadFromBuffer(bytes), { kind, ownerId }, async () => {});
  if (!result.ok) throw new Error(result.message);
  return { ...result.image, imageId: result.imageId };
}

describe("the export ZIP", () => {
  it("holds the moments' photos at full size (older ones and kids' photos at their largest size) with readable names, data.json and the offline album; nothing of other families", async () => {
    const me = await makeUser({ first_name: "Maria", last_name: "Lopez" });
    const friend = await makeUser({ first_name: "Fred", last_name: "Friend" });
    await insertFriendship(me, friend, "accepted");
    const picture = await storePhoto("user", me.id, "#123");
    await db()("users").where("id", me.id).update({ image_id: picture.imageId });
    const kidPhoto = await storePhoto("kid", me.id, "#456");
    const elsa = await insertKid(me, "Elsa", kidPhoto.imageId);
    const p1 = await storePhoto("moment", me.id, "#789");
    const p2 = await storePhoto("moment", me.id, "#9ab");
    const p3 = await storePhoto("moment", me.id, "#bcd");
    const first = await insertMoment(elsa, "First steps", p1.imageId);
    const again = await insertMoment(elsa, "First steps", p2.imageId);
    const odd = await insertMoment(elsa, 'A/B: "what?" <b>', p3.imageId);
    await insertMoment(elsa, "No photo today");
    // a moment's date is the parent's (taken_on), not the day it was posted: names, order and ages follow it
    await db()("daily_logs")
      .where("id", first)
      .update({ taken_on: "2024-06-06", created_at: "2024-08-02T10:00:00.000Z", milestone: "First steps" });
    await db()("daily_logs")
      .where("id", again)
      .update({ taken_on: "2024-06-06", created_at: "2024-08-01T10:00:00.000Z" });
    await db()("daily_logs")
      .where("id", odd)
      .update({ taken_on: "2024-07-01", created_at: "2024-06-01T10:00:00.000Z" });
    // a moment with three photos, each with its alt text
    const beachPhotos = [
      await storePhoto("moment", me.id, "#a11"),
      await storePhoto("moment", me.id, "#a22"),
      await storePhoto("moment", me.id, "#a33"),
    ];
    const beach = await insertMoment(elsa, "Beach day", beachPhotos[0]!.imageId);
    await db()("daily_logs").where("id", beach).update({ taken_on: "2024-06-20", photo_count: 3 });
    await db()("moment_photos").insert(
      beachPhotos.map((p, position) => ({
        daily_log_id: beach,
        image_id: p.imageId,
        position,
        alt: `Sand ${position + 1}`,
      })),
    );
    await insertLike(first, friend);
    await insertComment(first, friend, "So proud of her <3");
    // the friend's family: visible to me, but theirs to export
    const theirPhoto = await storePhoto("moment", friend.id, "#def");
    await insertMoment(await insertKid(friend, "Anna"), "Their day", theirPhoto.imageId);
    // a kid I co-parent: the moment I posted is mine to export, the owner's is theirs
    const otto = await makeUser({ first_name: "Otto", last_name: "Owner" });
    const bea = await insertKid(otto, "Bea");
    await insertCoParent(bea, me, "accepted");
    const mySwim = await storePhoto("moment", otto.id, "#c01");
    const swim = await insertMoment(bea, "Swim", mySwim.imageId);
    await db()("daily_logs").where("id", swim).update({ taken_on: "2024-05-05", posted_by: me.id });
    const ottosPhoto = await storePhoto("moment", otto.id, "#c02");
    await insertMoment(bea, "Otto's own", ottosPhoto.imageId);

    // a photo stored before full-size copies were kept: its largest size instead, and the album says so
    await db()("images").where("id", p3.imageId).update({ original_width: null, original_height: null });

    const zip = await exportZip(me.id);
    expect(zip).not.toBeNull();
    const folder = zip!.fileName.replace(/\.zip$/, "");
    expect(folder).toMatch(new RegExp(`^sweet-moments-${me.username}-\\d{4}-\\d{2}-\\d{2}$`));
    const files = await unzip(await collect(zip!.stream));
    const names = [...files.keys()].map((n) => n.slice(folder.length + 1)).sort();
    expect(names).toEqual([
      "data.json",
      "index.html",
      "kids/bea.html",
      "kids/elsa.html",
      "photos/2024-05-05 Bea - Swim.jpg",
      "photos/2024-06-06 Elsa - First steps (2).jpg",
      "photos/2024-06-06 Elsa - First steps.jpg",
      "photos/2024-06-20 Elsa - Beach day (2).jpg",
      "photos/2024-06-20 Elsa - Beach day (3).jpg",
      "photos/2024-06-20 Elsa - Beach day.jpg",
      "photos/2024-07-01 Elsa - A B what b.webp",
      "photos/Elsa.webp",
      "profile-picture.webp",
    ]);
    expect(zip!.entries).toBe(names.length);
    const file = (name: string) => files.get(`${folder}/${name}`)!;
    const largest = (p: { key: string; widths: number[] }) => readStored(p.key, `${p.widths.at(-1)}.webp`);
    const original = (p: { key: string }) => readStored(p.key, "original.jpg");
    expect(file("profile-picture.webp").equals(await largest(picture))).toBe(true);
    expect(file("photos/Elsa.webp").equals(await largest(kidPhoto))).toBe(true);
    expect(file("photos/2024-07-01 Elsa - A B what b.webp").equals(await largest(p3))).toBe(true);
    // the newer post of the two namesakes comes first (same date: then by creation), so it keeps the plain name
    expect(file("photos/2024-06-06 Elsa - First steps.jpg").equals(await original(p1))).toBe(true);
    expect(file("photos/2024-06-06 Elsa - First steps (2).jpg").equals(await original(p2))).toBe(true);
    expect(file("photos/2024-06-20 Elsa - Beach day.jpg").equals(await original(beachPhotos[0]!))).toBe(true);
    expect(file("photos/2024-06-20 Elsa - Beach day (2).jpg").equals(await original(beachPhotos[1]!))).toBe(true);
    expect(file("photos/2024-06-20 Elsa - Beach day (3).jpg").equals(await original(beachPhotos[2]!))).toBe(true);
    expect(file("photos/2024-05-05 Bea - Swim.jpg").equals(await original(mySwim))).toBe(true);
    for (const other of [theirPhoto, ottosPhoto]) {
      for (const bytes of [await largest(other), await original(other)])
        expect([...files.values()].some((b) => bytes.equals(b))).toBe(false);
    }
    // full size: the upright photo's every pixel, as JPEG with no metadata
    const full = await sharp(file("photos/2024-06-06 Elsa - First steps.jpg")).metadata();
    expect([full.format, full.width, full.height, full.exif, full.icc]).toEqual([
      "jpeg",
      400,
      300,
      undefined,
      undefined,
    ]);
    // the album's first page says what the photos are
    const front = file("index.html").toString("utf8");
    expect(front).toContain("6 moment photos at full size (JPEG, location and camera details removed).");
    expect(front).toContain("1 moment photo added before full-size copies were kept: at the largest size stored");

    const data = JSON.parse(file("data.json").toString("utf8"));
    expect(data.account).toMatchObject({
      id: me.id,
      username: me.username,
      email: me.email,
      first_name: "Maria",
      profile_picture: "profile-picture.webp",
    });
    expect(data.friends).toEqual([{ name: "Fred Friend", username: friend.username }]);
    expect(data.kids.map((k: { name: string; role: string }) => [k.name, k.role])).toEqual([
      ["Elsa", "owner"],
      ["Bea", "co-parent"],
    ]);
    expect(data.kids[0]).toMatchObject({
      name: "Elsa",
      birth_date: "2020-05-06",
      relationship: "Mom",
      photo: "photos/Elsa.webp",
    });
    const moments = data.kids[0].moments;
    // newest first by the moment's own date, then by creation (as the kid's page)
    expect(moments.map((m: { title: string; taken_on: string }) => [m.taken_on, m.title])).toEqual([
      [expect.any(String), "No photo today"],
      ["2024-07-01", 'A/B: "what?" <b>'],
      ["2024-06-20", "Beach day"],
      ["2024-06-06", "First steps"],
      ["2024-06-06", "First steps"],
    ]);
    const withComment = moments.find((m: { id: number }) => m.id === first);
    expect(withComment).toMatchObject({
      taken_on: "2024-06-06",
      created_at: "2024-08-02T10:00:00.000Z",
      milestone: "First steps",
      audience: "everyone",
      posted_by: "Maria Lopez",
      photos: [{ file: "photos/2024-06-06 Elsa - First steps.jpg", alt: "First steps", full_size: true }],
    });
    expect(withComment.likes).toEqual([{ by: "Fred Friend", created_at: expect.any(String) }]);
    expect(withComment.comments).toEqual([
      {
        by: "Fred Friend",
        comment: "So proud of her <3",
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(moments.find((m: { id: number }) => m.id === again).milestone).toBeNull();
    expect(moments.find((m: { id: number }) => m.id === beach).photos).toEqual([
      { file: "photos/2024-06-20 Elsa - Beach day.jpg", alt: "Sand 1", full_size: true },
      { file: "photos/2024-06-20 Elsa - Beach day (2).jpg", alt: "Sand 2", full_size: true },
      { file: "photos/2024-06-20 Elsa - Beach day (3).jpg", alt: "Sand 3", full_size: true },
    ]);
    expect(data.kids[1].moments.map((m: { title: string; posted_by: string }) => [m.title, m.posted_by])).toEqual([
      ["Swim", "Maria Lopez"],
    ]);
    expect(JSON.stringify(data)).not.toContain("Anna");
    expect(JSON.stringify(data)).not.toContain("Otto's own");

    const index = file("index.html").toString("utf8");
    expect(index).toContain('href="kids/elsa.html"');
    expect(index).not.toMatch(/<script|src="\/|href="\//);
    const page = file("kids/elsa.html").toString("utf8");
    expect(page).toContain("So proud of her &lt;3");
    expect(page).toContain('src="../photos/2024-06-06%20Elsa%20-%20First%20steps.jpg"');
    expect(page).toContain("A/B: &quot;what?&quot; &lt;b&gt;");
    expect(page).toMatch(/6 June 2024 · Elsa was 4 years, 1 month, 0 days/); // the age on the moment's date, not on the day it was posted
    expect(page).toContain("Milestone: First steps");
    expect(page).toContain('alt="Sand 2"');
    expect(page.indexOf("A/B")).toBeLessThan(page.indexOf("Beach day")); // newest first by the moment's date
    expect(page.indexOf("Beach day")).toBeLessThan(page.indexOf("First steps"));
    expect(page).not.toMatch(/<script/);
    const beaPage = file("kids/bea.html").toString("utf8");
    expect(beaPage).toContain("Swim");
    expect(beaPage).not.toContain("Otto");
  });

  it("holds each prepared clip's larger rendition and its captions, played by the offline album and listed in data.json", async () => {
    const me = await makeUser();
    const kid = await insertKid(me, "Ivo");
    const moment = await insertMoment(kid, "First steps");
    await db()("daily_logs").where({ id: moment }).update({ taken_on: "2024-08-08" });
    const clip = await insertReadyClip(moment, me.id);
    // one still being prepared has no file to give
    await db()("videos").insert({
      daily_log_id: moment,
      position: 1,
      description: "Later",
      status: "processing",
      key: "processingclipkey0123456789",
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    const zip = await exportZip(me.id);
    const folder = zip!.fileName.replace(/\.zip$/, "");
    const files = await unzip(await collect(zip!.stream));
    const file = (name: string) => files.get(`${folder}/${name}`);
    expect([...files.keys()].map((n) => n.slice(folder.length + 1)).filter((n) => n.startsWith("videos/"))).toEqual([
      "videos/2024-08-08 Ivo - First steps.mp4",
      "videos/2024-08-08 Ivo - First steps.vtt",
    ]);
    expect(file("videos/2024-08-08 Ivo - First steps.mp4")!.equals(await readStored(clip.key, "large.mp4"))).toBe(true);
    expect(file("videos/2024-08-08 Ivo - First steps.vtt")!.toString()).toContain("Hi Grandma");
    const data = JSON.parse(file("data.json")!.toString());
    expect(data.kids[0].moments[0].clips).toEqual([
      {
        file: "videos/2024-08-08 Ivo - First steps.mp4",
        description: "Running on the beach",
        duration: 2,
        captions: "videos/2024-08-08 Ivo - First steps.vtt",
      },
    ]);
    const album = [...files.entries()].find(([n]) => n.endsWith("kids/ivo.html"))![1].toString();
    expect(album).toContain('<video controls preload="none" src="../videos/2024-08-08%20Ivo%20-%20First%20steps.mp4"');
    expect(album).toContain("Video: Running on the beach");
  });

  it("safeName keeps names readable and safe", () => {
    expect(safeName("2024-06-06 Elsa - First steps")).toBe("2024-06-06 Elsa - First steps");
    expect(safeName("../../etc/passwd")).toBe("etc passwd");
    expect(safeName("a\u0000b\nc")).toBe("a b c");
    expect(safeName("...")).toBe("untitled");
    expect(safeName("x".repeat(300)).length).toBe(80);
  });

  it("streams: each photo is read only after the ones before it have left, one at a time", async () => {
    const me = await makeUser();
    const kid = await insertKid(me, "Streamy");
    const sizes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const photo = await noisyPhoto("moment", me.id, i);
      await insertMoment(kid, `Moment ${i}`, photo.imageId);
      sizes.push((await photoStore().stat(photo.key, `${photo.widths.at(-1)}.webp`))!.size);
    }
    expect(Math.min(...sizes)).toBeGreaterThan(100_000);

    // the real store, watched: how many bytes had reached the reader when each photo was opened,
    // and how many photos were open at once
    const real = photoStore();
    let received = 0;
    let open = 0;
    let maxOpen = 0;
    const receivedAtOpen: number[] = [];
    const watched: PhotoStore = Object.assign(Object.create(real) as PhotoStore, {
      open: async (key: string, name: string) => {
        receivedAtOpen.push(received);
        const opened = await real.open(key, name);
        if (opened) {
          open++;
          maxOpen = Math.max(maxOpen, open);
          opened.stream.once("close", () => open--);
        }
        return opened;
      },
    });
    const zip = (await exportZip(me.id, watched))!;
    for await (const chunk of zip.stream) received += (chunk as Buffer).length;

    expect(receivedAtOpen).toHaveLength(6);
    expect(maxOpen).toBe(1);
    // before photo i is opened, the photos before it (all but a few buffered kilobytes) have reached the reader
    const slack = 256 * 1024;
    let before = 0;
    for (let i = 0; i < 6; i++) {
      expect(receivedAtOpen[i]!).toBeGreaterThanOrEqual(before - slack);
      before += sizes[i]!;
    }
    expect(receivedAtOpen[5]!).toBeGreaterThan(sizes.slice(0, 5).reduce((a, b) => a + b) / 2);
    expect(received).toBeGreaterThan(before);
  });
});
