import { nowIso, type Db } from "~/lib/db.server";
import { captionLines, type Cue, parseCaptionLines, webVtt } from "~/video/captions";
import { isOneLine } from "~/lib/one-line";
import { query } from "~/lib/query.server";
import type { VideoRow } from "~/lib/tables";
import { VIDEO_FIELD } from "~/images/limits";
import type { UploadedFile } from "~/images/multipart.server";
import { deleteImageFiles } from "~/images/storage.server";
import { type ClipSource, insertVideoRow, storeClipSource } from "~/video/clips.server";
import { MAX_MOMENT_ITEMS, MAX_VIDEO_DESCRIPTION, VIDEO_MESSAGES } from "~/video/limits";
import { wakeClipPreparer } from "~/video/worker.server";
import { invalid, invalidField, type Result } from "./refusal";

// A moment's clips (docs/decisions/0064-video-clips.md): what an add or update does to them. A new
// clip is judged and kept before the change's transaction (as photos are processed before theirs),
// its row is written inside it, and the background preparer is woken once it has committed.

/**
 * A clip sent with a form or /api call: its file, its description as sent, its slot (the n-th
 * `video` part); `cues`: captions it comes with (an import brings them from the export).
 */
export type NewMomentClip = { file: UploadedFile; description: string; slot: number; cues?: Cue[] };

/** The field a clip's file error is shown on: `video`, then `video_<n>`. */
export function clipField(slot: number): string {
  return slot === 1 ? VIDEO_FIELD : `${VIDEO_FIELD}_${slot}`;
}

/** The field of a new clip's description: `video_description`, then `video_description_<n>`. */
export function clipDescriptionField(slot: number): string {
  return slot === 1 ? "video_description" : `video_description_${slot}`;
}

/**
 * The clips' descriptions (required: what a relative who cannot watch or hear it reads instead),
 * and the moment's items after the change: photos and clips together at most MAX_MOMENT_ITEMS.
 */
export function checkClips(clips: NewMomentClip[], itemsAfter: number): Result {
  if (itemsAfter > MAX_MOMENT_ITEMS) return invalidField(VIDEO_FIELD, VIDEO_MESSAGES.tooManyItems);
  const errors: Record<string, string[]> = {};
  for (const clip of clips) {
    const text = clip.description.trim();
    const field = clipDescriptionField(clip.slot);
    if (!text || !isOneLine(text)) errors[field] = [VIDEO_MESSAGES.descriptionRequired];
    else if (Array.from(text).length > MAX_VIDEO_DESCRIPTION) errors[field] = [VIDEO_MESSAGES.descriptionTooLong];
  }
  return Object.keys(errors).length ? invalid(Object.values(errors)[0]?.[0], errors) : { ok: true };
}

export type StoredClip = { source: ClipSource; description: string; slot: number; cues?: Cue[] };

/**
 * Judges and keeps each clip, one after another; consumes every file. On a refusal (on the clip's
 * field) the ones kept before it are removed again and the rest are discarded unread.
 */
export async function storeClips(clips: NewMomentClip[]): Promise<Result<{ stored: StoredClip[] }>> {
  const stored: StoredClip[] = [];
  try {
    for (const clip of clips) {
      const kept = await storeClipSource(clip.file);
      if (!kept.ok) {
        await discardStoredClips(stored);
        const messages = Object.values(kept.fieldErrors ?? {}).flat();
        return invalid(kept.message, { [clipField(clip.slot)]: messages.length ? messages : [kept.message ?? ""] });
      }
      stored.push({ source: kept, description: clip.description.trim(), slot: clip.slot, cues: clip.cues });
    }
  } catch (error) {
    await discardStoredClips(stored);
    throw error;
  } finally {
    await Promise.all(clips.map((c) => c.file.discard()));
  }
  return { ok: true, stored };
}

/** Removes the sources of clips whose transaction did not commit. */
export async function discardStoredClips(stored: StoredClip[]): Promise<void> {
  await deleteImageFiles(stored.map((s) => s.source.sourceKey));
}

/**
 * Inside the change's transaction: removes the clips named in `remove` (their posters and files go
 * through `drop` and `dropKeys`, after the commit), adds the new ones after the moment's others and
 * counts them in `daily_logs.video_count`.
 */
export async function writeClips(
  trx: Db,
  momentId: number,
  stored: StoredClip[],
  tools: { remove?: number[]; drop(ids: number[]): Promise<void>; dropKeys(keys: string[]): void },
): Promise<void> {
  const remove = tools.remove ?? [];
  if (remove.length) {
    const rows = trx("videos").where("daily_log_id", momentId).whereIn("id", remove);
    const leftovers: Pick<VideoRow, "poster_image_id" | "key" | "source_key">[] = await rows
      .clone()
      .select("poster_image_id", "key", "source_key");
    await rows.delete();
    await tools.drop(leftovers.flatMap((r) => (r.poster_image_id === null ? [] : [r.poster_image_id])));
    tools.dropKeys(leftovers.flatMap((r) => (r.source_key ? [r.key, r.source_key] : [r.key])));
  }
  const positions: VideoRow["position"][] = await trx("videos").where("daily_log_id", momentId).pluck("position");
  let position = Math.max(-1, ...positions) + 1;
  for (const clip of stored) {
    await insertVideoRow(trx, {
      momentId,
      position: position++,
      description: clip.description,
      source: clip.source,
      cues: clip.cues,
    });
  }
  await trx("daily_logs")
    .where("id", momentId)
    .update({ video_count: trx("videos").where("daily_log_id", momentId).count("*") });
}

const clipIds = query<{ momentId: number }, Pick<VideoRow, "id">>((p, k) =>
  k("videos").where("videos.daily_log_id", p("momentId")).orderBy("videos.position").select("videos.id"),
);

/** The ids of a moment's clips, in order. */
export async function clipIdsOf(momentId: number): Promise<number[]> {
  return (await clipIds.all({ momentId })).map((r) => r.id);
}

/** The field of a clip's captions on the update form. */
export function captionsField(id: number): string {
  return `clip_${id}_captions`;
}

export type CaptionsChange = { id: number; cues: Cue[] };

/** The captions sent for the moment's own clips, parsed; a line that is wrong is refused on its field. */
export function checkCaptions(
  sent: { id: number; text: string }[],
  clipIds: number[],
): Result<{ changes: CaptionsChange[] }> {
  const changes: CaptionsChange[] = [];
  const errors: Record<string, string[]> = {};
  for (const { id, text } of sent) {
    if (!clipIds.includes(id)) continue; // another moment's clip: nothing to change here
    const parsed = parseCaptionLines(text);
    if (parsed.ok) changes.push({ id, cues: parsed.cues });
    else errors[captionsField(id)] = [parsed.message];
  }
  return Object.keys(errors).length ? invalid(Object.values(errors)[0]?.[0], errors) : { ok: true, changes };
}

/** Writes the clips' new captions (WebVTT, or none), inside the change's transaction. */
export async function writeCaptions(trx: Db, momentId: number, changes: CaptionsChange[]): Promise<void> {
  for (const { id, cues } of changes) {
    const clip: Pick<VideoRow, "duration_ms"> | undefined = await trx("videos")
      .where({ id, daily_log_id: momentId })
      .first("duration_ms");
    if (!clip) continue;
    await trx("videos")
      .where({ id, daily_log_id: momentId })
      .update({ captions: webVtt(cues, clip.duration_ms), updated_at: nowIso() });
  }
}

const captionsOfMoment = query<{ momentId: number }, Pick<VideoRow, "id" | "captions">>((p, k) =>
  k("videos").where("videos.daily_log_id", p("momentId")).select("videos.id", "videos.captions"),
);

/** Each clip's captions as the parent's lines, for the update form. */
export async function captionLinesOf(momentId: number): Promise<Record<number, string>> {
  const rows = await captionsOfMoment.all({ momentId });
  return Object.fromEntries(rows.map((r) => [r.id, captionLines(r.captions)]));
}

/** After a commit that added clips: the preparer of this process looks at once. */
export function clipsAdded(stored: StoredClip[]): void {
  if (stored.length) wakeClipPreparer();
}
