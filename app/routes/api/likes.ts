import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { serializeLike } from "~/api/serializers-social.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { LIKE_MESSAGES, listLikes } from "~/models/likes.server";

// GET /api/likes/{dailyLogId}: a bare array of Like.
const route = apiRoute({
  GET: async ({ params }, user) => {
    const momentId = parseId(params.momentId);
    if (!momentId) return apiErrorSingular(404, LIKE_MESSAGES.momentNotFound);
    const result = await listLikes(user.id, momentId);
    return result.ok ? json(result.likes.map(serializeLike)) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
