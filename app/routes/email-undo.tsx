import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/email-undo";
import { SubmitButton } from "~/components/forms";
import { readEmailUndo, undoEmailChange } from "~/models/email-changes.server";
import { startSession } from "~/web/auth.server";

// /email/undo/:token: the link mailed to the old address after an email change
// (docs/decisions/0039-account-safety.md). Opening it shows one button; the POST undoes the change,
// removes the password, signs the account out everywhere, then signs this browser in to choose a
// new password. Mail scanners open links with GET, so a GET changes nothing.

export async function loader({ params }: Route.LoaderArgs) {
  return readEmailUndo(params.token);
}

export async function action({ request, params }: Route.ActionArgs) {
  await request.text(); // nothing in it is needed; read so its size limit holds
  const undone = await undoEmailChange(params.token);
  if (!undone.ok) return data({ error: undone.message ?? "This link can no longer be used." }, { status: 409 });
  return redirect("/settings?done=email-undone#password", {
    status: 303,
    headers: { "Set-Cookie": await startSession(request, undone.user) },
  });
}

export default function EmailUndoPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  if (actionData?.error || loaderData.state !== "valid") {
    const title = actionData?.error
      ? "The change could not be undone"
      : loaderData.state === "expired"
        ? "This link has expired"
        : "This link does not work";
    return (
      <div className="page narrow">
        <title>{`${title} – Sweet Moments`}</title>
        <h1>{title}</h1>
        <p role={actionData?.error ? "alert" : undefined}>
          {actionData?.error ?? "Each link works once, for a week after the change."}
        </p>
        <p>
          <Link to="/login/email?reset=1">Forgot your password?</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page narrow">
      <title>Undo the email change – Sweet Moments</title>
      <h1>Undo the email change</h1>
      <p>
        Your account gets its address <strong>{loaderData.oldEmail}</strong> back. Its password is removed and every
        device signed in to it is signed out; you are then signed in here to choose a new password.
      </p>
      <Form method="post">
        <SubmitButton pending={navigation.state !== "idle"} pendingText="Undoing…">
          Undo the change and sign out everywhere
        </SubmitButton>
      </Form>
    </div>
  );
}
