import { publicApiRoute } from "~/api/route.server";
import { apiBareFieldErrors, fieldErrorsFromIssues, json } from "~/api/responses.server";
import { idempotencyKey, readFields } from "~/api/read-body.server";
import { asFormValue } from "~/forms/parse-body.server";
import { serializeUser } from "~/api/serializers.server";
import { checkSignupAllowed, clientAddress, LoginError, startSession } from "~/web/auth.server";
import { apiSignupSchema } from "~/forms/auth";
import { signUp } from "~/models/users.server";

// POST /api/auth/signup: with names (the modal) or without both (the older page). With an
// Idempotency-Key header a repeat with the same password signs the first account in (docs/api.md).
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    const raw = await readFields(request);
    const body = Object.fromEntries(
      ["email", "username", "password", "first_name", "last_name"].map((k) => [k, asFormValue(raw[k])]),
    );
    const parsed = apiSignupSchema(body).safeParse(body);
    if (!parsed.success) return apiBareFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
    try {
      await checkSignupAllowed(clientAddress(context));
    } catch (error) {
      if (error instanceof LoginError) return apiBareFieldErrors(error.fieldErrors, error.status, error.headers);
      throw error;
    }
    const created = await signUp(parsed.data, { token: idempotencyKey(request) });
    if (!created.ok) return apiBareFieldErrors(created.fieldErrors ?? {});
    return json(serializeUser(created.user, true), {
      headers: { "Set-Cookie": await startSession(request, created.user) },
    });
  },
});

export const loader = route.loader;
export const action = route.action;
