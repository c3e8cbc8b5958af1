import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { coParentInvitationsFor } from "~/models/co-parents.server";

// GET /api/co_parent_invitations: the caller's unanswered co-parent invitations.
const route = apiRoute({
  GET: async (_args, user) =>
    json({
      invitations: (await coParentInvitationsFor(user.id)).map((i) => ({
        id: i.id,
        kid_id: i.kidId,
        kid_name: i.kidName,
        owner: { id: i.ownerId, username: i.ownerUsername },
      })),
    }),
});

export const loader = route.loader;
export const action = route.action;
