import { publicApiRoute } from "~/api/route.server";
import { apiBareFieldErrors, json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { serializeUser } from "~/api/serializers.server";
import { clientAddress, LoginError, startSession } from "~/web/auth.server";
import { checkPasskey, clearPasskeyCookie } from "~/web/passkey.server";

// POST /api/auth/passkey {response}: signs in with the browser's answer to /api/auth/passkey/options;
// the same limits and the same session as POST /api/auth/login. A refused answer leaves the
// browser's handle: another of its live challenges (the log-in page's autofill or button) may
// still answer.
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    const body = await readFields(request);
    try {
      const { user, passkeyId } = await checkPasskey(request, body.response, clientAddress(context));
      const headers = new Headers();
      headers.append("Set-Cookie", await startSession(request, user, null, passkeyId));
      headers.append("Set-Cookie", await clearPasskeyCookie(request));
      return json(serializeUser(user, true), { headers });
    } catch (error) {
      if (error instanceof LoginError) return apiBareFieldErrors(error.fieldErrors, error.status, error.headers);
      throw error;
    }
  },
});

export const loader = route.loader;
export const action = route.action;
