import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeFriendship } from "~/api/serializers-friends.server";
import { listFriendships } from "~/models/friend-lists.server";

// GET /api/friendships/current: a BARE array of the caller's friendships (either party).
const route = apiRoute({
  GET: async (_args, user) => json((await listFriendships(user.id)).map(serializeFriendship)),
});

export const loader = route.loader;
export const action = route.action;
