import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND } from "~/api/serializers-kids.server";
import { removeCoParent } from "~/models/co-parents.server";

// DELETE /api/kids/{id}/co_parents/{userId}: the owner removes a co-parent (or invitation), or a
// co-parent leaves (their own id). 404 → 403.
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const kidId = parseId(params.id);
    if (kidId === null) return apiError(404, KID_NOT_FOUND);
    const result = await removeCoParent(user.id, kidId, params.userId);
    if (!result.ok) return apiRefusal(result);
    return json({ message: "Co-parent removed" });
  },
});

export const loader = route.loader;
export const action = route.action;
