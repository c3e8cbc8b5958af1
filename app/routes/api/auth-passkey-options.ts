import { publicApiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { startPasskeySignIn } from "~/web/auth.server";

// POST /api/auth/passkey/options: the options of a passkey sign-in (WebAuthn's
// PublicKeyCredentialRequestOptions as JSON); its challenge is tied to this browser by a cookie.
const route = publicApiRoute({
  POST: async ({ request }) => {
    await readFields(request); // nothing in it is needed; read so its size limit holds
    const { options, setCookie } = await startPasskeySignIn(request);
    return json({ options }, { headers: { "Set-Cookie": setCookie } });
  },
});

export const loader = route.loader;
export const action = route.action;
