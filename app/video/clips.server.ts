import type { Knex } from "knex";
import { config } from "~/lib/config.server";
import { insertedId, nowIso, type Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { Clip, ClipSettings } from "./clip";

import type { VideoRow } from "~/lib/tables";
import { newKey } from "~/images/storage.server";
import { photoStore } from "~/images/photo-store.server";
import type { UploadedFile } from "~/images/temp-uploads.server";
import type { Result } from "~/models/refusal";
import { locateVideoTools, type VideoTools } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";
import { type Cue, webVtt } from "./captions";
import { probeVideo, videoRefusal, type ProbedVideo } from "./probe.server";

// A clip's life (docs/decisions/0064-video-clips.md). Upload: the file is judged by ffprobe, then
// kept as it came in the store under a source key, and the videos row (status "processing") commits
// with its moment. In the background, a server process claims it (a lease in the row, so several
// processes and machines share the work and a crash hands it over), one clip at a time per machine
// (app/video/prepare.server.ts): its poster first, then the renditions, and one transaction makes it
// "ready". A clip that cannot be prepared is "failed" with the reason its owner is shown.

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
  clip: { momentId: number; position: number; description: string; source: ClipSource; cues?: Cue[] },
): Promise<number> {
  const at = nowIso();
  const durationMs = Math.round(clip.source.probed.durationSeconds * 1000);
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
        duration_ms: durationMs,
        captions: clip.cues ? webVtt(clip.cues, durationMs) : null,
        created_at: at,
        updated_at: at,
      })
      .returning("id"),
  );
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
