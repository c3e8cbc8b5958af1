import { publicApiRoute } from "~/api/route.server";
import { apiBareFieldErrors, fieldErrorsFromIssues, json } from "~/api/responses.server";
import { readFields } from "~/api/read-body.server";
import { asFormValue } from "~/forms/parse-body.server";
import { serializeUser } from "~/api/serializers.server";
import { checkCredentials, clientAddress, LoginError, startSession } from "~/web/auth.server";
import { LoginSchema } from "~/forms/auth";

// POST /api/auth/login {email, password}: the same schema and credential check as the log-in page.
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    const body = await readFields(request);
    const parsed = LoginSchema.safeParse({ email: asFormValue(body.email), password: asFormValue(body.password) });
    if (!parsed.success) return apiBareFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
    try {
      const user = await checkCredentials(parsed.data.email, parsed.data.password, clientAddress(context));
      return json(serializeUser(user, true), { headers: { "Set-Cookie": await startSession(request, user) } });
    } catch (error) {
      if (error instanceof LoginError) return apiBareFieldErrors(error.fieldErrors, error.status, error.headers);
      throw error;
    }
  },
});

export const loader = route.loader;
export const action = route.action;
