// Test support only (imported by *.test.ts of the kids and moments work, never by the app).
import sharp from "sharp";
import { db, nowIso } from "~/lib/db.server";
import { uploadFromBuffer, type UploadedFile } from "~/images/multipart.server";

export async function jpeg(width = 64, height = 48, background = "#c33"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer();
}

/** A real JPEG as an uploaded temp file, as the multipart parser would hand it over. */
export async function jpegUpload(width = 64, height = 48): Promise<UploadedFile> {
  return uploadFromBuffer(await jpeg(width, height), "photo.jpg", "image/jpeg");
}

// the one friendship helper of the tests under app/
export { befriend } from "./social-test-fixtures.server";

/** Inserts `count` moments for a kid directly (no photos), created one second apart. */
export async function insertMoments(
  kidId: number,
  count: number,
  start = Date.parse("2024-01-01T00:00:00.000Z"),
): Promise<number[]> {
  const owner = await db()("kids").where("id", kidId).first("user_id");
  const rows = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 1000).toISOString();
    return {
      kid_id: kidId,
      title: `Moment ${i + 1}`,
      content: `Content ${i + 1}`,
      taken_on: at.slice(0, 10),
      posted_by: owner?.user_id ?? null,
      created_at: at,
      updated_at: at,
    };
  });
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await db()("daily_logs")
      .insert(rows.slice(i, i + 200))
      .returning("id");
    ids.push(...inserted.map((r: { id: number } | number) => (typeof r === "object" ? r.id : r)));
  }
  return ids;
}

export async function insertLikeAndComment(momentId: number, userId: number): Promise<void> {
  const now = nowIso();
  await db()("likes").insert({ daily_log_id: momentId, user_id: userId, created_at: now });
  await db()("comments").insert({
    daily_log_id: momentId,
    user_id: userId,
    comment: "So sweet",
    created_at: now,
    updated_at: now,
  });
}
