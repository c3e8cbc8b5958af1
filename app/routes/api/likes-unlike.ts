import { apiRoute } from "~/api/route.server";
import { apiErrorSingular, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { apiRefusalSingular } from "~/api/refusal.server";
import { LIKE_MESSAGES, unlikeMoment } from "~/models/likes.server";

// DELETE /api/likes/{dailyLogId}/unlike: 200 {id (of the removed like), message}.
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const momentId = parseId(params.momentId);
    if (!momentId) return apiErrorSingular(404, LIKE_MESSAGES.likeNotFound);
    const result = await unlikeMoment(user.id, momentId);
    return result.ok ? json({ id: result.id, message: "Like removed" }) : apiRefusalSingular(result);
  },
});

export const loader = route.loader;
export const action = route.action;
