import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/login-link";
import { SubmitButton } from "~/components/forms";
import { LINK_THEN, linkThen, readSignInLink, signInLinkPath, redeemSignInLink } from "~/models/sign-in-links.server";
import { invitationPath } from "~/models/invitations.server";
import { passkeyOfferCookie, startSession } from "~/web/auth.server";

// /login/link/:token: a sign-in link (emailed, or made by a parent for an invited relative).
// Opening it shows one button; the POST uses the link. Mail scanners and link previews open links
// with GET, so a GET never uses one up. Used, expired or unknown: a clear page, never an error.
// `?then=delete` (a link asked for on the delete page) leads back there once used;
// `?invitation=…` (a link that offers an invitation) to that invitation's page, when the link is
// the one mailed for it (the model checks).

/** Where a "Forgot your password?" link leads once used: the settings page's password form. */
export const AFTER_RESET = "/settings#password";

export async function loader({ params }: Route.LoaderArgs) {
  const link = await readSignInLink(params.token);
  return { state: link.state, reset: link.purpose === "reset" };
}

export async function action({ request, params }: Route.ActionArgs) {
  await request.text(); // nothing in it is needed; read so its size limit holds
  const search = new URL(request.url).searchParams;
  const used = await redeemSignInLink(params.token, { invitation: search.get("invitation") });
  // the page now says why: its own path (with JavaScript the request's path is the data URL, "….data")
  if (!used.ok) return redirect(signInLinkPath(encodeURIComponent(params.token)), 303);
  const then = linkThen(search.get("then"));
  const to =
    used.purpose === "reset"
      ? AFTER_RESET
      : then
        ? LINK_THEN[then]
        : used.invitation
          ? invitationPath(used.invitation)
          : "/my-kids-list";
  const headers = new Headers();
  headers.append("Set-Cookie", await startSession(request, used.user, { madeBy: used.madeBy }));
  headers.append("Set-Cookie", passkeyOfferCookie(request));
  return redirect(to, { status: 303, headers });
}

export default function LoginLinkPage({ loaderData }: Route.ComponentProps) {
  const navigation = useNavigation();
  if (loaderData.state !== "valid") {
    const title =
      loaderData.state === "used"
        ? "This sign-in link has already been used"
        : loaderData.state === "expired"
          ? "This sign-in link has expired"
          : "This sign-in link does not work";
    return (
      <div className="page narrow">
        <title>{`${title} – Sweet Moments`}</title>
        <h1>{title}</h1>
        <p>Each sign-in link works once, for a short time. You can ask for a new one.</p>
        <p>
          <Link to="/login/email" className="button button--primary">
            Email me a new sign-in link
          </Link>
        </p>
        <p>
          <Link to="/login">Log in with a password</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page narrow">
      <title>Sign in – Sweet Moments</title>
      <h1>Sign in to Sweet Moments</h1>
      <p>{loaderData.reset ? "Sign in, then choose a new password." : "This link signs you in once."}</p>
      <Form method="post">
        <SubmitButton pending={navigation.state !== "idle"} pendingText="Signing in…">
          Sign in
        </SubmitButton>
      </Form>
    </div>
  );
}
