// Test data for the friends tests and the access matrix: rows written with knex directly
// (the kids/moments modules belong to other areas), plus real stored photos.
import sharp from "sharp";
import { db, nowIso, type Db } from "../../app/lib/db.server";
import { uploadFromBuffer } from "../../app/images/multipart.server";
import { withNewImage, type ImageKind, type StoredImage } from "../../app/images/storage.server";
import { insertFriendship as insertFriendshipRow, type FriendshipStatus } from "../../app/models/friendships.server";

type Id = { id: number };

/**
 * The friendship every test writes: `sender` asked `receiver`, now in `status`; its id. Written by
 * the friendship module's own insert (the pair is the database's to order), on `conn` (a test's
 * open transaction) or the shared connection. The test helpers under app/models, which may not
 * import from tests/, call that insert directly.
 */
export async function insertFriendship(
  sender: Id,
  receiver: Id,
  status: FriendshipStatus,
  conn: Db = db(),
): Promise<number> {
  return (await insertFriendshipRow(conn, sender.id, receiver.id, status)).id;
}

/**
 * A real photo stored through the image module; returns the stored image (its derivative `widths`
 * included) and its row id. 400×300 by default (derivatives 160, 320 and 400); `size` for more.
 */
export async function storePhoto(
  kind: ImageKind,
  ownerId: number,
  color = "#c33",
  size = { width: 400, height: 300 },
): Promise<StoredImage & { imageId: number }> {
  const bytes = await sharp({ create: { ...size, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
  const result = await withNewImage(await uploadFromBuffer(bytes), { kind, ownerId }, async () => {});
  if (!result.ok) throw new Error(result.message);
  return { ...result.image, imageId: result.imageId };
}

export async function insertKid(owner: Id, name = "Kiddo", imageId: number | null = null): Promise<number> {
  const [row] = await db()("kids")
    .insert({
      user_id: owner.id,
      name,
      birth_date: "2020-05-06",
      relationship: "Mom",
      image_id: imageId,
      created_at: nowIso(),
    })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

export async function insertMoment(
  kidId: number,
  title = "First steps",
  imageId: number | null = null,
): Promise<number> {
  const now = nowIso();
  const [row] = await db()("daily_logs")
    .insert({
      kid_id: kidId,
      title,
      content: "So proud.",
      image_id: imageId,
      taken_on: now.slice(0, 10),
      posted_by: db()("kids").select("user_id").where("id", kidId),
      created_at: now,
      updated_at: now,
    })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

export async function insertLike(logId: number, user: Id): Promise<number> {
  const [row] = await db()("likes")
    .insert({ daily_log_id: logId, user_id: user.id, created_at: nowIso() })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

export async function insertComment(logId: number, user: Id, comment = "Lovely!"): Promise<number> {
  const now = nowIso();
  const [row] = await db()("comments")
    .insert({ daily_log_id: logId, user_id: user.id, comment, created_at: now, updated_at: now })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

let quick = 0;
/** A user row written directly (no password hashing): for tests that need many bystanders fast. */
export async function quickUser(): Promise<{ id: number }> {
  quick += 1;
  const tag = `${quick}${Math.random().toString(36).slice(2, 8)}`;
  const [row] = await db()("users")
    .insert({
      username: `quick${tag}`,
      username_normalized: `quick${tag}`,
      email: `quick${tag}@example.com`,
      email_normalized: `quick${tag}@example.com`,
      first_name: "Quick",
      last_name: `User${tag}`,
      password_hash: "x",
      created_at: nowIso(),
    })
    .returning("id");
  return { id: Number(typeof row === "object" ? row.id : row) };
}

/** Gives `userId` a profile picture (replacing none): for update/delete picture probes. */
export async function givePicture(userId: number): Promise<void> {
  const photo = await storePhoto("user", userId, "#939");
  await db()("users").where({ id: userId }).update({ image_id: photo.imageId });
}

/** A co-parent row: `user` co-parents (or is invited to) the kid. */
export async function insertCoParent(kidId: number, user: Id, status: "pending" | "accepted"): Promise<number> {
  const [row] = await db()("co_parents")
    .insert({ kid_id: kidId, user_id: user.id, status, created_at: nowIso() })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

/** A block of `blocked` by `blocker` (the row only; app/models/blocks.server.ts blockUser also ends their ties). */
export async function insertBlock(blocker: Id, blocked: Id): Promise<void> {
  await db()("blocks").insert({
    blocker_id: blocker.id,
    blocked_id: blocked.id,
    show_comments: false,
    created_at: nowIso(),
  });
}

/** How `user` files the other side of friendship `friendshipId` (circle and relationship). */
export async function fileFriend(
  friendshipId: number,
  user: Id,
  circle: "family" | "friends",
  relationship: string | null = null,
): Promise<void> {
  const row = await db()("friendships").where("id", friendshipId).first("user_low");
  const side = Number(row.user_low) === user.id ? "low" : "high";
  await db()("friendships")
    .where("id", friendshipId)
    .update({ [`${side}_circle`]: circle, [`${side}_relationship`]: relationship });
}
