import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { COMMENT_REFUSALS, deleteComment } from "~/models/comments.server";

// DELETE /api/comments/{commentId}: the author only.
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const commentId = parseId(params.commentId);
    if (!commentId) return apiErrorSingular(404, COMMENT_REFUSALS.commentNotFound);
    const result = await deleteComment(user.id, commentId);
    return result.ok ? json({ message: "Comment deleted successfully" }) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
