import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { CIRCLE_REFUSALS, setFriendLabel } from "~/models/circles.server";

// PUT /api/friendships/{id}/circle {circle, relationship}: a party of an accepted friendship files
// the other (docs/api.md). 200 {id, circle, relationship}; 404 → 403 → 400.
const route = apiRoute({
  PUT: async ({ request, params }, user) => {
    const id = parseId(params.id);
    if (id === null) return apiError(404, CIRCLE_REFUSALS.friendshipNotFound);
    // 404 and 403 come before a 400 for the body, so an unreadable body is just "no fields"
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    const result = await setFriendLabel(user.id, id, fields);
    if (!result.ok) return apiRefusal(result);
    return json({ id: result.friendshipId, circle: result.label.circle, relationship: result.label.relationship });
  },
});

export const loader = route.loader;
export const action = route.action;
