import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeFriendLists } from "~/api/serializers-friends.server";
import { listFriends } from "~/models/friend-lists.server";
import { coParentsOf } from "~/models/co-parents.server";

// GET /api/users/friends: {pending_friends, confirmed_friends, denied_friends}.
const route = apiRoute({
  GET: async (_args, user) => {
    const lists = await listFriends(user.id);
    const coParents = await coParentsOf(lists.confirmed.flatMap((e) => e.kids.map((k) => k.id)));
    return json(serializeFriendLists(lists, coParents));
  },
});

export const loader = route.loader;
export const action = route.action;
