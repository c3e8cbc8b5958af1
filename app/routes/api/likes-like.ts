import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { serializeLike, socialRefusal } from "~/api/serializers-social.server";
import { LIKE_MESSAGES, likeLog } from "~/models/likes.server";

// POST /api/likes/{dailyLogId}/like: 201 Like; 400 (C') when already liked, however the requests race.
const route = apiRoute({
  POST: async ({ params }, user) => {
    const logId = parseId(params.dailyLogId);
    if (!logId) return apiErrorSingular(404, LIKE_MESSAGES.logNotFound);
    const result = await likeLog(user.id, logId);
    return result.ok ? json(serializeLike(result.like), { status: 201 }) : socialRefusal(result);
  },
});

export const loader = route.loader;
export const action = route.action;
