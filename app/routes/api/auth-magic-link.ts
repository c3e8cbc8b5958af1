import { publicApiRoute } from "~/api/route.server";
import { readFields } from "~/api/read-body.server";
import { apiFieldErrors, fieldErrorsFromIssues, json } from "~/api/responses.server";
import { asFormValue } from "~/forms/parse-body.server";
import { SignInLinkSchema } from "~/forms/invite";
import { siteOrigin } from "~/lib/config.server";
import { requestSignInLink } from "~/models/sign-in-links.server";
import { clientAddress } from "~/web/auth.server";

export const MAGIC_LINK_ACCEPTED =
  "If an account uses that address, a sign-in link is on its way. It works once, for 15 minutes.";

// POST /api/auth/magic-link {email}: 202 whether or not the address has an account (and whether
// or not a limit held the message back); a malformed address is 400 (B).
const route = publicApiRoute({
  POST: async ({ request, context }) => {
    const body = await readFields(request);
    const parsed = SignInLinkSchema.safeParse({ email: asFormValue(body.email) });
    if (!parsed.success) return apiFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
    await requestSignInLink(parsed.data.email, { reset: false, origin: siteOrigin(), address: clientAddress(context) });
    return json({ message: MAGIC_LINK_ACCEPTED }, { status: 202 });
  },
});

export const loader = route.loader;
export const action = route.action;
