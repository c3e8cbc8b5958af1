import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/body.server";
import { apiFieldErrors, fieldErrorsFromIssues, json } from "~/api/responses.server";
import { serializeInvitation } from "~/api/serializers-invites.server";
import { asFormValue } from "~/forms/body.server";
import { InviteSchema } from "~/forms/invite";
import { siteOrigin } from "~/lib/request.server";
import { createInvitation, listInvitations } from "~/models/invitations.server";

// GET /api/invites: the caller's invitations, newest first.
// POST /api/invites {email?, note?}: 201 {id, url, expires_at} (the only time the link is shown).
const route = apiRoute({
  GET: async (_args, user) => json({ invites: (await listInvitations(user.id)).map(serializeInvitation) }),
  POST: async ({ request }, user) => {
    const body = await readFields(request);
    const parsed = InviteSchema.safeParse({ note: asFormValue(body.note) ?? undefined, email: asFormValue(body.email) ?? undefined });
    if (!parsed.success) return apiFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
    const made = await createInvitation(user, parsed.data, siteOrigin(request));
    if (!made.ok) return apiRefusal(made);
    return json({ id: made.invitation.id, url: made.url, expires_at: made.invitation.expiresAt }, { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
