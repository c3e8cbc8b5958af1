import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Knex } from "knex";
import { config } from "~/lib/config.server";
import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { Clip, ClipSettings } from "./clip";

import type { VideoRow } from "~/lib/tables";
import { insertImageRow, newKey, deleteImageFiles, storeImage } from "~/images/storage.server";
import { photoStore } from "~/images/photo-store.server";
import { uploadedFile, uploadsTempDir, type UploadedFile } from "~/images/temp-uploads.server";
import type { Result } from "~/models/refusal";
import { locateVideoTools, type VideoTools } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";
import { probeVideo, videoRefusal, type ProbedVideo } from "./probe.server";
import { transcodeVideo } from "./transcode.server";

// A clip's life (docs/decisions/0064-video-clips.md). Upload: the file is judged by ffprobe, then
// kept as it came in the store under a source key, and the videos row (status "processing") commits
// with its moment. In the background, a server process claims it (a lease in the row, so several
// processes and machines share the work and a crash hands it over), one clip at a time per machine:
// the source is fetched to a work folder, transcoded, its poster goes through the photo pipeline, the
// renditions are stored under the clip's key, and one transaction makes it "ready". A clip that
// cannot be prepared is "failed" with the reason its owner is shown.

let tools: VideoTools | null | undefined;

/** ffmpeg and ffprobe, found once; null: this server takes no clips (the forms say so). */
export function videoTools(): VideoTools | null {
  if (tools === undefined) tools = locateVideoTools(config().ffmpegPath);
  return tools;
}

export type ClipSource = { sourceKey: string; probed: ProbedVideo };

/**
 * Judges an uploaded clip and keeps it in the store as it came (its place still in it: it never
 * leaves the server and is deleted once the clip is prepared). Consumes `file`.
 */
export async function storeClipSource(file: UploadedFile): Promise<Result<ClipSource>> {
  try {
    const found = videoTools();
    if (!found) return videoRefusal(VIDEO_MESSAGES.unavailable);
    const probed = await probeVideo(found, file.path, { maxSeconds: config().videoMaxSeconds });
    if (!probed.ok) return probed;
    const sourceKey = newKey();
    await photoStore().putAll(sourceKey, [{ name: "source", file: file.path }]);
    return { ok: true, sourceKey, probed: probed.video };
  } finally {
    await file.discard();
  }
}

/** The videos row of a clip just stored, inside the moment's transaction. */
export async function insertVideoRow(
  trx: Db,
  clip: { momentId: number; position: number; description: string; source: ClipSource },
): Promise<number> {
  const at = nowIso();
  return insertedId(
    await trx("videos")
      .insert({
        daily_log_id: clip.momentId,
        position: clip.position,
        description: clip.description,
        status: "processing",
        key: newKey(),
        source_key: clip.source.sourceKey,
        width: clip.source.probed.width,
        height: clip.source.probed.height,
        duration_ms: Math.round(clip.source.probed.durationSeconds * 1000),
        created_at: at,
        updated_at: at,
      })
      .returning("id"),
  );
}

// ---- preparing in the background ----------------------------------------------------------------

/** Attempts before a clip that keeps failing for the server's reasons (a crash) is given up. */
const MAX_ATTEMPTS = 3;

type Claimable = Pick<VideoRow, "id">;
const claimable = query<{ now: string }, Claimable>((p, k) =>
  k("videos")
    .where("videos.status", "processing")
    .andWhere((w) => w.whereNull("videos.claimed_until").orWhere("videos.claimed_until", "<=", p("now")))
    .orderBy("videos.id")
    .limit(5)
    .select("videos.id"),
);

export type ClaimedClip = Pick<VideoRow, "id" | "key" | "source_key" | "attempts" | "claimed_until"> & {
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
      "kids.user_id as kid_owner_id",
    ),
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

/**
 * Prepares one claimed clip. Never throws: a clip refused by ffmpeg fails with its reason; trouble
 * of the server's (storage, a crash of ffmpeg) leaves the claim to expire and be retried, up to
 * MAX_ATTEMPTS.
 */
export async function prepareClip(clip: ClaimedClip, found: VideoTools, signal?: AbortSignal): Promise<PrepareOutcome> {
  const work = path.join(uploadsTempDir(), `clip-${clip.id}-${crypto.randomBytes(6).toString("hex")}`);
  const storedKeys: string[] = [];
  try {
    if (!clip.source_key) {
      await failClip(clip, "This clip could not be prepared. Try it again, or another clip.");
      return "failed";
    }
    await fsp.mkdir(work, { recursive: true, mode: 0o700 });
    const source = path.join(work, "source");
    const opened = await photoStore().open(clip.source_key, "source");
    if (!opened) {
      await failClip(clip, "This clip could not be prepared. Try it again, or another clip.");
      return "failed";
    }
    await pipeline(opened.stream, fs.createWriteStream(source, { mode: 0o600 }));
    const probed = await probeVideo(found, source, { maxSeconds: config().videoMaxSeconds });
    if (!probed.ok) {
      await failClip(clip, probed.message ?? VIDEO_MESSAGES.notAVideo);
      return "failed";
    }
    const out = path.join(work, "out");
    const made = await transcodeVideo(found, source, probed.video, out, {
      threads: config().videoThreads,
      nice: 10,
      signal,
    });
    if (signal?.aborted) return await handBack(clip);
    if (!made.ok) {
      await failClip(clip, made.message ?? "This clip could not be prepared.");
      return "failed";
    }
    const poster = await storeImage(uploadedFile(made.posterFile, 1, "poster.png", "image/png"));
    if (!poster.ok) {
      await failClip(clip, "This clip's picture could not be read. Try another clip.");
      return "failed";
    }
    storedKeys.push(poster.image.key);
    await photoStore().putAll(
      clip.key,
      made.renditions.map((r) => ({ name: `${r.name}.mp4`, file: r.file })),
    );
    storedKeys.push(clip.key);
    const sizes = Object.fromEntries(made.renditions.map((r) => [r.name, r.bytes]));
    const done = await writeTransaction(async (trx) => {
      const still = await trx("videos").where({ id: clip.id, claimed_until: clip.claimed_until }).first("id");
      if (!still) return false; // deleted with its moment meanwhile, or taken over after a long stall
      const posterId = await insertImageRow(trx, poster.image, { kind: "moment", ownerId: clip.kid_owner_id });
      await trx("videos")
        .where({ id: clip.id })
        .update({
          status: "ready",
          width: probed.video.width,
          height: probed.video.height,
          duration_ms: Math.round(probed.video.durationSeconds * 1000),
          small_bytes: sizes.small ?? null,
          large_bytes: sizes.large ?? null,
          poster_image_id: posterId,
          source_key: null,
          claimed_until: null,
          updated_at: nowIso(),
        });
      return true;
    });
    if (!done) {
      await deleteImageFiles(storedKeys);
      return "gone";
    }
    await deleteImageFiles([clip.source_key]);
    return "ready";
  } catch (error) {
    await deleteImageFiles(storedKeys);
    if (signal?.aborted) return await handBack(clip);
    console.error(`[video] preparing clip #${clip.id} failed (attempt ${clip.attempts})`, error);
    if (clip.attempts >= MAX_ATTEMPTS) {
      await failClip(clip, "This clip could not be prepared. Try it again, or another clip.").catch(() => {});
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

// ---- going with their moments ----------------------------------------------------------------------

export type ClipLeftovers = { posterIds: number[]; keys: string[] };

/**
 * What the clips of these moments keep, for a transaction that deletes the moments (their rows go by
 * cascade): the posters' images rows, to drop, and the store keys of renditions and sources, to
 * remove once it has committed.
 */
export async function clipsOfMoments(trx: Db, momentIds: number[] | Knex.QueryBuilder): Promise<ClipLeftovers> {
  const rows: Pick<VideoRow, "poster_image_id" | "key" | "source_key">[] = await trx("videos")
    .whereIn("daily_log_id", momentIds)
    .select("poster_image_id", "key", "source_key");
  return {
    posterIds: rows.flatMap((r) => (r.poster_image_id === null ? [] : [r.poster_image_id])),
    keys: rows.flatMap((r) => (r.source_key ? [r.key, r.source_key] : [r.key])),
  };
}

// ---- reading, for the pages and the /api ----------------------------------------------------------

type ClipListRow = Pick<
  VideoRow,
  "id" | "daily_log_id" | "key" | "status" | "description" | "width" | "height" | "duration_ms" | "failure"
> & { has_captions: number } & PhotoColumns<"poster">;

const clipsOfMomentIds = query<{ ids: number[] }, ClipListRow>((p, k) =>
  inList(
    k("videos").leftJoin("images as posters", "posters.id", "videos.poster_image_id"),
    "videos.daily_log_id",
    p("ids"),
  )
    .orderBy([{ column: "videos.daily_log_id" }, { column: "videos.position" }, { column: "videos.id" }])
    .select(
      "videos.id",
      "videos.daily_log_id",
      "videos.key",
      "videos.status",
      "videos.description",
      "videos.width",
      "videos.height",
      "videos.duration_ms",
      "videos.failure",
      k.raw("case when videos.captions is null then 0 else 1 end as has_captions"),
      ...photoColumns("posters", "poster"),
    ),
);

/** The clips of these moments, in order, by moment: one query. */
export async function clipsByMoment(momentIds: number[], conn?: Db): Promise<Map<number, Clip[]>> {
  const byMoment = new Map<number, Clip[]>();
  if (!momentIds.length) return byMoment;
  for (const row of await clipsOfMomentIds.all({ ids: momentIds }, { conn })) {
    const list = byMoment.get(row.daily_log_id) ?? [];
    list.push({
      id: row.id,
      key: row.key,
      status: row.status,
      description: row.description,
      width: row.width,
      height: row.height,
      durationMs: row.duration_ms,
      poster: photoFromRow(row, "poster"),
      hasCaptions: row.has_captions === 1,
      failure: row.failure,
    });
    byMoment.set(row.daily_log_id, list);
  }
  return byMoment;
}

/** What the moment forms say about clips on this server. */
export function clipSettings(): ClipSettings {
  const cfg = config();
  return { enabled: videoTools() !== null, maxMb: cfg.videoMaxMb, maxMinutes: Math.round(cfg.videoMaxSeconds / 60) };
}
