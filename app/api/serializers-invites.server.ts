import type { Invitation } from "~/models/invitations.server";

/** An invitation in the API (docs/api.md "Invitations"). */
export function serializeInvitation(invitation: Invitation) {
  return {
    id: invitation.id,
    note: invitation.note,
    email: invitation.email,
    state: invitation.state,
    created_at: invitation.createdAt,
    expires_at: invitation.expiresAt,
    circle: invitation.circle,
    relationship: invitation.relationship,
    co_parent_kids: invitation.coParentKids.map((k) => ({ id: k.id, name: k.name })),
    friend: invitation.friend ? { id: invitation.friend.id, name: invitation.friend.name } : null,
  };
}
