import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { serializeComment } from "~/api/serializers-social.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { COMMENT_REFUSALS, listComments } from "~/models/comments.server";

// GET /api/comments/{dailyLogId}/comments: a bare array of Comment, newest first.
const route = apiRoute({
  GET: async ({ params }, user) => {
    const momentId = parseId(params.momentId);
    if (!momentId) return apiErrorSingular(404, COMMENT_REFUSALS.momentNotFound);
    const result = await listComments(user.id, momentId);
    return result.ok ? json(result.comments.map(serializeComment)) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
