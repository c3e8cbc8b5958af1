import { apiRoute } from "~/api/route.server";
import { asFormValue } from "~/forms/parse-body.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { readSocialFields, serializeComment } from "~/api/serializers-social.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { COMMENT_REFUSALS, updateComment } from "~/models/comments.server";

// PUT /api/comments/{commentId}/update {comment}: 200 Comment (text trimmed, created_at unchanged).
const route = apiRoute({
  PUT: async ({ params, request }, user) => {
    const commentId = parseId(params.commentId);
    if (!commentId) return apiErrorSingular(404, COMMENT_REFUSALS.commentNotFound);
    const fields = await readSocialFields(request);
    const result = await updateComment(user.id, commentId, asFormValue(fields.comment));
    return result.ok ? json(serializeComment(result.comment)) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
