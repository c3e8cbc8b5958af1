import { db, isUniqueViolation, nowIso } from "~/lib/db.server";
import { readQuery } from "~/lib/db-read.server";
import { logAccess } from "./access.server";

// Likes of a moment (daily log). Who may: anyone who can see the moment (logAccess). One like per
// user per moment: the UNIQUE(daily_log_id, user_id) index is the final word, so double clicks, two
// tabs and concurrent requests end with one row; the loser gets a refusal, never an error.

/** A refused request: the status and message the API answers (pages map 403/404 to not-found). */
export type SocialRefusal = {
  ok: false;
  status: 400 | 403 | 404;
  message: string;
  /** The viewer may not see the moment at all: pages answer their plain not-found page. */
  hidden?: true;
};

export function refuse(status: SocialRefusal["status"], message: string, opts: { hidden?: boolean } = {}): SocialRefusal {
  return opts.hidden ? { ok: false, status, message, hidden: true } : { ok: false, status, message };
}

export type Like = { id: number; daily_log_id: number; user_id: number; username: string };

export const LIKE_MESSAGES = {
  logNotFound: "Daily log not found",
  likeNotFound: "Like not found",
  notAllowedToSee: "You are not allowed to see this daily log",
  notAllowedToLike: "You are not allowed to like this daily log",
  notAllowedToUnlike: "You are not allowed to unlike this daily log",
  alreadyLiked: "You have already liked this daily log",
} as const;

function likesQuery() {
  return db()("likes")
    .join("users", "users.id", "likes.user_id")
    .select("likes.id", "likes.daily_log_id", "likes.user_id", "users.username");
}

function likeFromRow(row: Record<string, unknown>): Like {
  return {
    id: Number(row.id),
    daily_log_id: Number(row.daily_log_id),
    user_id: Number(row.user_id),
    username: String(row.username),
  };
}

const likesOfLogRead = readQuery<{ logId: number }>((p) => likesQuery().where("likes.daily_log_id", p("logId")).orderBy("likes.id", "asc"));

/** Every like of a moment, oldest first. */
export async function listLikes(viewerId: number, logId: number): Promise<{ ok: true; likes: Like[] } | SocialRefusal> {
  const access = await logAccess(viewerId, logId);
  if (!access) return refuse(404, LIKE_MESSAGES.logNotFound);
  if (!access.visible) return refuse(403, LIKE_MESSAGES.notAllowedToSee, { hidden: true });
  const rows = await likesOfLogRead.all({ logId });
  return { ok: true, likes: rows.map(likeFromRow) };
}

/**
 * `viewerId` likes the moment. A second like (however it races) is refused with 400 and
 * `alreadyLiked: true`; pages treat that as success ("liked" is where the user wanted to be).
 */
export async function likeLog(
  viewerId: number,
  logId: number,
): Promise<{ ok: true; like: Like } | (SocialRefusal & { alreadyLiked?: true })> {
  const access = await logAccess(viewerId, logId);
  if (!access) return refuse(404, LIKE_MESSAGES.logNotFound);
  if (!access.visible) return refuse(403, LIKE_MESSAGES.notAllowedToLike, { hidden: true });
  let id: number;
  try {
    const [row] = await db()("likes")
      .insert({ daily_log_id: logId, user_id: viewerId, created_at: nowIso() })
      .returning("id");
    id = Number(typeof row === "object" ? row.id : row);
  } catch (error) {
    if (isUniqueViolation(error)) return { ...refuse(400, LIKE_MESSAGES.alreadyLiked), alreadyLiked: true };
    // the moment was deleted between the check and the insert
    if (isForeignKeyViolation(error)) return refuse(404, LIKE_MESSAGES.logNotFound);
    throw error;
  }
  const row = await likesQuery().where("likes.id", id).first();
  if (!row) return refuse(404, LIKE_MESSAGES.logNotFound);
  return { ok: true, like: likeFromRow(row) };
}

/** Removes `viewerId`'s like of the moment and answers its id. No like (any more): 404. */
export async function unlikeLog(viewerId: number, logId: number): Promise<{ ok: true; id: number } | SocialRefusal> {
  const access = await logAccess(viewerId, logId);
  if (!access) return refuse(404, LIKE_MESSAGES.likeNotFound);
  if (!access.visible) return refuse(403, LIKE_MESSAGES.notAllowedToUnlike, { hidden: true });
  const like = await db()("likes").where({ daily_log_id: logId, user_id: viewerId }).first("id");
  if (!like) return refuse(404, LIKE_MESSAGES.likeNotFound);
  const removed = await db()("likes").where("id", like.id).del();
  // a concurrent unlike removed it first
  if (!removed) return refuse(404, LIKE_MESSAGES.likeNotFound);
  return { ok: true, id: Number(like.id) };
}

export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return (e.code === "SQLITE_CONSTRAINT" && /FOREIGN KEY/i.test(e.message ?? "")) || e.code === "23503";
}
