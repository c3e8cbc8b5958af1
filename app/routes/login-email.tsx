import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation, useSearchParams, href } from "react-router";
import type { Route } from "./+types/login-email";
import { ErrorSummary, Field, pageTitle, SubmitButton, summaryErrors, useSubmitOnce } from "~/components/forms";
import { SignInLinkSchema } from "~/forms/invite";
import { requestSignInLink } from "~/models/sign-in-links.server";
import { anonymousPageLoader, clientAddress, requireAnonymous } from "~/web/auth.server";
import { siteOrigin } from "~/lib/config.server";

// /login/email: "Email me a sign-in link", and with ?reset=1 "Forgot your password?" (the same
// link; afterwards the user is sent to set a new password). The answer is the same whether or not
// the address has an account (docs/spec.md "Sign-in links").

export const loader = anonymousPageLoader;

export async function action({ request, context }: Route.ActionArgs) {
  await requireAnonymous(request);
  const form = await request.formData();
  const reset = form.get("reset") === "1";
  const submission = parseWithZod(form, { schema: SignInLinkSchema });
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400 });
  await requestSignInLink(submission.value.email, { reset, origin: siteOrigin(), address: clientAddress(context) });
  return redirect(`${href("/login/email")}?sent=1${reset ? "&reset=1" : ""}`, 303);
}

export default function LoginEmailPage({ actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const reset = params.get("reset") === "1";
  const sent = params.get("sent") === "1";
  const navigation = useNavigation();
  // with JavaScript a double click sends one request (one email)
  const once = useSubmitOnce(navigation.state !== "idle");
  const [form, fields] = useForm({
    id: "sign-in-link-form",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInLinkSchema }),
  });
  const title = reset ? "Forgot your password?" : "Email me a sign-in link";
  const errors = summaryErrors(fields as never, ["email"], form.errors, form.id);
  if (sent) {
    return (
      <div className="page narrow">
        <title>Check your email – Sweet Moments</title>
        <h1>Check your email</h1>
        <p role="status">
          If an account uses that address, we have sent it a sign-in link. It works once, for 15 minutes.
          {reset ? " Once signed in, you can choose a new password." : ""}
        </p>
        <p>
          Nothing arrived? Check your spam folder, or{" "}
          <Link to={reset ? "/login/email?reset=1" : "/login/email"}>ask for another link</Link>.
        </p>
        <p>
          <Link to="/login">Back to Log In</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page narrow">
      <title>{pageTitle(title, errors.length > 0)}</title>
      <h1>{title}</h1>
      <p>
        {reset
          ? "Enter your email address and we will send you a link that signs you in, so you can choose a new password."
          : "No password needed: enter your email address and we will send you a link that signs you in."}
      </p>
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="post" {...once(getFormProps(form))} className="stack">
        {reset ? <input type="hidden" name="reset" value="1" /> : null}
        <Field
          meta={fields.email}
          label="Email"
          type="email"
          inputProps={{ autoComplete: "email", spellCheck: false }}
        />
        <SubmitButton pending={navigation.state !== "idle"} pendingText="Sending…">
          Email me a sign-in link
        </SubmitButton>
      </Form>
      <p>
        <Link to="/login">Back to Log In</Link>
      </p>
    </div>
  );
}
