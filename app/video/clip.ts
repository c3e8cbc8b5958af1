// Shared (client and server): a moment's clip as loaders hand it to views
// (docs/decisions/0064-video-clips.md). Its files are served by app/routes/videos.ts.
import { href } from "react-router";
import type { Photo } from "~/images/photo";

export type Clip = {
  id: number;
  key: string;
  status: "processing" | "ready" | "failed";
  /** What a relative who cannot watch or hear it reads instead (its required description). */
  description: string;
  /** The size as shown, and the length; null until known. */
  width: number | null;
  height: number | null;
  durationMs: number | null;
  /** A frame of it, through the photo pipeline; null while it is being prepared. */
  poster: Photo | null;
  hasCaptions: boolean;
  /** Why it could not be prepared (shown to its parents only), or null. */
  failure: string | null;
};

/** What the moment forms say about clips on this server (ffmpeg there or not, the limits). */
export type ClipSettings = { enabled: boolean; maxMb: number; maxMinutes: number };

/** The URL of one rendition ("small" about 360p, "large" about 720p) or of the captions. */
export function clipUrl(clip: Pick<Clip, "key">, file: "small" | "large" | "captions"): string {
  return href("/videos/:key/:file", { key: clip.key, file: file === "captions" ? "captions.vtt" : `${file}.mp4` });
}

/** "1:05" for 65 seconds. */
export function clipLength(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * The clips the photo viewer steps through after a moment's photos (app/routes/moment-photo.tsx), in
 * the order they were posted: those ready or being prepared; a clip that failed is its parents'
 * note on the moment's page, not an item to view.
 */
export function viewerClips<C extends Pick<Clip, "status">>(clips: C[]): C[] {
  return clips.filter((c) => c.status !== "failed");
}
