import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { serializeFriendship } from "~/api/serializers-friends.server";
import { answerFriendRequest, MESSAGES } from "~/models/friendships.server";

// PUT /api/friendships/{id}/update {status: accepted|denied}: the receiver answers a pending request.
const route = apiRoute({
  PUT: async ({ request, params }, user) => {
    const id = parseId(params.id);
    if (id === null) return apiError(404, MESSAGES.friendshipNotFound);
    // 404 and 403 come before a 400 for the body, so an unreadable body is just "no status"
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    const result = await answerFriendRequest(user.id, id, fields.status);
    if (!result.ok) return apiRefusal(result);
    return json(serializeFriendship(result.friendship));
  },
});

export const loader = route.loader;
export const action = route.action;
