import { apiRoute } from "~/api/route.server";
import { idempotencyKey } from "~/api/read-body.server";
import { asFormValue } from "~/forms/parse-body.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { readSocialFields, serializeComment } from "~/api/serializers-social.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { addComment, COMMENT_REFUSALS } from "~/models/comments.server";

// POST /api/comments/{dailyLogId}/new-comment {comment}: 201 Comment (text trimmed). With an
// Idempotency-Key header a repeat answers the comment of the first (docs/api.md).
const route = apiRoute({
  POST: async ({ params, request }, user) => {
    const momentId = parseId(params.momentId);
    if (!momentId) return apiErrorSingular(404, COMMENT_REFUSALS.momentNotFound);
    const fields = await readSocialFields(request);
    const result = await addComment(user.id, momentId, asFormValue(fields.comment), { token: idempotencyKey(request) });
    return result.ok ? json(serializeComment(result.comment), { status: 201 }) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
