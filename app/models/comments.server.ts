import type { Knex } from "knex";
import { insertedId, isForeignKeyViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { CommentRow, UserRow } from "~/lib/tables";
import type { Photo } from "~/images/photo";
import { commentError } from "~/forms/comment";
import { requireCommentAuthor, requireMoment, whereCommentShown, whereMomentVisibleTo } from "./access.server";
import { notifyComment } from "./notifications.server";
import { invalidField, notFound, reword, type Result } from "./refusal";
import { submissionOnce } from "./submissions.server";

// Comments on a moment. Read and write: anyone who can see the moment (requireMoment). Edit and
// delete: the author only, while they can still see the moment (requireCommentAuthor). Newest
// first; an edit changes `updated_at` only, so an edited comment keeps its place.

export type Comment = {
  id: number;
  daily_log_id: number;
  user_id: number;
  comment: string;
  created_at: string;
  updated_at: string;
  user: { username: string; first_name: string | null; last_name: string | null; photo: Photo | null };
};

export const COMMENT_REFUSALS = {
  momentNotFound: "Daily log not found",
  commentNotFound: "Comment not found",
  notAllowedToSee: "You are not allowed to see the comments of this daily log",
  notAllowedToComment: "You are not allowed to comment this daily log",
  notAuthorizedToEdit: "You are not authorized to edit this comment",
  notAuthorizedToDelete: "You are not authorized to delete this comment",
} as const;

/** Comments joined with their author and the author's picture (one query for any number). */
export function commentsQuery(k: Knex) {
  return k("comments")
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

/** The row `commentColumns` select. */
export type CommentColumns = Pick<
  CommentRow,
  "id" | "daily_log_id" | "user_id" | "comment" | "created_at" | "updated_at"
> &
  Pick<UserRow, "username" | "first_name" | "last_name"> &
  PhotoColumns<"commenter">;

export function commentFromRow(row: CommentColumns): Comment {
  return {
    id: row.id,
    daily_log_id: row.daily_log_id,
    user_id: row.user_id,
    comment: row.comment,
    created_at: row.created_at,
    updated_at: row.updated_at,
    user: {
      username: row.username,
      first_name: row.first_name,
      last_name: row.last_name,
      photo: photoFromRow(row, "commenter"),
    },
  };
}

const commentById = query<{ commentId: number }, CommentColumns>((p, k) =>
  commentsQuery(k).where("comments.id", p("commentId")).first(commentColumns),
);

async function getComment(commentId: number): Promise<Comment | null> {
  const row = await commentById.first({ commentId });
  return row ? commentFromRow(row) : null;
}

// the list condition again (the moment's audience; comments of users its owner blocked hidden)
const commentsOfMoment = query<{ momentId: number; viewer: number }, CommentColumns>((p, k) =>
  whereCommentShown(
    whereMomentVisibleTo(
      commentsQuery(k)
        .join("daily_logs", "daily_logs.id", "comments.daily_log_id")
        .join("kids", "kids.id", "daily_logs.kid_id")
        .where("comments.daily_log_id", p("momentId")),
      p("viewer"),
    ),
  )
    .orderBy([
      { column: "comments.created_at", order: "desc" },
      { column: "comments.id", order: "desc" },
    ])
    .select(commentColumns),
);

/** Every comment of a moment, newest first. */
export async function listComments(viewerId: number, momentId: number): Promise<Result<{ comments: Comment[] }>> {
  const access = await requireMoment(viewerId, momentId);
  if (!access.ok)
    return reword(access, {
      "not-found": COMMENT_REFUSALS.momentNotFound,
      forbidden: COMMENT_REFUSALS.notAllowedToSee,
    });
  const rows = await commentsOfMoment.all({ momentId, viewer: viewerId });
  return { ok: true, comments: rows.map(commentFromRow) };
}

/**
 * Adds a comment (text trimmed, 1–1000 characters). Order of refusals: not found, forbidden,
 * invalid. `token`: the form's one-time submission token; a repeat of a comment that was added
 * answers that comment (`replayed`) instead of a second one (submissions.server.ts).
 */
export async function addComment(
  viewerId: number,
  momentId: number,
  text: unknown,
  opts: { token?: unknown } = {},
): Promise<Result<{ comment: Comment; replayed?: true }>> {
  const access = await requireMoment(viewerId, momentId);
  if (!access.ok)
    return reword(access, {
      "not-found": COMMENT_REFUSALS.momentNotFound,
      forbidden: COMMENT_REFUSALS.notAllowedToComment,
    });
  const error = commentError(text);
  if (error) return invalidField("comment", error);
  const trimmed = String(text).trim();
  const addedBefore = async (id: number) => {
    const c = await getComment(id);
    return c && c.user_id === viewerId && c.daily_log_id === momentId ? c : null;
  };
  const once = await submissionOnce(viewerId, "comment", opts.token, () => [momentId, trimmed], addedBefore);
  if (once.first) return { ok: true, comment: once.first, replayed: true };
  let id: number;
  try {
    id = await once.create(async (conn) => {
      const id = await insertComment(conn, momentId, viewerId, trimmed);
      await notifyComment(conn, momentId, access.ownerId, viewerId, trimmed);
      return id;
    });
  } catch (e) {
    const first = await once.winner(e);
    if (first) return { ok: true, comment: first, replayed: true };
    if (isForeignKeyViolation(e)) return notFound(COMMENT_REFUSALS.momentNotFound);
    throw e;
  }
  const comment = await getComment(id);
  if (!comment) return notFound(COMMENT_REFUSALS.momentNotFound);
  return { ok: true, comment };
}

/**
 * The comments row of `userId` on the moment, on `conn` (addComment's connection, or a caller's
 * transaction such as the demo seed's), without any check. Answers its id.
 */
export async function insertComment(
  conn: Db,
  momentId: number,
  userId: number,
  text: string,
  at: string = nowIso(),
): Promise<number> {
  return insertedId(
    await conn("comments")
      .insert({ daily_log_id: momentId, user_id: userId, comment: text, created_at: at, updated_at: at })
      .returning("id"),
  );
}

/**
 * The comment, if `viewerId` may change it (requireCommentAuthor); refusals in `forbiddenMessage`'s
 * words. `momentId`, when given, must be the comment's moment (the page's form posts name both).
 */
async function authorsComment(
  viewerId: number,
  commentId: number,
  forbiddenMessage: string,
  momentId?: number,
): Promise<Result<{ comment: Comment }>> {
  const comment = await getComment(commentId);
  const row = comment && { id: comment.id, momentId: comment.daily_log_id, authorId: comment.user_id };
  const access = await requireCommentAuthor(viewerId, row, { momentId });
  if (!access.ok) return reword(access, { "not-found": COMMENT_REFUSALS.commentNotFound, forbidden: forbiddenMessage });
  return { ok: true, comment: comment! };
}

/** The author changes the text. `created_at` stays, so the comment keeps its place. */
export async function updateComment(
  viewerId: number,
  commentId: number,
  text: unknown,
  opts: { momentId?: number } = {},
): Promise<Result<{ comment: Comment }>> {
  const found = await authorsComment(viewerId, commentId, COMMENT_REFUSALS.notAuthorizedToEdit, opts.momentId);
  if (!found.ok) return found;
  const error = commentError(text);
  if (error) return invalidField("comment", error);
  const updated = await writeTransaction((trx) =>
    trx("comments")
      .where({ id: commentId, user_id: viewerId })
      .update({ comment: String(text).trim(), updated_at: nowIso() }),
  );
  const comment = updated ? await getComment(commentId) : null;
  if (!comment) return notFound(COMMENT_REFUSALS.commentNotFound);
  return { ok: true, comment };
}

/** The author deletes their comment. */
export async function deleteComment(
  viewerId: number,
  commentId: number,
  opts: { momentId?: number } = {},
): Promise<Result<{ comment: Comment }>> {
  const found = await authorsComment(viewerId, commentId, COMMENT_REFUSALS.notAuthorizedToDelete, opts.momentId);
  if (!found.ok) return found;
  const removed = await writeTransaction((trx) => trx("comments").where({ id: commentId, user_id: viewerId }).del());
  if (!removed) return notFound(COMMENT_REFUSALS.commentNotFound);
  return found;
}
