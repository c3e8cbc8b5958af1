import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND } from "~/api/serializers-kids.server";
import { showKidToFriends } from "~/models/co-parents.server";

// POST /api/kids/{id}/show_to_friends: the owner shows a kid handed over to them (hidden from
// their friends since the other parent deleted their account) to their friends. 200
// {kid_id, shown_to_friends: true}; 404 → 403 (not the owner).
const route = apiRoute({
  POST: async ({ params }, user) => {
    const kidId = parseId(params.id);
    if (kidId === null) return apiError(404, KID_NOT_FOUND);
    const result = await showKidToFriends(user.id, kidId);
    if (!result.ok) return apiRefusal(result);
    return json({ kid_id: result.kidId, shown_to_friends: true });
  },
});

export const loader = route.loader;
export const action = route.action;
