import { db, nowIso } from "~/lib/db.server";
import { readQuery } from "~/lib/db-read.server";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import type { Photo } from "~/images/photo";
import { commentError } from "~/forms/comment";
import { logAccess } from "./access.server";
import { isForeignKeyViolation, refuse, type SocialRefusal } from "./likes.server";

// Comments on a moment (daily log). Read and write: anyone who can see the moment (logAccess).
// Edit and delete: the author only (and only while they can still see the moment). Newest first;
// an edit changes `updated_at` only, so an edited comment keeps its place.

export type Comment = {
  id: number;
  daily_log_id: number;
  user_id: number;
  comment: string;
  created_at: string;
  updated_at: string;
  user: { username: string; first_name: string | null; last_name: string | null; photo: Photo | null };
};

export type CommentInvalid = SocialRefusal & { status: 400; errors: { comment: string[] } };

export const COMMENT_REFUSALS = {
  logNotFound: "Daily log not found",
  commentNotFound: "Comment not found",
  notAllowedToSee: "You are not allowed to see the comments of this daily log",
  notAllowedToComment: "You are not allowed to comment this daily log",
  notAuthorizedToEdit: "You are not authorized to edit this comment",
  notAuthorizedToDelete: "You are not authorized to delete this comment",
} as const;

/** Comments joined with their author and the author's picture (one query for any number). */
export function commentsQuery(conn = db()) {
  return conn("comments")
    .join("users", "users.id", "comments.user_id")
    .leftJoin("images as commenter_images", "commenter_images.id", "users.image_id");
}

export const commentColumns = [
  "comments.id",
  "comments.daily_log_id",
  "comments.user_id",
  "comments.comment",
  "comments.created_at",
  "comments.updated_at",
  "users.username",
  "users.first_name",
  "users.last_name",
  ...photoColumns("commenter_images", "commenter"),
];

export function commentFromRow(row: Record<string, unknown>): Comment {
  return {
    id: Number(row.id),
    daily_log_id: Number(row.daily_log_id),
    user_id: Number(row.user_id),
    comment: String(row.comment),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    user: {
      username: String(row.username),
      first_name: (row.first_name as string | null) ?? null,
      last_name: (row.last_name as string | null) ?? null,
      photo: photoFromRow(row, "commenter"),
    },
  };
}

async function getComment(id: number): Promise<Comment | null> {
  const row = await commentsQuery().where("comments.id", id).first(commentColumns);
  return row ? commentFromRow(row) : null;
}

function invalid(message: string): CommentInvalid {
  return { ...refuse(400, message), status: 400, errors: { comment: [message] } };
}

const commentsOfLogRead = readQuery<{ logId: number }>((p) =>
  commentsQuery()
    .where("comments.daily_log_id", p("logId"))
    .orderBy([
      { column: "comments.created_at", order: "desc" },
      { column: "comments.id", order: "desc" },
    ])
    .select(commentColumns),
);

/** Every comment of a moment, newest first. */
export async function listComments(
  viewerId: number,
  logId: number,
): Promise<{ ok: true; comments: Comment[] } | SocialRefusal> {
  const access = await logAccess(viewerId, logId);
  if (!access) return refuse(404, COMMENT_REFUSALS.logNotFound);
  if (!access.visible) return refuse(403, COMMENT_REFUSALS.notAllowedToSee, { hidden: true });
  const rows = await commentsOfLogRead.all({ logId });
  return { ok: true, comments: rows.map(commentFromRow) };
}

/** Adds a comment (text trimmed, 1–1000 characters). Order of refusals: 404, 403, 400. */
export async function addComment(
  viewerId: number,
  logId: number,
  text: unknown,
): Promise<{ ok: true; comment: Comment } | SocialRefusal | CommentInvalid> {
  const access = await logAccess(viewerId, logId);
  if (!access) return refuse(404, COMMENT_REFUSALS.logNotFound);
  if (!access.visible) return refuse(403, COMMENT_REFUSALS.notAllowedToComment, { hidden: true });
  const error = commentError(text);
  if (error) return invalid(error);
  const now = nowIso();
  let id: number;
  try {
    const [row] = await db()("comments")
      .insert({ daily_log_id: logId, user_id: viewerId, comment: String(text).trim(), created_at: now, updated_at: now })
      .returning("id");
    id = Number(typeof row === "object" ? row.id : row);
  } catch (e) {
    if (isForeignKeyViolation(e)) return refuse(404, COMMENT_REFUSALS.logNotFound);
    throw e;
  }
  const comment = await getComment(id);
  if (!comment) return refuse(404, COMMENT_REFUSALS.logNotFound);
  return { ok: true, comment };
}

/**
 * Who may change `commentId`: its author, while they can see the moment. `logId`, when given, must
 * be the comment's moment (the page's form posts name both).
 */
async function authorAccess(
  viewerId: number,
  commentId: number,
  refusal: string,
  logId?: number,
): Promise<{ ok: true; comment: Comment } | SocialRefusal> {
  const comment = await getComment(commentId);
  if (!comment || (logId !== undefined && comment.daily_log_id !== logId)) {
    return refuse(404, COMMENT_REFUSALS.commentNotFound);
  }
  const access = await logAccess(viewerId, comment.daily_log_id);
  if (!access) return refuse(404, COMMENT_REFUSALS.commentNotFound);
  if (!access.visible) return refuse(403, refusal, { hidden: true });
  if (comment.user_id !== viewerId) return refuse(403, refusal);
  return { ok: true, comment };
}

/** The author changes the text. `created_at` stays, so the comment keeps its place. */
export async function updateComment(
  viewerId: number,
  commentId: number,
  text: unknown,
  opts: { logId?: number } = {},
): Promise<{ ok: true; comment: Comment } | SocialRefusal | CommentInvalid> {
  const found = await authorAccess(viewerId, commentId, COMMENT_REFUSALS.notAuthorizedToEdit, opts.logId);
  if (!found.ok) return found;
  const error = commentError(text);
  if (error) return invalid(error);
  const updated = await db()("comments")
    .where({ id: commentId, user_id: viewerId })
    .update({ comment: String(text).trim(), updated_at: nowIso() });
  const comment = updated ? await getComment(commentId) : null;
  if (!comment) return refuse(404, COMMENT_REFUSALS.commentNotFound);
  return { ok: true, comment };
}

/** The author deletes their comment. */
export async function deleteComment(
  viewerId: number,
  commentId: number,
  opts: { logId?: number } = {},
): Promise<{ ok: true; comment: Comment } | SocialRefusal> {
  const found = await authorAccess(viewerId, commentId, COMMENT_REFUSALS.notAuthorizedToDelete, opts.logId);
  if (!found.ok) return found;
  const removed = await db()("comments").where({ id: commentId, user_id: viewerId }).del();
  if (!removed) return refuse(404, COMMENT_REFUSALS.commentNotFound);
  return found;
}
