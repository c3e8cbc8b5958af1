import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { config } from "~/lib/config.server";
import { nowIso, writeTransaction } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { VideoRow } from "~/lib/tables";
import { deleteImageFiles, insertImageRow, storeImage } from "~/images/storage.server";
import { photoStore } from "~/images/photo-store.server";
import { uploadedFile, uploadsTempDir } from "~/images/temp-uploads.server";
import type { VideoTools } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";
import { probeVideo, type ProbedVideo } from "./probe.server";
import { makePoster, transcodeVideo } from "./transcode.server";

// Preparing a clip in the background (docs/decisions/0064-video-clips.md): claimed through a lease
// in its row (several processes and machines share the work; a crash hands it over), its source
// fetched from the store to a work folder, its poster made first (a frame of the upload through the
// photo pipeline, committed at once so the clip "being prepared" shows it), then the long transcode,
// the renditions stored under the clip's key, and one transaction that makes it "ready".

/** Attempts before a clip that keeps failing for the server's reasons (a crash) is given up. */
const MAX_ATTEMPTS = 3;

const COULD_NOT = "This clip could not be prepared. Try it again, or another clip.";

type Claimable = Pick<VideoRow, "id">;
const claimable = query<{ now: string }, Claimable>((p, k) =>
  k("videos")
    .where("videos.status", "processing")
    .andWhere((w) => w.whereNull("videos.claimed_until").orWhere("videos.claimed_until", "<=", p("now")))
    .orderBy("videos.id")
    .limit(5)
    .select("videos.id"),
);

export type ClaimedClip = Pick<
  VideoRow,
  "id" | "key" | "source_key" | "attempts" | "claimed_until" | "poster_image_id"
> & {
  kid_owner_id: number;
};
const claimedClip = query<{ id: number; until: string }, ClaimedClip>((p, k) =>
  k("videos")
    .join("daily_logs", "daily_logs.id", "videos.daily_log_id")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("videos.id", p("id"))
    .andWhere("videos.claimed_until", p("until"))
    .first(
      "videos.id",
      "videos.key",
      "videos.source_key",
      "videos.attempts",
      "videos.claimed_until",
      "videos.poster_image_id",
      "kids.user_id as kid_owner_id",
    ),
);

const claimHeld = query<{ id: number; until: string }, Pick<VideoRow, "id">>((p, k) =>
  k("videos").where("videos.id", p("id")).andWhere("videos.claimed_until", p("until")).first("videos.id"),
);

/** Whether any clip waits to be prepared (a read: the idle poll writes nothing). */
export async function clipsWaiting(now = new Date()): Promise<boolean> {
  return (await claimable.all({ now: now.toISOString() })).length > 0;
}

/** Claims the next clip to prepare for `leaseMs`, or null when there is none (or others were first). */
export async function claimNextClip(leaseMs: number, now = new Date()): Promise<ClaimedClip | null> {
  const at = now.toISOString();
  for (const { id } of await claimable.all({ now: at })) {
    // a claim is the lease's end, made unique to this claim by its milliseconds and a random offset
    const until = new Date(now.getTime() + leaseMs - crypto.randomInt(1000)).toISOString();
    const claim = await writeTransaction(async (trx) => {
      const changed = await trx("videos")
        .where("id", id)
        .andWhere("status", "processing")
        .andWhere((w) => w.whereNull("claimed_until").orWhere("claimed_until", "<=", at))
        .update({ claimed_until: until, attempts: trx.raw("?? + 1", ["attempts"]) });
      return changed === 1 ? claimedClip.first({ id, until }, { conn: trx }) : undefined;
    });
    if (claim) return claim;
  }
  return null;
}

/** Marks a claimed clip failed with `reason` (what its owner reads) and lets its source go. */
async function failClip(clip: ClaimedClip, reason: string): Promise<void> {
  const changed = await writeTransaction((trx) =>
    trx("videos")
      .where({ id: clip.id, claimed_until: clip.claimed_until })
      .update({
        status: "failed",
        failure: reason.slice(0, 250),
        source_key: null,
        claimed_until: null,
        updated_at: nowIso(),
      }),
  );
  if (changed === 1 && clip.source_key) await deleteImageFiles([clip.source_key]);
}

/** The server is stopping: the clip's claim is let go so another process takes it at once. */
async function handBack(clip: ClaimedClip): Promise<PrepareOutcome> {
  await writeTransaction((trx) =>
    trx("videos")
      .where({ id: clip.id, claimed_until: clip.claimed_until })
      .update({ claimed_until: null, attempts: trx.raw("?? - 1", ["attempts"]) }),
  ).catch(() => {});
  return "retry";
}

export type PrepareOutcome = "ready" | "failed" | "gone" | "retry";

/** Thrown inside prepareClip: the clip's row went (its moment deleted) or its claim was taken over. */
class ClipGone extends Error {}

/**
 * Whether this claim still holds the clip: after a stall past the lease another preparer may have
 * taken the clip over and be writing the same renditions under the clip's key.
 */
async function stillClaimed(clip: ClaimedClip): Promise<boolean> {
  return clip.claimed_until !== null && Boolean(await claimHeld.first({ id: clip.id, until: clip.claimed_until }));
}

/**
 * The poster, before the transcode: a frame of the upload through the photo pipeline (WebP sizes and
 * placeholder), its images row committed with the clip still "processing". A clip taken over after
 * a crash keeps the poster it has.
 */
async function storePoster(clip: ClaimedClip, found: VideoTools, source: string, probed: ProbedVideo, work: string) {
  if (clip.poster_image_id !== null) return;
  const options = { threads: config().videoThreads, nice: 10 };
  const frame = await makePoster(found, source, probed, path.join(work, "poster.png"), options);
  if (!frame.ok) return frame;
  const poster = await storeImage(uploadedFile(frame.file, 1, "poster.png", "image/png"));
  if (!poster.ok) return { ok: false as const, message: "This clip's picture could not be read. Try another clip." };
  const stored = await writeTransaction(async (trx) => {
    const still = await trx("videos").where({ id: clip.id, claimed_until: clip.claimed_until }).first("id");
    if (!still) return false;
    const posterId = await insertImageRow(trx, poster.image, { kind: "moment", ownerId: clip.kid_owner_id });
    await trx("videos").where({ id: clip.id }).update({ poster_image_id: posterId, updated_at: nowIso() });
    return true;
  }).catch(async (error) => {
    await deleteImageFiles([poster.image.key]);
    throw error;
  });
  if (!stored) {
    await deleteImageFiles([poster.image.key]);
    throw new ClipGone();
  }
  return undefined;
}

/**
 * Prepares one claimed clip. Never throws: a clip refused by ffmpeg fails with its reason; trouble
 * of the server's (storage, a crash of ffmpeg) leaves the claim to expire and be retried, up to
 * MAX_ATTEMPTS.
 */
export async function prepareClip(clip: ClaimedClip, found: VideoTools, signal?: AbortSignal): Promise<PrepareOutcome> {
  const work = path.join(uploadsTempDir(), `clip-${clip.id}-${crypto.randomBytes(6).toString("hex")}`);
  let stored = false;
  try {
    const opened = clip.source_key ? await photoStore().open(clip.source_key, "source") : null;
    if (!clip.source_key || !opened) {
      await failClip(clip, COULD_NOT);
      return "failed";
    }
    await fsp.mkdir(work, { recursive: true, mode: 0o700 });
    const source = path.join(work, "source");
    await pipeline(opened.stream, fs.createWriteStream(source, { mode: 0o600 }));
    const probed = await probeVideo(found, source, { maxSeconds: config().videoMaxSeconds });
    if (!probed.ok) {
      await failClip(clip, probed.message ?? VIDEO_MESSAGES.notAVideo);
      return "failed";
    }
    const posterRefused = await storePoster(clip, found, source, probed.video, work);
    if (signal?.aborted) return await handBack(clip);
    if (posterRefused) {
      await failClip(clip, posterRefused.message ?? COULD_NOT);
      return "failed";
    }
    const made = await transcodeVideo(found, source, probed.video, path.join(work, "out"), {
      threads: config().videoThreads,
      nice: 10,
      signal,
    });
    if (signal?.aborted) return await handBack(clip);
    if (!made.ok) {
      await failClip(clip, made.message ?? COULD_NOT);
      return "failed";
    }
    // the transcode is the long part: a claim taken over meanwhile writes nothing under the key
    if (!(await stillClaimed(clip))) throw new ClipGone();
    await photoStore().putAll(
      clip.key,
      made.renditions.map((r) => ({ name: `${r.name}.mp4`, file: r.file })),
    );
    stored = true;
    const sizes = Object.fromEntries(made.renditions.map((r) => [r.name, r.bytes]));
    const done = await writeTransaction(async (trx) => {
      const changed = await trx("videos")
        .where({ id: clip.id, claimed_until: clip.claimed_until })
        .update({
          status: "ready",
          width: probed.video.width,
          height: probed.video.height,
          duration_ms: Math.round(probed.video.durationSeconds * 1000),
          small_bytes: sizes.small ?? null,
          large_bytes: sizes.large ?? null,
          source_key: null,
          claimed_until: null,
          updated_at: nowIso(),
        });
      if (changed === 1) return "ready";
      // deleted with its moment meanwhile (its files are ours to remove), or taken over after a
      // stall in the upload (the files under its key are now the new preparer's too: left to it)
      return (await trx("videos").where({ id: clip.id }).first("id")) ? "taken" : "deleted";
    });
    if (done === "taken") stored = false;
    if (done !== "ready") throw new ClipGone();
    await deleteImageFiles([clip.source_key]);
    return "ready";
  } catch (error) {
    if (stored) await deleteImageFiles([clip.key]);
    if (error instanceof ClipGone) return "gone";
    if (signal?.aborted) return await handBack(clip);
    console.error(`[video] preparing clip #${clip.id} failed (attempt ${clip.attempts})`, error);
    if (clip.attempts >= MAX_ATTEMPTS) {
      await failClip(clip, COULD_NOT).catch(() => {});
      return "failed";
    }
    return "retry";
  } finally {
    await fsp.rm(work, { recursive: true, force: true }).catch(() => {});
  }
}

/** One clip at a time per machine: a lease named for the host, over every process on it. */
export function machineLeaseName(): string {
  return `video-transcode:${os.hostname()}`;
}
