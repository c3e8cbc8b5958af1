import { query } from "~/lib/query.server";
import type { VideoRow } from "~/lib/tables";
import { whereMomentExportedBy } from "./access.server";

// The clips of an export (docs/decisions/0064-video-clips.md): every prepared clip of the exported
// moments, as its larger rendition (the one with no metadata; the source is never kept), with its
// description and captions. A clip still being prepared or one that failed has no file to give.

export type ExportClip = {
  key: string;
  description: string;
  duration_ms: number | null;
  width: number | null;
  height: number | null;
  /** `videos/{taken_on} {kid} - {title}.mp4` */
  file: string;
  /** The captions (WebVTT) beside it, or null. */
  captions: { text: string; file: string } | null;
};

export type ClipRow = Pick<
  VideoRow,
  "daily_log_id" | "key" | "description" | "duration_ms" | "width" | "height" | "captions"
>;

/** Every prepared clip of the moments `id` exports, in each moment's order. */
export const clipsOf = query<{ id: number }, ClipRow>((p, k) =>
  whereMomentExportedBy(
    k("videos").join("daily_logs", "daily_logs.id", "videos.daily_log_id").join("kids", "kids.id", "daily_logs.kid_id"),
    p("id"),
  )
    .where("videos.status", "ready")
    .orderBy([{ column: "videos.daily_log_id" }, { column: "videos.position" }, { column: "videos.id" }])
    .select(
      "videos.daily_log_id",
      "videos.key",
      "videos.description",
      "videos.duration_ms",
      "videos.width",
      "videos.height",
      "videos.captions",
    ),
);

/** A moment's clips as the export names them, from `take(folder, base, ext)` (unique names). */
export function shapeClips(
  rows: ClipRow[],
  base: string,
  take: (folder: string, base: string, ext: string) => string,
): ExportClip[] {
  return rows.map((r) => {
    const file = take("videos/", base, ".mp4");
    return {
      key: r.key,
      description: r.description,
      duration_ms: r.duration_ms,
      width: r.width,
      height: r.height,
      file,
      captions: r.captions ? { text: r.captions, file: file.replace(/\.mp4$/, ".vtt") } : null,
    };
  });
}
