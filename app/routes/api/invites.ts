import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { idempotencyKey, readFields } from "~/api/read-body.server";
import { apiFieldErrors, fieldErrorsFromIssues, json } from "~/api/responses.server";
import { serializeInvitation } from "~/api/serializers-invites.server";
import { asFormValue } from "~/forms/parse-body.server";
import { InviteSchema } from "~/forms/invite";
import { siteOrigin } from "~/lib/config.server";
import { createInvitation, listInvitations } from "~/models/invitations.server";

// GET /api/invites: the caller's invitations, newest first.
// POST /api/invites {email?, note?, circle?, relationship?}: 201 {id, url, expires_at, circle, relationship} (the only time the link is shown).
const route = apiRoute({
  GET: async (_args, user) => json({ invites: (await listInvitations(user.id)).map(serializeInvitation) }),
  POST: async ({ request }, user) => {
    const body = await readFields(request);
    const parsed = InviteSchema.safeParse({
      note: asFormValue(body.note) ?? undefined,
      email: asFormValue(body.email) ?? undefined,
      // anything but text (a number, a list) reaches the schema as it is, to be refused there
      circle: asFormValue(body.circle) ?? body.circle,
      relationship: asFormValue(body.relationship) ?? body.relationship,
    });
    if (!parsed.success) return apiFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
    const made = await createInvitation(user, parsed.data, siteOrigin(), { token: idempotencyKey(request) });
    if (!made.ok) return apiRefusal(made);
    const { id, expiresAt, circle, relationship } = made.invitation;
    return json({ id, url: made.url, expires_at: expiresAt, circle, relationship }, { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
