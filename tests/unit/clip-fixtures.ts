// A prepared clip on a moment, for the access tests (docs/decisions/0064-video-clips.md): its two
// renditions stored through the photo store, its poster a real stored photo, its captions, its row
// "ready", as the background preparer leaves them. The bytes stand for the renditions: what is
// tested is who may fetch them, not ffmpeg (app/video/*.test.ts prepare real clips).
import crypto from "node:crypto";
import { db, nowIso } from "../../app/lib/db.server";
import { photoStore } from "../../app/images/photo-store.server";
import { storePhoto } from "./friends-fixtures";

export type ReadyClip = { key: string; poster: { key: string; widths: number[] } };

export async function insertReadyClip(momentId: number, ownerId: number): Promise<ReadyClip> {
  const poster = await storePhoto("moment", ownerId, "#a73");
  const key = crypto.randomBytes(18).toString("base64url");
  const bytes = crypto.randomBytes(4096);
  await photoStore().putAll(key, [
    { name: "small.mp4", data: bytes },
    { name: "large.mp4", data: bytes },
  ]);
  const at = nowIso();
  await db()("videos").insert({
    daily_log_id: momentId,
    position: 0,
    description: "Running on the beach",
    status: "ready",
    key,
    width: 640,
    height: 360,
    duration_ms: 2000,
    small_bytes: bytes.length,
    large_bytes: bytes.length,
    poster_image_id: poster.imageId,
    captions: "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHi Grandma\n",
    created_at: at,
    updated_at: at,
  });
  await db()("daily_logs").where({ id: momentId }).update({ video_count: 1 });
  return { key, poster: { key: poster.key, widths: poster.widths } };
}
