import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { idempotencyKey, readFields } from "~/api/read-body.server";
import { json } from "~/api/responses.server";
import { serializeFriendship } from "~/api/serializers-friends.server";
import { sendFriendRequest } from "~/models/friendships.server";

// POST /api/friendships/new {friend_id}: 201 Friendship (pending). With an Idempotency-Key header
// a repeat answers the friendship of the first instead of 400 "already exists" (docs/api.md).
const route = apiRoute({
  POST: async ({ request }, user) => {
    const fields = await readFields(request);
    const result = await sendFriendRequest(user.id, fields.friend_id, { token: idempotencyKey(request) });
    if (!result.ok) return apiRefusal(result);
    return json(serializeFriendship(result.friendship), { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
