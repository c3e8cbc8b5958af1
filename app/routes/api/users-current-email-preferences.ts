import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { readAccountBody } from "~/api/account.server";
import { EmailPreferencesSchema } from "~/forms/email-preferences";
import { getEmailPreferences, saveEmailPreferences } from "~/models/email-preferences.server";

// GET and PUT /api/users/current/email-preferences (docs/api.md "Users",
// docs/decisions/0062-new-moments-and-notification-choices.md): the caller's choices, the same as
// the email settings page's form: per kind of news "off", "digest" or "now", the digest's
// frequency and hour. A PUT names all five.
const FIELDS = ["moments", "comments", "replies", "digest", "hour"];

const route = apiRoute({
  GET: async (_args, user) => json(await getEmailPreferences(user.id)),
  PUT: async ({ request }, user) => {
    const input = await readAccountBody(request, EmailPreferencesSchema, FIELDS);
    await saveEmailPreferences(user.id, input);
    return json(await getEmailPreferences(user.id));
  },
});

export const loader = route.loader;
export const action = route.action;
