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
// POST /api/invites {email?, note?, circle?, relationship?, co_parent_kid_ids?}: 201 {id, url,
// expires_at, circle, relationship, co_parent_kids} (the only time the link is shown).

/** The form's field `coParentKids` is the API's `co_parent_kid_ids` (docs/api.md "Invitations"). */
function apiNames(errors: Record<string, string[]>): Record<string, string[]> {
  const { coParentKids, ...rest } = errors;
  return coParentKids ? { ...rest, co_parent_kid_ids: coParentKids } : rest;
}

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
      // a list of kid ids (JSON), or one id (a form field)
      coParentKids: body.co_parent_kid_ids,
    });
    if (!parsed.success) return apiFieldErrors(apiNames(fieldErrorsFromIssues(parsed.error.issues)));
    const made = await createInvitation(user, parsed.data, siteOrigin(), { token: idempotencyKey(request) });
    if (!made.ok) return made.fieldErrors ? apiFieldErrors(apiNames(made.fieldErrors)) : apiRefusal(made);
    const { id, expiresAt, circle, relationship } = made.invitation;
    const co_parent_kids = serializeInvitation(made.invitation).co_parent_kids;
    return json({ id, url: made.url, expires_at: expiresAt, circle, relationship, co_parent_kids }, { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
