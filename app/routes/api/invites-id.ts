import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { apiError, json } from "~/api/responses.server";
import { serializeInvitation } from "~/api/serializers-invites.server";
import { parseId } from "~/lib/request.server";
import { revokeInvitation } from "~/models/invitations.server";

// DELETE /api/invites/{id}: the inviter revokes an unused invitation; 200 with it (state "revoked").
// Someone else's or no such invitation: 404; used or revoked already: 400.
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const id = parseId(params.id);
    if (id === null) return apiError(404, "Invitation not found");
    const result = await revokeInvitation(user.id, id);
    if (!result.ok) return apiRefusal(result);
    return json(serializeInvitation(result.invitation));
  },
});

export const loader = route.loader;
export const action = route.action;
