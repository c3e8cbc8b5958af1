import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { idempotencyKey, readFields } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND } from "~/api/serializers-kids.server";
import { inviteCoParent } from "~/models/co-parents.server";

// POST /api/kids/{id}/co_parents {user_id}: the kid's owner invites an accepted friend as a
// co-parent. 201 {id, kid_id, user_id, status: "pending"}; 404 → 403 → 400. With an Idempotency-Key,
// a repeat answers the same 201 (docs/api.md "Repeated creates").
const route = apiRoute({
  POST: async ({ request, params }, user) => {
    const kidId = parseId(params.id);
    if (kidId === null) return apiError(404, KID_NOT_FOUND);
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    const result = await inviteCoParent(user.id, kidId, fields.user_id, { token: idempotencyKey(request) });
    if (!result.ok) return apiRefusal(result);
    return json({ id: result.invitationId, kid_id: kidId, user_id: result.userId, status: "pending" }, { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
