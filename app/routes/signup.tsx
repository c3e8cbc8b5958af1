import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect, useSearchParams } from "react-router";
import type { Route } from "./+types/signup";
import { SignupForm } from "~/components/auth-forms";
import {
  anonymousPageLoader,
  checkSignupAllowed,
  clientAddress,
  LoginError,
  requireAnonymousPost,
  signedInDestination,
  startSession,
} from "~/web/auth.server";
import { safeRedirectPath } from "~/lib/redirect";
import { LegacySignupSchema, SignupSchema } from "~/forms/auth";
import { signUp } from "~/models/users.server";
import { SUBMISSION_FIELD } from "~/forms/submission";

export const loader = anonymousPageLoader;

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await requireAnonymousPost(request, form);
  const variant = form.get("variant") === "modal" ? "modal" : "page";
  const submission = parseWithZod(form, { schema: variant === "modal" ? SignupSchema : LegacySignupSchema });
  if (submission.status !== "success") {
    return data(
      { result: submission.reply({ hideFields: ["password", "confirmPassword"] }), variant },
      { status: 400 },
    );
  }
  try {
    await checkSignupAllowed(clientAddress(context));
  } catch (error) {
    if (!(error instanceof LoginError)) throw error;
    const result = submission.reply({ fieldErrors: error.fieldErrors, hideFields: ["password", "confirmPassword"] });
    return data({ result, variant }, { status: error.status, headers: error.headers });
  }
  const created = await signUp(submission.value, { token: form.get(SUBMISSION_FIELD) });
  if (!created.ok) {
    return data(
      {
        result: submission.reply({ fieldErrors: created.fieldErrors, hideFields: ["password", "confirmPassword"] }),
        variant,
      },
      { status: 400 },
    );
  }
  return redirect(signedInDestination(form), { headers: { "Set-Cookie": await startSession(request, created.user) } });
}

export default function SignupPage({ actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const redirectTo = safeRedirectPath(params.get("redirectTo"));
  const variant = actionData?.variant === "modal" ? "modal" : "page";
  return (
    <div className="page narrow">
      <h1>{variant === "modal" ? "Create your account" : "Sign Up"}</h1>
      {variant === "modal" ? <p>Registration is easy</p> : null}
      <SignupForm
        id={`signup-${variant}`}
        title={variant === "modal" ? "Create your account" : "Sign Up"}
        variant={variant}
        lastResult={actionData?.result}
        redirectTo={redirectTo}
      />
      <p>
        Already have an account? <Link to="/login">Log in</Link>
      </p>
    </div>
  );
}
