import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/settings-delete";
import "~/styles/settings.css";
import { readFields } from "~/api/body.server";
import { asFormValue } from "~/forms/body.server";
import { ErrorSummary, Field, pageTitle, SubmitButton, summaryErrors, useSchemaForm } from "~/components/forms";
import { DeleteAccountSchema } from "~/forms/account";
import { accountSummary, deleteAccount, getAccount, SIGN_IN_AGAIN } from "~/models/account.server";
import { sessionStartedAt } from "~/models/sessions.server";
import { logOutHeaders, requireUser, sessionToken } from "~/web/auth.server";

// /settings/delete (docs/spec.md §2 "Delete my account"): says what goes, asks for the password
// (an account without one: a log-in within the last 10 minutes), deletes everything in one
// transaction, ends the session and goes to the home page.

const unit = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const account = await getAccount(user.id);
  if (!account) throw redirect("/login");
  const s = await accountSummary(user.id);
  return {
    hasPassword: account.has_password,
    summary: [
      `your account (${account.username}, ${account.email}) and every place you are logged in`,
      `${unit(s.kids, "kid")} and ${unit(s.moments, "moment")}, with their likes and comments`,
      `${unit(s.photos, "photo")}, your profile picture included`,
      `your likes and comments on friends' moments`,
      `${unit(s.friends, "friendship")} and every friend request you sent or received`,
    ],
  };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const raw = await readFields(request);
  const form = new FormData();
  const password = asFormValue(raw.password);
  if (password !== undefined) form.set("password", password);
  const submission = parseWithZod(form, { schema: DeleteAccountSchema });
  if (submission.status !== "success") return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
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
          <Field meta={fields.password} label="Your password" type="password" inputProps={{ autoComplete: "current-password" }} />
        ) : (
          <p>Your account has no password: deleting it works within 10 minutes of logging in.</p>
        )}
        <div className="button-row">
          <SubmitButton className="button button--danger" pending={navigation.state !== "idle"} pendingText="Deleting…">
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
      <DeleteForm hasPassword={loaderData.hasPassword} lastResult={actionData?.result} />
    </div>
  );
}
