import { Form, Link } from "react-router";
import type { Route } from "./+types/email-unsubscribe";
import { SubmitButton } from "~/components/forms";
import { verifyForUser } from "~/lib/tokens.server";
import { parseId } from "~/lib/request.server";
import { unsubscribeAll } from "~/models/email-preferences.server";

// /email/unsubscribe?u=<user id>&s=<signature> (docs/spec.md "Email digests"): the signed link of
// every mail about news (digests and right-away mails). GET shows one button; POST stops them all
// (every kind of news "No email"), with or without a session: it is also the
// target of List-Unsubscribe-Post (one click in the mail client, RFC 8058). A bad signature: a clear
// page, nothing changes.

function signedUser(request: Request): number | null {
  const url = new URL(request.url);
  const id = parseId(url.searchParams.get("u") ?? undefined);
  const signature = url.searchParams.get("s") ?? "";
  return id !== null && verifyForUser("unsubscribe", id, signature) ? id : null;
}

export async function loader({ request }: Route.LoaderArgs) {
  return { valid: signedUser(request) !== null, done: false };
}

export async function action({ request }: Route.ActionArgs) {
  // the body says nothing we need ("List-Unsubscribe=One-Click"), but it is read, so its size limit holds
  await request.text();
  const userId = signedUser(request);
  if (userId === null) return { valid: false, done: false };
  await unsubscribeAll(userId);
  return { valid: true, done: true };
}

export default function UnsubscribePage({ loaderData, actionData }: Route.ComponentProps) {
  const state = actionData ?? loaderData;
  if (!state.valid) {
    return (
      <div className="page narrow">
        <title>This unsubscribe link does not work – Sweet Moments</title>
        <h1>This unsubscribe link does not work</h1>
        <p>
          Check that you have the whole link, or <Link to="/settings/email">change your email settings</Link> after
          logging in.
        </p>
      </div>
    );
  }
  if (state.done) {
    return (
      <div className="page narrow">
        <title>You are unsubscribed – Sweet Moments</title>
        <h1>You are unsubscribed</h1>
        <p role="status">
          You will get no more emails about new moments, comments and replies. You can choose again in your{" "}
          <Link to="/settings/email">email settings</Link>.
        </p>
      </div>
    );
  }
  return (
    <div className="page narrow">
      <title>Unsubscribe from emails – Sweet Moments</title>
      <h1>Unsubscribe from emails</h1>
      <p>Stop the digests and the other emails about new moments, comments and replies.</p>
      <Form method="post">
        <SubmitButton>Unsubscribe</SubmitButton>
      </Form>
    </div>
  );
}
