import { publicApiRoute } from "~/api/route.server";
import { apiBareFieldErrors, json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { serializeUser } from "~/api/serializers.server";
import { checkPasskey, clearPasskeyCookie, clientAddress, LoginError, startSession } from "~/web/auth.server";

// POST /api/auth/passkey {response}: signs in with the browser's answer to /api/auth/passkey/options;
// the same limits and the same session as POST /api/auth/login.
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    const body = await readFields(request);
    const cleared = await clearPasskeyCookie(request);
    try {
      const user = await checkPasskey(request, body.response, clientAddress(context));
      const headers = new Headers();
      headers.append("Set-Cookie", await startSession(request, user));
      headers.append("Set-Cookie", cleared);
      return json(serializeUser(user, true), { headers });
    } catch (error) {
      if (error instanceof LoginError)
        return apiBareFieldErrors(error.fieldErrors, error.status, { ...error.headers, "Set-Cookie": cleared });
      throw error;
    }
  },
});

export const loader = route.loader;
export const action = route.action;
