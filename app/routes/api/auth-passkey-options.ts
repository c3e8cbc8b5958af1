import { publicApiRoute } from "~/api/route.server";
import { apiBareFieldErrors, json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { clientAddress, LoginError } from "~/web/auth.server";
import { startPasskeySignIn } from "~/web/passkey.server";

// POST /api/auth/passkey/options: the options of a passkey sign-in (WebAuthn's
// PublicKeyCredentialRequestOptions as JSON); its challenge is tied to this browser by a cookie.
// Open to anyone, so limited per client address (each call stores a challenge).
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    await readFields(request); // nothing in it is needed; read so its size limit holds
    try {
      const { options, setCookie } = await startPasskeySignIn(request, clientAddress(context));
      return json({ options }, { headers: { "Set-Cookie": setCookie } });
    } catch (error) {
      if (error instanceof LoginError) return apiBareFieldErrors(error.fieldErrors, error.status, error.headers);
      throw error;
    }
  },
});

export const loader = route.loader;
export const action = route.action;
