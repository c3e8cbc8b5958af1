import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { serializeLike } from "~/api/serializers-social.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { LIKE_MESSAGES, likeMoment } from "~/models/likes.server";

// POST /api/likes/{dailyLogId}/like: 201 Like; 400 (C') when already liked, however the requests race.
const route = apiRoute({
  POST: async ({ params }, user) => {
    const momentId = parseId(params.momentId);
    if (!momentId) return apiErrorSingular(404, LIKE_MESSAGES.momentNotFound);
    const result = await likeMoment(user.id, momentId);
    return result.ok ? json(serializeLike(result.like), { status: 201 }) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
