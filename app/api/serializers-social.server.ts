// Like and Comment → the JSON shapes of docs/api.md (Entities as returned).
import { imageUrl } from "./serializers.server";
import { readFields } from "./read-body.server";
import type { Comment } from "~/models/comments.server";
import type { Like } from "~/models/likes.server";

/** Like: `{id, daily_log_id, user_id, username}`. */
export function serializeLike(like: Like) {
  return { id: like.id, daily_log_id: like.daily_log_id, user_id: like.user_id, username: like.username };
}

/** Comment: `{id, daily_log_id, user_id, comment, created_at, user: {first_name, last_name, user_image_url}}`. */
export function serializeComment(comment: Comment) {
  return {
    id: comment.id,
    daily_log_id: comment.daily_log_id,
    user_id: comment.user_id,
    comment: comment.comment,
    created_at: comment.created_at,
    user: {
      first_name: comment.user.first_name,
      last_name: comment.user.last_name,
      user_image_url: imageUrl(comment.user.photo),
    },
  };
}

/** The text fields of a likes/comments body. An unreadable body counts as empty (→ "Comment is required"). */
export async function readSocialFields(request: Request): Promise<Record<string, unknown>> {
  try {
    return await readFields(request);
  } catch (error) {
    if (error instanceof Response && error.status === 413) throw error;
    return {};
  }
}
