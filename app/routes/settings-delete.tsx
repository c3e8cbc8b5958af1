import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/settings-delete";
import "~/styles/settings.css";
import { readFields } from "~/api/read-body.server";
import { asFormValue } from "~/forms/parse-body.server";
import { ErrorSummary, Field, pageTitle, SubmitButton, summaryErrors, useSchemaForm } from "~/components/forms";
import { DeleteAccountSchema } from "~/forms/account";
import { accountSummary, deleteAccount, getAccount, isFreshSignIn, SIGN_IN_AGAIN } from "~/models/account.server";
import { sessionStartedAt } from "~/models/sessions.server";
import { emailDeleteConfirmLink } from "~/models/sign-in-links.server";
import { siteOrigin } from "~/lib/config.server";
import { clientAddress, logOutHeaders, requireUser, sessionToken } from "~/web/auth.server";

// /settings/delete (docs/spec.md §2 "Delete my account"): says what goes, asks for the password
// (an account without one: a log-in within the last 10 minutes, for which the page emails a
// sign-in link that leads back here), deletes everything in one transaction, ends the session and
// goes to the home page.

const unit = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const account = await getAccount(user.id);
  if (!account) throw redirect("/login");
  const s = await accountSummary(user.id);
  return {
    hasPassword: account.has_password,
    email: account.email,
    // an account without a password may delete itself now (signed in within the last 10 minutes)
    signedInRecently: !account.has_password && isFreshSignIn(await sessionStartedAt(await sessionToken(request))),
    summary: [
      `your account (${account.username}, ${account.email}) and every place you are logged in`,
      `${unit(s.kids, "kid")} and ${unit(s.moments, "moment")}, with their likes and comments`,
      `${unit(s.photos, "photo")}, your profile picture included`,
      `your likes and comments on friends' moments`,
      `${unit(s.friends, "friendship")} and every friend request you sent or received`,
      `your invitations and sign-in links, and the emails to you, from you or about your moments`,
    ],
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request);
  const raw = await readFields(request);
  if (raw.intent === "email-link") {
    // an account without a password confirms by signing in again: a link to its address that leads back here
    const sent = await emailDeleteConfirmLink(user.id, { origin: siteOrigin(), address: clientAddress(context) });
    if (sent.ok) return redirect("/settings/delete?sent=1", 303);
    const empty = parseWithZod(new FormData(), { schema: DeleteAccountSchema });
    return data(
      { result: empty.reply({ formErrors: [sent.message ?? SIGN_IN_AGAIN] }) },
      { status: sent.kind === "too-many" ? 429 : 400 },
    );
  }
  const form = new FormData();
  const password = asFormValue(raw.password);
  if (password !== undefined) form.set("password", password);
  const submission = parseWithZod(form, { schema: DeleteAccountSchema });
  if (submission.status !== "success")
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  const deleted = await deleteAccount(user.id, {
    password: submission.value.password,
    signedInAt: await sessionStartedAt(await sessionToken(request)),
  });
  if (!deleted.ok) {
    const fieldErrors = deleted.fieldErrors ?? {};
    const formErrors = deleted.fieldErrors ? [] : [deleted.message ?? SIGN_IN_AGAIN];
    return data({ result: submission.reply({ fieldErrors, formErrors, hideFields: ["password"] }) }, { status: 400 });
  }
  return redirect("/?deleted=1", { status: 303, headers: await logOutHeaders(request) });
}

/** An account without a password: how to confirm, and the button that emails the sign-in link. */
function SignInAgain({ email, signedInRecently }: { email: string; signedInRecently: boolean }) {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  if (signedInRecently)
    return <p>You signed in a moment ago: you can delete your account now (within 10 minutes of signing in).</p>;
  return (
    <>
      <p>
        Your account has no password. To confirm that it is you, sign in again: we email a sign-in link to {email}. Open
        it, sign in, and it brings you back here, where you can delete your account within 10 minutes.
      </p>
      {params.get("sent") === "1" ? (
        <p role="status" className="notice notice--success">
          We have sent a sign-in link to {email}. It works once, for 15 minutes. Nothing arrived? Check your spam
          folder, or ask for another link.
        </p>
      ) : null}
      <Form method="post">
        <input type="hidden" name="intent" value="email-link" />
        <SubmitButton
          className="button"
          pending={navigation.state !== "idle" && navigation.formData?.get("intent") === "email-link"}
          pendingText="Sending…"
        >
          Email me a sign-in link
        </SubmitButton>
      </Form>
    </>
  );
}

function DeleteForm({ hasPassword, lastResult }: { hasPassword: boolean; lastResult?: SubmissionResult<string[]> }) {
  const id = "delete-account";
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(id, DeleteAccountSchema, lastResult);
  const errors = summaryErrors(fields as never, ["password"], form.errors, id);
  return (
    <>
      <title>{pageTitle("Delete my account", errors.length > 0)}</title>
      <ErrorSummary errors={errors} formId={id} />
      <Form method="post" {...getFormProps(form)} className="stack">
        {hasPassword ? (
          <Field
            meta={fields.password}
            label="Your password"
            type="password"
            inputProps={{ autoComplete: "current-password" }}
          />
        ) : null}
        <div className="button-row">
          <SubmitButton
            className="button button--danger"
            pending={navigation.state !== "idle" && navigation.formData?.get("intent") !== "email-link"}
            pendingText="Deleting…"
          >
            Delete my account and everything in it
          </SubmitButton>
          <Link to="/settings">Cancel</Link>
        </div>
      </Form>
    </>
  );
}

export default function DeleteAccountPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <div className="page narrow">
      <h1>Delete my account</h1>
      <p>
        This cannot be undone. <Link to="/settings">Download all your data</Link> first if you want to keep it.
      </p>
      <h2>What will be deleted</h2>
      <ul className="delete-list">
        {loaderData.summary.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <p>Your friends lose access at once. Their own kids, moments and photos stay theirs.</p>
      <p>A kid you share with a co-parent stays with them, with its moments and photos.</p>
      {loaderData.hasPassword ? null : (
        <SignInAgain email={loaderData.email} signedInRecently={loaderData.signedInRecently} />
      )}
      <DeleteForm hasPassword={loaderData.hasPassword} lastResult={actionData?.result} />
    </div>
  );
}
