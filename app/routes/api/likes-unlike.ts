import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { socialRefusal } from "~/api/serializers-social.server";
import { LIKE_MESSAGES, unlikeLog } from "~/models/likes.server";

// DELETE /api/likes/{dailyLogId}/unlike: 200 {id (of the removed like), message}.
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const logId = parseId(params.dailyLogId);
    if (!logId) return apiErrorSingular(404, LIKE_MESSAGES.likeNotFound);
    const result = await unlikeLog(user.id, logId);
    return result.ok ? json({ id: result.id, message: "Like removed" }) : socialRefusal(result);
  },
});

export const loader = route.loader;
export const action = route.action;
