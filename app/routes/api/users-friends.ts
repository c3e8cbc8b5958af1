import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeFriendLists } from "~/api/serializers-friends.server";
import { listFriends } from "~/models/friendships.server";

// GET /api/users/friends: {pending_friends, confirmed_friends, denied_friends}.
const route = apiRoute({
  GET: async (_args, user) => json(serializeFriendLists(await listFriends(user.id))),
});

export const loader = route.loader;
export const action = route.action;
