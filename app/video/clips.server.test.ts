// A clip's life on the real database and photo store (this file runs on the local disk and again on
// S3, vitest.config.ts): judged and kept as it came, prepared in the background by the one process
// that holds the machine's lease, served only through the access-checked route in byte ranges, and
// gone with its moment. Clips are made by Debian's ffmpeg inside the test.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { claimLease, releaseLease } from "~/jobs/schedule.server";
import { db, nowIso, writeTransaction } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { isStored, listStored } from "~/images/test-fixtures.server";
import { canViewImage } from "~/models/access.server";
import { deleteMoment } from "~/models/moment-changes.server";
import type { User } from "~/models/users.server";
import { loader } from "~/routes/videos";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { insertFriendship } from "../../tests/unit/friends-fixtures";
import { insertVideoRow, storeClipSource, videoTools } from "./clips.server";
import { claimNextClip, machineLeaseName, prepareClip } from "./prepare.server";
import { runTool } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";
import { makeTestClips, type TestClips } from "./test-clips.server";
import { prepareWaitingClips } from "./worker.server";

// ffmpeg on a busy machine: a few seconds per clip
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-clips-"));
let clips: TestClips;
let owner: User, friend: User, stranger: User;
const cookies: Record<string, string> = {};
let kidId = 0;

beforeAll(async () => {
  const tools = videoTools();
  expect(tools, "ffmpeg and ffprobe on PATH (apt-get install ffmpeg)").not.toBeNull();
  clips = makeTestClips(tools!, path.join(work, "clips"));
  [owner, friend, stranger] = [await makeUser(), await makeUser(), await makeUser()];
  await insertFriendship(owner, friend, "accepted");
  for (const [name, user] of Object.entries({ owner, friend, stranger })) cookies[name] = await cookieFor(user);
  const at = nowIso();
  const [kid] = await db()("kids")
    .insert({ user_id: owner.id, name: "Clip", birth_date: "2020-01-02", relationship: "Mom", created_at: at })
    .returning("id");
  kidId = typeof kid === "object" ? kid.id : kid;
}, 180_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A moment with one clip from `file`, as the moment forms will post it; the clip's row. */
async function postClip(file: string, audience: "everyone" | "us" = "everyone") {
  const source = await storeClipSource(await uploadFromBuffer(fs.readFileSync(file), path.basename(file)));
  if (!source.ok) throw new Error(source.message);
  const at = nowIso();
  return writeTransaction(async (trx) => {
    const [moment] = await trx("daily_logs")
      .insert({
        kid_id: kidId,
        title: "A clip",
        content: "",
        created_at: at,
        updated_at: at,
        taken_on: at.slice(0, 10),
        audience,
        video_count: 1,
      })
      .returning("id");
    const momentId = typeof moment === "object" ? moment.id : moment;
    const videoId = await insertVideoRow(trx, { momentId, position: 0, description: "Ana laughing", source });
    return { momentId, videoId, sourceKey: source.sourceKey };
  });
}

const rowOf = (id: number) => db()("videos").where({ id }).first();

async function get(
  key: string,
  file: string,
  who: string | null,
  headers: Record<string, string> = {},
  method = "GET",
) {
  const request = req(`/videos/${key}/${file}`, { method, cookie: who ? cookies[who] : undefined, headers });
  return loader(args(request, { key, file }));
}

describe("posting a clip", () => {
  it("refuses what is not a video, keeping nothing", async () => {
    const before = await listStored();
    for (const file of [clips.textNamedMp4, clips.truncated]) {
      const result = await storeClipSource(await uploadFromBuffer(fs.readFileSync(file), "clip.mp4"));
      expect(result).toMatchObject({ ok: false, kind: "invalid", fieldErrors: { video: [VIDEO_MESSAGES.notAVideo] } });
    }
    expect(await listStored()).toEqual(before);
  });
});

describe("preparing in the background and serving", () => {
  let clip: { momentId: number; videoId: number; sourceKey: string };
  let key = "";

  beforeAll(async () => {
    clip = await postClip(clips.withPlace);
    key = (await rowOf(clip.videoId)).key;
  });

  it("is 'processing' and serves nothing until prepared", async () => {
    expect(await rowOf(clip.videoId)).toMatchObject({
      status: "processing",
      source_key: clip.sourceKey,
      width: 1280,
      height: 720,
    });
    expect(await isStored(clip.sourceKey, "source")).toBe(true);
    expect((await get(key, "small.mp4", "owner")).status).toBe(404);
  });

  it("waits while another process of this machine holds its lease (one ffmpeg per machine)", async () => {
    expect(await claimLease(machineLeaseName(), 60_000, "another-process")).toBe(true);
    try {
      expect(await prepareWaitingClips()).toEqual([]);
      expect((await rowOf(clip.videoId)).status).toBe("processing");
    } finally {
      await releaseLease(machineLeaseName(), "another-process");
    }
  });

  it("becomes ready: two renditions and a poster stored, the source (with its place) deleted", async () => {
    expect(await prepareWaitingClips()).toEqual(["ready"]);
    const row = await rowOf(clip.videoId);
    expect(row).toMatchObject({ status: "ready", source_key: null, claimed_until: null, width: 1280, height: 720 });
    expect(row.duration_ms).toBeGreaterThan(1500);
    expect(row.small_bytes).toBeGreaterThan(1000);
    expect(await isStored(key, "small.mp4")).toBe(true);
    expect(await isStored(key, "large.mp4")).toBe(true);
    expect(await isStored(clip.sourceKey)).toBe(false);
    const poster = await db()("images").where({ id: row.poster_image_id }).first();
    expect(poster).toMatchObject({ kind: "log", owner_id: owner.id });
    // the poster is a picture of the moment: whoever sees the moment sees it
    expect(await canViewImage(friend.id, { id: poster.id, kind: "moment", owner_id: owner.id })).toBe(true);
    expect(await canViewImage(stranger.id, { id: poster.id, kind: "moment", owner_id: owner.id })).toBe(false);
  });

  it("serves ranges to whoever may see the moment, and nothing to anyone else", async () => {
    const first = await get(key, "small.mp4", "friend", { Range: "bytes=0-99" });
    expect(first.status).toBe(206);
    expect(first.headers.get("Content-Range")).toMatch(/^bytes 0-99\/\d+$/);
    expect(first.headers.get("Accept-Ranges")).toBe("bytes");
    expect(first.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    const head = Buffer.from(await first.arrayBuffer());
    expect(head.length).toBe(100);
    expect(head.subarray(4, 8).toString()).toBe("ftyp");
    const total = Number(first.headers.get("Content-Range")!.split("/")[1]);
    const smallFile = Buffer.from(await (await get(key, "small.mp4", "owner")).arrayBuffer());
    expect(smallFile.length).toBe(total);
    const middle = await get(key, "small.mp4", "owner", { Range: "bytes=1000-1999" });
    expect([middle.status, middle.headers.get("Content-Range")]).toEqual([206, `bytes 1000-1999/${total}`]);
    expect(Buffer.from(await middle.arrayBuffer()).equals(smallFile.subarray(1000, 2000))).toBe(true);
    const tail = await get(key, "small.mp4", "owner", { Range: `bytes=${total - 10}-` });
    expect([tail.status, tail.headers.get("Content-Length")]).toEqual([206, "10"]);
    const whole = await get(key, "large.mp4", "owner");
    expect([whole.status, Number(whole.headers.get("Content-Length"))]).toEqual([
      200,
      (await rowOf(clip.videoId)).large_bytes,
    ]);
    const past = await get(key, "small.mp4", "owner", { Range: `bytes=${total}-` });
    expect([past.status, past.headers.get("Content-Range")]).toEqual([416, `bytes */${total}`]);
    // a range for another version of the file is answered with the whole file
    expect((await get(key, "small.mp4", "owner", { Range: "bytes=0-9", "If-Range": '"other"' })).status).toBe(200);
    for (const who of ["stranger", null]) {
      expect((await get(key, "small.mp4", who, { Range: "bytes=0-99" })).status).toBe(404);
    }
    expect((await get(key, "source", "owner")).status).toBe(404);
    // no captions written: the description as one caption, for those who cannot hear it
    const described = await get(key, "captions.vtt", "friend");
    expect(await described.text()).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n[Ana laughing]\n");
    expect((await get(key, "captions.vtt", "stranger")).status).toBe(404);
  });

  it("keeps the clip's files from the sweeper and lets them go with the moment", async () => {
    const { sweepUploads } = await import("~/images/storage.server");
    await sweepUploads(-1);
    expect(await isStored(key, "small.mp4")).toBe(true);
    const posterId = (await rowOf(clip.videoId)).poster_image_id;
    expect(await deleteMoment(owner.id, clip.momentId)).toMatchObject({ ok: true });
    expect(await isStored(key)).toBe(false);
    expect(await db()("images").where({ id: posterId }).first()).toBeUndefined();
  });
});

describe("what goes wrong", () => {
  it("a clip only for the parents ('Only us') is the parents' alone", async () => {
    const clip = await postClip(clips.turned, "us");
    expect(await prepareWaitingClips()).toEqual(["ready"]);
    const { key } = await rowOf(clip.videoId);
    expect((await get(key, "small.mp4", "friend")).status).toBe(404);
    expect((await get(key, "small.mp4", "owner")).status).toBe(200);
    expect(await rowOf(clip.videoId)).toMatchObject({ width: 360, height: 640 });
  });

  it("a damaged clip fails with the reason its parent is shown, and its source goes", async () => {
    const faststart = path.join(work, "faststart.mp4");
    await runTool(
      videoTools()!.ffmpeg,
      ["-v", "error", "-y", "-i", clips.withPlace, "-c", "copy", "-movflags", "+faststart", faststart],
      {
        timeoutMs: 30_000,
      },
    );
    const whole = fs.readFileSync(faststart);
    const cut = path.join(work, "cut.mp4");
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const clip = await postClip(cut);
    expect(await prepareWaitingClips()).toEqual(["failed"]);
    expect(await rowOf(clip.videoId)).toMatchObject({ status: "failed", source_key: null });
    expect((await rowOf(clip.videoId)).failure).toMatch(/damaged or incomplete/);
    // its poster, a frame of its first second, was made before the transcode found the damage
    const { poster_image_id: posterId } = await rowOf(clip.videoId);
    expect(await db()("images").where({ id: posterId }).first()).toMatchObject({ kind: "log", owner_id: owner.id });
    expect(await isStored(clip.sourceKey)).toBe(false);
  });

  it("a preparer that stalled past its claim leaves the clip to the one that took it over, files and all", async () => {
    const clip = await postClip(clips.withPlace);
    const key = (await rowOf(clip.videoId)).key;
    // the stalled preparer's ffmpeg: the real one, held before it writes a rendition until `go`
    const tools = videoTools()!;
    const go = path.join(work, "go");
    const held = path.join(work, "held-ffmpeg");
    fs.writeFileSync(
      held,
      `#!/bin/sh\nfor a in "$@"; do case "$a" in *.mp4) while [ ! -e '${go}' ]; do sleep 0.05; done;; esac; done\nexec '${tools.ffmpeg}' "$@"\n`,
      { mode: 0o755 },
    );
    const stalled = await claimNextClip(60_000);
    expect(stalled?.id).toBe(clip.videoId);
    const stalling = prepareClip(stalled!, { ...tools, ffmpeg: held });
    // its poster is stored before the transcode, which then waits
    await vi.waitFor(async () => expect((await rowOf(clip.videoId)).poster_image_id).not.toBeNull(), {
      timeout: 60_000,
      interval: 50,
    });
    // its claim runs out (as after a stall past the lease), and another preparer takes the clip over
    await db()("videos")
      .where({ id: clip.videoId })
      .update({ claimed_until: new Date(Date.now() - 1000).toISOString() });
    const takenOver = await claimNextClip(60_000);
    expect(takenOver?.id).toBe(clip.videoId);
    expect(await prepareClip(takenOver!, tools)).toBe("ready");
    fs.writeFileSync(go, "");
    expect(await stalling).toBe("gone");
    // the clip is ready with the new preparer's renditions: the stalled one removed none of them
    expect(await rowOf(clip.videoId)).toMatchObject({ status: "ready", attempts: 2 });
    expect(await isStored(key, "small.mp4")).toBe(true);
    expect(await isStored(key, "large.mp4")).toBe(true);
  });

  it("a clip whose process died is taken over once its claim expires", async () => {
    const clip = await postClip(clips.hevc);
    const first = await claimNextClip(-1); // a claim that has already ended: its process died
    expect(first?.id).toBe(clip.videoId);
    expect(await prepareWaitingClips()).toEqual(["ready"]);
    expect(await rowOf(clip.videoId)).toMatchObject({ status: "ready", attempts: 2 });
  });
});
