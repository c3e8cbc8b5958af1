// Data the friends spec needs but cannot (yet) make through the UI: kids, moments and their photos,
// written straight into the e2e server's database and its photo store (tests/e2e/e2e-db.ts).
import crypto from "node:crypto";
import sharp from "sharp";
import { e2eDb, e2eStore } from "./e2e-db";

const idOf = (row: unknown) => Number(typeof row === "object" && row !== null ? (row as { id: unknown }).id : row);

export async function userIdByEmail(email: string): Promise<number> {
  const row = await e2eDb()("users").where({ email_normalized: email.toLowerCase() }).first("id");
  if (!row) throw new Error(`no user ${email}`);
  return Number(row.id);
}

/** A real photo: a WebP file <key>/320.webp in the photo store and its images row. */
async function insertPhoto(
  kind: "user" | "kid" | "log",
  ownerId: number,
  color: string,
): Promise<{ imageId: number; url: string }> {
  const key = crypto.randomBytes(18).toString("base64url");
  const bytes = await sharp({ create: { width: 320, height: 240, channels: 3, background: color } })
    .webp()
    .toBuffer();
  await e2eStore().putAll(key, [{ name: "320.webp", data: bytes }]);
  const [row] = await e2eDb()("images")
    .insert({
      key,
      kind,
      owner_id: ownerId,
      width: 320,
      height: 240,
      widths: "320",
      placeholder: "data:image/webp;base64,UklGRg==",
      created_at: new Date().toISOString(),
    })
    .returning("id");
  return { imageId: idOf(row), url: `/images/${key}/320.webp` };
}

/** A kid with a photo and one moment with a photo, owned by `ownerId`. */
export async function insertKidWithMoment(ownerId: number, name: string) {
  const kidPhoto = await insertPhoto("kid", ownerId, "#3a7");
  const logPhoto = await insertPhoto("log", ownerId, "#37a");
  const now = new Date().toISOString();
  const [kidRow] = await e2eDb()("kids")
    .insert({
      user_id: ownerId,
      name,
      birth_date: "2021-03-04",
      relationship: "Dad",
      image_id: kidPhoto.imageId,
      created_at: now,
    })
    .returning("id");
  const kidId = idOf(kidRow);
  const [logRow] = await e2eDb()("daily_logs")
    .insert({
      kid_id: kidId,
      title: "At the beach",
      content: "Sand everywhere.",
      image_id: logPhoto.imageId,
      created_at: now,
      updated_at: now,
    })
    .returning("id");
  return { kidId, logId: idOf(logRow), kidPhotoUrl: kidPhoto.url, logPhotoUrl: logPhoto.url };
}
