import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { registrationOptions } from "~/models/passkeys.server";
import { sessionToken } from "~/web/auth.server";

// POST /api/users/current/passkeys/options: the options of a new passkey (WebAuthn's
// PublicKeyCredentialCreationOptions as JSON); its challenge is tied to the caller's session.
const route = apiRoute({
  POST: async ({ request }, user) => {
    await readFields(request); // nothing in it is needed; read so its size limit holds
    const token = await sessionToken(request);
    if (!token) return apiError(401, "Unauthorized");
    return json({ options: await registrationOptions(user, token) });
  },
});

export const loader = route.loader;
export const action = route.action;
