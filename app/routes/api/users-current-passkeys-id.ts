import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { parseId } from "~/lib/request.server";
import { removePasskey, renamePasskey } from "~/models/passkeys.server";
import { sessionToken } from "~/web/auth.server";

// PUT /api/users/current/passkeys/{id} {name}: renames one of the caller's passkeys.
// DELETE: removes it and ends the sessions it started but the caller's (refused for the last
// passkey of an account without a password).
const route = apiRoute({
  PUT: async ({ request, params }, user) => {
    const body = await readFields(request);
    const renamed = await renamePasskey(user.id, parseId(params.id) ?? 0, body.name);
    return renamed.ok ? json({ message: "The passkey is renamed" }) : apiRefusal(renamed);
  },
  DELETE: async ({ request, params }, user) => {
    const removed = await removePasskey(user.id, parseId(params.id) ?? 0, await sessionToken(request));
    return removed.ok ? json({ message: "The passkey is removed" }) : apiRefusal(removed);
  },
});

export const loader = route.loader;
export const action = route.action;
