import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer, type UploadedFile } from "~/images/temp-uploads.server";
import { listAllUploads } from "~/images/test-fixtures.server";
import { createKid, listKidsOf } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { listMoments, withAllPhotos } from "~/models/moments.server";
import { exportZip } from "~/models/export-zip.server";
import { makeUser } from "../../tests/helpers";
import { insertFriendship } from "../../tests/unit/friends-fixtures";
import { currentServer, freshServer, switchTo, type Server } from "../../tests/kit/servers";
import { discardImport, importArchive } from "./imports.server";
import { addComment } from "~/models/comments.server";
import { likeMoment } from "~/models/likes.server";

// "Move in" from another server (docs/decisions/0066-imports.md): an export made on server A is
// imported into a fresh account on server B (its own database and photo storage), and the parent
// sees there what they saw on A: kids, moments, dates, milestones, texts, audiences, photos with
// their alt texts and their pixels' dimensions. A second import creates nothing twice; an import
// that stopped half-way is resumed by the same archive.

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-import-"));
const servers: Server[] = [];
/** Server A: the one this file started on (tests/setup-db.ts). */
const home = currentServer();
afterAll(async () => {
  await switchTo(home);
  for (const s of servers) await s.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

async function photo(seed: number, width = 640, height = 480): Promise<UploadedFile> {
  const bytes = await sharp({
    create: { width, height, channels: 3, background: { r: 40 * seed, g: 90, b: 200 - 20 * seed } },
  })
    .jpeg()
    .toBuffer();
  return uploadFromBuffer(bytes, `p${seed}.jpg`, "image/jpeg");
}

/** What a parent sees of their kids and moments, without ids, keys or instants of this server. */
async function whatTheParentSees(userId: number) {
  const kids = await listKidsOf(userId);
  const out = [];
  for (const kid of kids) {
    const page = await listMoments(userId, kid.id);
    if (!page.ok) throw new Error(page.message);
    const moments = await withAllPhotos(page.moments);
    out.push({
      name: kid.name,
      birth_date: kid.birth_date,
      relationship: kid.relationship,
      photo: kid.photo ? [kid.photo.width, kid.photo.height] : null,
      moments: moments.map((m) => ({
        title: m.title,
        content: m.content,
        taken_on: m.taken_on,
        milestone: m.milestone,
        audience: m.audience,
        photos: m.photos.map((p) => ({ alt: p.alt, size: [p.original?.width, p.original?.height], widths: p.widths })),
      })),
    });
  }
  return out;
}

async function counts() {
  const n = async (table: string) => Number((await db()(table).count({ n: "*" }).first())?.n ?? 0);
  return {
    kids: await n("kids"),
    moments: await n("daily_logs"),
    photos: await n("moment_photos"),
    images: await n("images"),
    files: (await listAllUploads()).length,
  };
}

/** A copy of the ZIP as an uploaded file (the import consumes it). */
async function upload(zipPath: string): Promise<UploadedFile> {
  return uploadFromBuffer(fs.readFileSync(zipPath), "export.zip", "application/zip");
}

describe("importing an export of another server", () => {
  it("round-trips between two fresh servers; twice creates nothing twice; a half-done import resumes", async () => {
    // ---- server A: a family with two kids, moments with several photos, alt texts, milestones, a friend's like and comment
    const maria = await makeUser({ first_name: "Maria", last_name: "Lopez" });
    const gran = await makeUser({ first_name: "Gran" });
    await insertFriendship(maria, gran, "accepted");
    const elsa = await createKid(
      maria.id,
      { name: "Elsa", birth_date: "2022-03-04", relationship: "Mom" },
      await photo(1, 500, 500),
    );
    const tom = await createKid(maria.id, { name: "Tom", birth_date: "2024-01-02", relationship: "Dad" }, null);
    if (!elsa.ok || !tom.ok) throw new Error("kids");
    const add = async (kidId: number, title: string, takenOn: string, photos: [number, string][], extra = {}) => {
      const files = await Promise.all(photos.map(([seed]) => photo(seed, 600 + seed * 10, 400)));
      const made = await createMoment(
        maria.id,
        kidId,
        { title, content: `${title}, in words.`, takenOn, ...extra },
        { added: files.map((file, i) => ({ file, alt: photos[i]![1], slot: i + 1 })) },
      );
      if (!made.ok) throw new Error(made.message);
      return made.moment.id;
    };
    const steps = await add(elsa.kid.id, "First steps", "2023-05-01", [[2, "Elsa standing"]], {
      milestone: "First steps",
      audience: "everyone",
    });
    await add(
      elsa.kid.id,
      "Beach day",
      "2024-07-14",
      [
        [3, "Elsa in the sand"],
        [4, "A sandcastle"],
        [5, "The sea"],
      ],
      { audience: "family" },
    );
    await add(tom.kid.id, "Hello Tom", "2024-01-02", [[6, "Tom asleep"]], { audience: "us", milestone: "Born" });
    expect((await likeMoment(gran.id, steps)).ok).toBe(true);
    expect((await addComment(gran.id, steps, "So proud!")).ok).toBe(true);
    const seenOnA = await whatTheParentSees(maria.id);

    const exported = await exportZip(maria.id);
    if (!exported) throw new Error("no export");
    const zipPath = path.join(work, "export.zip");
    await pipeline(exported.stream, fs.createWriteStream(zipPath));

    // ---- server B: fresh, a new account
    const b = await freshServer();
    servers.push(b);
    await switchTo(b);
    const newMaria = await makeUser({ first_name: "Maria" });
    const before = await counts();
    expect(before).toEqual({ kids: 0, moments: 0, photos: 0, images: 0, files: 0 });

    // an import that stopped half-way: the same export with only Elsa's first moment in it
    const partial = await halfOf(zipPath);
    const first = await importArchive(newMaria.id, await upload(partial));
    if (!first.ok) throw new Error(first.message);
    expect(first.summary).toMatchObject({ kind: "export", kids: 2, moments: 1, photos: 1 });

    const done = await importArchive(newMaria.id, await upload(zipPath));
    if (!done.ok) throw new Error(done.message);
    expect(done.importId).toBe(first.importId);
    expect(done.summary).toMatchObject({
      kind: "export",
      kids: 0,
      moments: 2,
      photos: 4,
      alreadyThere: 3,
      othersLikes: 1,
      othersComments: 1,
      skipped: [],
    });
    expect(await whatTheParentSees(newMaria.id)).toEqual(seenOnA);
    // other people's likes and comments are not brought as them
    expect(Number((await db()("likes").count({ n: "*" }).first())?.n)).toBe(0);
    expect(Number((await db()("comments").count({ n: "*" }).first())?.n)).toBe(0);

    // ---- the same ZIP again: nothing twice, no file left behind
    const after = await counts();
    expect(after).toMatchObject({ kids: 2, moments: 3, photos: 5 });
    const again = await importArchive(newMaria.id, await upload(zipPath));
    if (!again.ok) throw new Error(again.message);
    expect(again.summary).toMatchObject({ kids: 0, moments: 0, photos: 0, alreadyThere: 5 });
    expect(await counts()).toEqual(after);
    expect((await listAllUploads()).filter((f) => f.startsWith(".tmp/"))).toEqual([]);

    // ---- discarded: what it brought goes, photo files too; what the parent added stays
    const own = await createKid(newMaria.id, { name: "Own", birth_date: "2020-01-01", relationship: "Mom" }, null);
    expect(own.ok).toBe(true);
    const stranger = await makeUser();
    expect(await discardImport(stranger.id, done.importId)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await discardImport(newMaria.id, done.importId)).toEqual({ ok: true, kids: 2, moments: 0 });
    expect((await listKidsOf(newMaria.id)).map((k) => k.name)).toEqual(["Own"]);
    expect(await counts()).toEqual({ kids: 1, moments: 0, photos: 0, images: 0, files: 0 });
    await switchTo(home);
  });
});

/**
 * An export of one moment ("Beach run") with a ready clip and its captions: random bytes, or with
 * `real` an H.264 MP4 made by ffmpeg; `vtt` replaces the captions file.
 */
async function clipExport(name: string, { real = false, vtt }: { real?: boolean; vtt?: string } = {}): Promise<string> {
  const { insertReadyClip } = await import("../../tests/unit/clip-fixtures");
  const from = await makeUser();
  const kid = await createKid(from.id, { name: "Zoe", birth_date: "2021-06-07", relationship: "Dad" }, null);
  if (!kid.ok) throw new Error("kid");
  const made = await createMoment(
    from.id,
    kid.kid.id,
    { title: "Beach run", content: "Running.", takenOn: "2024-08-01" },
    await photo(7),
  );
  if (!made.ok) throw new Error(made.message);
  const clip = await insertReadyClip(made.moment.id, from.id);
  if (real) {
    const { makeTestClips } = await import("~/video/test-clips.server");
    const { videoTools } = await import("~/video/clips.server");
    const { photoStore } = await import("~/images/photo-store.server");
    const bytes = fs.readFileSync(makeTestClips(videoTools()!, path.join(work, `clips-${name}`)).withPlace);
    await photoStore().deleteAll(clip.key);
    await photoStore().putAll(clip.key, [
      { name: "small.mp4", data: bytes },
      { name: "large.mp4", data: bytes },
    ]);
  }
  const exported = await exportZip(from.id);
  if (!exported) throw new Error("no export");
  const zipPath = path.join(work, `${name}.zip`);
  await pipeline(exported.stream, fs.createWriteStream(zipPath));
  if (vtt === undefined) return zipPath;
  const { unzip } = await import("../../tests/unit/support/unzip");
  const { zipBytes } = await import("../../tests/kit/zip");
  const entries = await unzip(fs.readFileSync(zipPath));
  const changed = await zipBytes((zip) => {
    for (const [entry, bytes] of entries) zip.addBuffer(entry.endsWith(".vtt") ? Buffer.from(vtt) : bytes, entry);
  });
  fs.writeFileSync(zipPath, changed);
  return zipPath;
}

describe("importing an export with a clip", () => {
  it("says what became of the clip (not a video here: random bytes) and imports the moment with its photo", async () => {
    const zipPath = await clipExport("clip");

    const to = await makeUser();
    const done = await importArchive(to.id, await upload(zipPath));
    if (!done.ok) throw new Error(done.message);
    expect(done.summary).toMatchObject({ kids: 1, moments: 1, photos: 1, clips: 0 });
    expect(done.summary.skipped).toEqual([
      expect.stringMatching(/^"Beach run" \(2024-08-01\): its (clip was|clips were) not imported/),
    ]);
    const seen = await whatTheParentSees(to.id);
    expect(seen[0]?.moments.map((m) => [m.title, m.photos.length])).toEqual([["Beach run", 1]]);
  });
});

describe("importing an export with a real clip and its captions", () => {
  const importedClips = async (userId: number) =>
    db()("videos")
      .join("daily_logs", "daily_logs.id", "videos.daily_log_id")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where("kids.user_id", userId)
      .select("videos.description", "videos.captions", "videos.status");

  it("brings the clip with its description and its captions", async () => {
    const zipPath = await clipExport("captions", { real: true });
    const to = await makeUser();
    const done = await importArchive(to.id, await upload(zipPath));
    if (!done.ok) throw new Error(done.message);
    expect(done.summary).toMatchObject({ kids: 1, moments: 1, photos: 1, clips: 1 });
    expect(done.summary.skipped).toEqual([]);
    const { captionLines } = await import("~/video/captions");
    const clips = await importedClips(to.id);
    expect(clips.map((c) => [c.description, captionLines(c.captions), c.status])).toEqual([
      ["Running on the beach", "0:00 Hi Grandma", "processing"],
    ]);
  });

  it("captions it cannot read are left out and said; the clip comes all the same", async () => {
    const zipPath = await clipExport("bad-captions", { real: true, vtt: "WEBVTT\n\nnot a caption at all\n" });
    const to = await makeUser();
    const done = await importArchive(to.id, await upload(zipPath));
    if (!done.ok) throw new Error(done.message);
    expect(done.summary).toMatchObject({ moments: 1, clips: 1 });
    expect(done.summary.skipped).toEqual([
      `"Beach run" (2024-08-01): a clip's captions were left out (no captions this app can read).`,
    ]);
    expect((await importedClips(to.id)).map((c) => c.captions)).toEqual([null]);
  });
});

/** The export with only the first kid's oldest moment (and the other kid, with none): as if the import had stopped there. */
async function halfOf(zipPath: string): Promise<string> {
  const { unzip } = await import("../../tests/unit/support/unzip");
  const { ZipFile } = await import("yazl");
  const entries = await unzip(fs.readFileSync(zipPath));
  const zip = new ZipFile();
  for (const [name, bytes] of entries) {
    if (name.endsWith("/data.json")) {
      const data = JSON.parse(bytes.toString("utf8"));
      data.kids[0].moments = data.kids[0].moments.slice(-1);
      data.kids[1].moments = [];
      zip.addBuffer(Buffer.from(JSON.stringify(data)), name);
    } else zip.addBuffer(bytes, name);
  }
  zip.end();
  const out = path.join(work, "half.zip");
  await pipeline(zip.outputStream, fs.createWriteStream(out));
  return out;
}
