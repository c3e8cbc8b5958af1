import {
  insertedId,
  isForeignKeyViolation,
  isUniqueViolation,
  nowIso,
  writeTransaction,
  type Db,
} from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { LikeRow, UserRow } from "~/lib/tables";
import { requireMoment, whereMomentVisibleTo } from "./access.server";
import { notify } from "./notifications.server";
import { conflict, notFound, reword, type Result } from "./refusal";

// Likes of a moment. Who may: anyone who can see the moment (requireMoment). One like per user per
// moment: the UNIQUE(daily_log_id, user_id) index is the final word, so double clicks, two tabs and
// concurrent requests end with one row; the loser gets a refusal (conflict), never an error.

export type Like = { id: number; daily_log_id: number; user_id: number; username: string };

export const LIKE_MESSAGES = {
  momentNotFound: "Daily log not found",
  likeNotFound: "Like not found",
  notAllowedToSee: "You are not allowed to see this daily log",
  notAllowedToLike: "You are not allowed to like this daily log",
  notAllowedToUnlike: "You are not allowed to unlike this daily log",
  alreadyLiked: "You have already liked this daily log",
} as const;

const likeColumns = ["likes.id", "likes.daily_log_id", "likes.user_id", "users.username"];

type LikeColumns = Pick<LikeRow, "id" | "daily_log_id" | "user_id"> & Pick<UserRow, "username">;

// the list condition again (the moment's audience), as every list of what hangs off a moment
const likesOfMoment = query<{ momentId: number; viewer: number }, LikeColumns>((p, k) =>
  whereMomentVisibleTo(
    k("likes")
      .join("users", "users.id", "likes.user_id")
      .join("daily_logs", "daily_logs.id", "likes.daily_log_id")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where("likes.daily_log_id", p("momentId")),
    p("viewer"),
  )
    .orderBy("likes.id", "asc")
    .select(likeColumns),
);
const likeById = query<{ likeId: number }, LikeColumns>((p, k) =>
  k("likes").join("users", "users.id", "likes.user_id").where("likes.id", p("likeId")).first(likeColumns),
);
const likeOf = query<{ momentId: number; userId: number }, Pick<LikeRow, "id">>((p, k) =>
  k("likes")
    .where({ "likes.daily_log_id": p("momentId"), "likes.user_id": p("userId") })
    .first("likes.id"),
);

/** Every like of a moment, oldest first. */
export async function listLikes(viewerId: number, momentId: number): Promise<Result<{ likes: Like[] }>> {
  const access = await requireMoment(viewerId, momentId);
  if (!access.ok)
    return reword(access, { "not-found": LIKE_MESSAGES.momentNotFound, forbidden: LIKE_MESSAGES.notAllowedToSee });
  const rows = await likesOfMoment.all({ momentId, viewer: viewerId });
  return { ok: true, likes: rows };
}

/**
 * `viewerId` likes the moment. A second like (however it races) is refused as a conflict; pages
 * treat that as success ("liked" is where the user wanted to be).
 */
export async function likeMoment(viewerId: number, momentId: number): Promise<Result<{ like: Like }>> {
  const access = await requireMoment(viewerId, momentId);
  if (!access.ok)
    return reword(access, { "not-found": LIKE_MESSAGES.momentNotFound, forbidden: LIKE_MESSAGES.notAllowedToLike });
  let id: number;
  try {
    id = await writeTransaction(async (trx) => {
      const id = await insertLike(trx, momentId, viewerId);
      await notify(trx, [{ userId: access.ownerId, kind: "like", actorId: viewerId, momentId }]);
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return conflict(LIKE_MESSAGES.alreadyLiked);
    // the moment was deleted between the check and the insert
    if (isForeignKeyViolation(error)) return notFound(LIKE_MESSAGES.momentNotFound);
    throw error;
  }
  const row = await likeById.first({ likeId: id });
  if (!row) return notFound(LIKE_MESSAGES.momentNotFound);
  return { ok: true, like: row };
}

/**
 * The likes row of `userId` on the moment, on `conn` (likeMoment's connection, or a caller's
 * transaction such as the demo seed's), without any check. Answers its id.
 */
export async function insertLike(conn: Db, momentId: number, userId: number, at: string = nowIso()): Promise<number> {
  return insertedId(
    await conn("likes").insert({ daily_log_id: momentId, user_id: userId, created_at: at }).returning("id"),
  );
}

/** Removes `viewerId`'s like of the moment and answers its id. No like (any more): not found. */
export async function unlikeMoment(viewerId: number, momentId: number): Promise<Result<{ id: number }>> {
  const access = await requireMoment(viewerId, momentId);
  if (!access.ok)
    return reword(access, { "not-found": LIKE_MESSAGES.likeNotFound, forbidden: LIKE_MESSAGES.notAllowedToUnlike });
  const like = await likeOf.first({ momentId, userId: viewerId });
  if (!like) return notFound(LIKE_MESSAGES.likeNotFound);
  const removed = await writeTransaction((trx) => trx("likes").where("id", like.id).del());
  // a concurrent unlike removed it first
  if (!removed) return notFound(LIKE_MESSAGES.likeNotFound);
  return { ok: true, id: like.id };
}
