import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { deleteFriendship, MESSAGES } from "~/models/friendships.server";

// DELETE /api/friendships/{id}: either party removes the friendship (any status).
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const id = parseId(params.id);
    if (id === null) return apiError(404, MESSAGES.friendshipNotFound);
    const result = await deleteFriendship(user.id, id);
    if (!result.ok) return apiRefusal(result);
    return json({ message: MESSAGES.deleted });
  },
});

export const loader = route.loader;
export const action = route.action;
