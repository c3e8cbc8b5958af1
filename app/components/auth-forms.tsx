import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link, useFetcher, useNavigation } from "react-router";
import {
  ErrorSummary,
  Field,
  pageTitle,
  SubmissionToken,
  SubmitButton,
  summaryErrors,
  useErrorTitle,
  useSubmitOnce,
} from "./forms";
import { LegacySignupSchema, LoginSchema, SignupSchema } from "~/forms/auth";
import { PASSWORD_HINT } from "~/forms/people";
import { PasskeySignIn, usePasskeyAutofill } from "./passkeys";

export type AuthActionData = { result: SubmissionResult<string[]>; variant: string } | undefined;

/** Log In: the modal and the page share it. In the modal (`inModal`) it posts through a fetcher. */
export function LoginForm({
  id,
  lastResult,
  redirectTo,
  demo,
  inModal = false,
  title,
}: {
  id: string;
  lastResult?: SubmissionResult<string[]>;
  redirectTo?: string | null;
  demo: boolean;
  inModal?: boolean;
  /** When the form is the page, it owns the page title ("Error: " prefix while it has errors). */
  title?: string;
}) {
  const fetcher = useFetcher<AuthActionData>({ key: id });
  const navigation = useNavigation();
  const result = inModal ? (fetcher.data?.result ?? lastResult) : lastResult;
  const [form, fields] = useForm({
    id,
    lastResult: result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LoginSchema }),
  });
  const FormTag = inModal ? fetcher.Form : Form;
  const pending = inModal
    ? fetcher.state !== "idle"
    : navigation.state !== "idle" && navigation.formAction === "/login";
  const once = useSubmitOnce(inModal ? fetcher.state !== "idle" : navigation.state !== "idle");
  const errors = summaryErrors(fields as never, ["email", "password"], form.errors, id);
  useErrorTitle(!title && errors.length > 0);
  // the page (not the modal) offers passkeys in the email field's suggestions where the browser can
  const autofill = usePasskeyAutofill(!inModal);

  return (
    <>
      {title ? <title>{pageTitle(title, errors.length > 0)}</title> : null}
      <ErrorSummary errors={errors} formId={id} />
      <FormTag method="post" action="/login" {...once(getFormProps(form))} className="stack">
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <Field
          meta={fields.email}
          label="Email"
          type="email"
          inputProps={{ autoComplete: autofill ? "username webauthn" : "email", spellCheck: false }}
        />
        <Field
          meta={fields.password}
          label="Password"
          type="password"
          inputProps={{ autoComplete: "current-password" }}
        />
        <SubmitButton pending={pending && !isDemo(fetcher.formData ?? navigation.formData)} pendingText="Logging in…">
          Log In
        </SubmitButton>
      </FormTag>
      <p className="login-links">
        <Link to="/login/email">Email me a sign-in link</Link> ·{" "}
        <Link to="/login/email?reset=1">Forgot your password?</Link>
      </p>
      {demo ? (
        <FormTag method="post" action="/login" className="demo-form" {...once()}>
          <input type="hidden" name="intent" value="demo" />
          {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
          <button type="submit" className="button button--secondary">
            {pending && isDemo(fetcher.formData ?? navigation.formData) ? "Logging in…" : "Demo User"}
          </button>
        </FormTag>
      ) : null}
      {/* last: it appears only once the page's scripts run, so nothing above it moves under a finger */}
      <PasskeySignIn redirectTo={redirectTo} autofill={autofill} />
    </>
  );
}

function isDemo(formData: FormData | undefined): boolean {
  return formData?.get("intent") === "demo";
}

/** Sign Up: "modal" is the "Create your account" form; "page" the older standalone page. */
export function SignupForm({
  id,
  variant,
  lastResult,
  redirectTo,
  inModal = false,
  title,
}: {
  id: string;
  variant: "modal" | "page";
  lastResult?: SubmissionResult<string[]>;
  redirectTo?: string | null;
  inModal?: boolean;
  title?: string;
}) {
  const fetcher = useFetcher<AuthActionData>({ key: id });
  const navigation = useNavigation();
  const result = inModal ? (fetcher.data?.result ?? lastResult) : lastResult;
  const schema = variant === "modal" ? SignupSchema : LegacySignupSchema;
  const [form, fields] = useForm({
    id,
    lastResult: result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const FormTag = inModal ? fetcher.Form : Form;
  const pending = inModal
    ? fetcher.state !== "idle"
    : navigation.state !== "idle" && navigation.formAction === "/signup";
  const once = useSubmitOnce(inModal ? fetcher.state !== "idle" : navigation.state !== "idle");
  const order =
    variant === "modal"
      ? ["email", "username", "first_name", "last_name", "password", "confirmPassword"]
      : ["email", "username", "password", "confirmPassword"];
  const f = fields as unknown as Record<string, Parameters<typeof Field>[0]["meta"]>;

  const errors = summaryErrors(fields as never, order, form.errors, id);
  useErrorTitle(!title && errors.length > 0);
  return (
    <>
      {title ? <title>{pageTitle(title, errors.length > 0)}</title> : null}
      <ErrorSummary errors={errors} formId={id} />
      <FormTag method="post" action="/signup" {...once(getFormProps(form))} className="stack">
        <input type="hidden" name="variant" value={variant} />
        <SubmissionToken />
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <Field meta={f.email!} label="Email" type="email" inputProps={{ autoComplete: "email", spellCheck: false }} />
        <Field meta={f.username!} label="Username" inputProps={{ autoComplete: "username", spellCheck: false }} />
        {variant === "modal" ? (
          <>
            <Field meta={f.first_name!} label="First name" inputProps={{ autoComplete: "given-name" }} />
            <Field meta={f.last_name!} label="Last name" inputProps={{ autoComplete: "family-name" }} />
          </>
        ) : null}
        <Field
          meta={f.password!}
          label="Password"
          type="password"
          hint={PASSWORD_HINT}
          inputProps={{ autoComplete: "new-password" }}
        />
        <Field
          meta={f.confirmPassword!}
          label="Confirm password"
          type="password"
          inputProps={{ autoComplete: "new-password" }}
        />
        <SubmitButton pending={pending} pendingText="Registering…">
          {variant === "modal" ? "Register" : "Sign Up"}
        </SubmitButton>
      </FormTag>
    </>
  );
}
