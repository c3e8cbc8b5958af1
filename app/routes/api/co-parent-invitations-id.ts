import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { answerCoParentInvitation, CO_PARENT_MESSAGES } from "~/models/co-parents.server";

// PUT /api/co_parent_invitations/{id} {status: accepted|declined}: the invited user answers.
// 200 {kid_id, status}; 404 (not theirs, or answered) → 400 (status).
const route = apiRoute({
  PUT: async ({ request, params }, user) => {
    const id = parseId(params.id);
    if (id === null) return apiError(404, CO_PARENT_MESSAGES.invitationNotFound);
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    const result = await answerCoParentInvitation(user.id, id, fields.status);
    if (!result.ok) return apiRefusal(result);
    return json({ kid_id: result.kidId, status: fields.status });
  },
});

export const loader = route.loader;
export const action = route.action;
