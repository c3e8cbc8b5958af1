import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useLocation, useNavigation, href } from "react-router";
import type { Route } from "./+types/invite";
import {
  ErrorSummary,
  Field,
  pageTitle,
  SubmissionToken,
  SubmitButton,
  summaryErrors,
  useSubmitOnce,
} from "~/components/forms";
import { SUBMISSION_FIELD } from "~/forms/submission";
import { JoinSchema } from "~/forms/invite";
import { PASSWORD_HINT } from "~/forms/people";
import { acceptInvitation, declineInvitation } from "~/models/invitation-answers.server";
import { joinByInvitation } from "~/models/invitation-join.server";
import { invitationPath, inviterOfLink, joinedPath, readInvitation } from "~/models/invitations.server";
import { clientAddress, getUser, passkeyOfferCookie, startSession } from "~/web/auth.server";
import { siteOrigin } from "~/lib/config.server";
import { withinLimit } from "~/lib/limits.server";
import { refusalStatus } from "~/web/refusal.server";
import { refusalMessage } from "~/api/refusal.server";
import { kidsOfInvitationLink } from "~/models/invitation-kids.server";
import { coParentOfText } from "~/mail/messages.server";
import { listText } from "~/lib/names";

// /invite/:token (docs/spec.md "Invitations"). Signed out: who invited you and a short form (name,
// email, optional password) → account, signed in, friend of the inviter. Signed in: "Accept".
// Signed in as the account an answer with its address offered the invitation to: what accepting
// does, "Accept" and "Decline" (only Accept makes the friendship). Joining or accepting lands on
// the feed, which welcomes them with what they see (app/routes/feed.tsx).
// A used, expired, revoked or unknown link: a clear page (200), never an error.

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await getUser(request);
  const link = await readInvitation(params.token, user?.id ?? null);
  // what else accepting does, while it can be answered (docs/decisions/0060-co-parent-invitations.md)
  const answerable = link.state === "pending" || link.state === "offered";
  const coParentKids = answerable ? (await kidsOfInvitationLink(params.token)).map((k) => k.name) : [];
  return {
    coParentOf: coParentOfText(link.inviterName ?? "", coParentKids),
    coParentKids: listText(coParentKids),
    state: link.state,
    inviterName: link.inviterName,
    note: link.note,
    // the address it was emailed to starts the join form (signed out only)
    email: user ? null : link.email,
    sees: link.sees,
    own: Boolean(user && user.id === link.inviterId),
    signedIn: user !== null,
  };
}

const TOO_MANY = "Too many attempts from your network. Try again in a few minutes.";

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  const user = await getUser(request);
  // the page's own path, to say why a link no longer works (with JavaScript the request's path is the data URL, "….data")
  const here = invitationPath(encodeURIComponent(params.token));
  if (user) {
    if (form.get("intent") === "decline") {
      await declineInvitation(user.id, params.token);
      return redirect(here, 303); // declined, or no longer the viewer's to decline: the page now says which
    }
    const accepted = await acceptInvitation(user.id, params.token, { token: form.get(SUBMISSION_FIELD) });
    if (accepted.ok) return redirect(joinedPath(await inviterOfLink(params.token)), 303);
    if (accepted.kind === "conflict") return redirect(here, 303); // the page now says why
    return data({ result: undefined, error: refusalMessage(accepted) }, { status: refusalStatus(accepted) });
  }
  const submission = parseWithZod(form, { schema: JoinSchema });
  if (submission.status !== "success")
    return data({ result: submission.reply({ hideFields: ["password"] }), error: null }, { status: 400 });
  if (!(await withinLimit("inviteAnswersPerAddress", clientAddress(context)))) {
    return data(
      { result: submission.reply({ formErrors: [TOO_MANY], hideFields: ["password"] }), error: null },
      { status: 429 },
    );
  }
  const joined = await joinByInvitation(params.token, submission.value, siteOrigin(), {
    token: form.get(SUBMISSION_FIELD),
    address: clientAddress(context),
  });
  if (!joined.ok) return redirect(here, 303);
  if (joined.outcome === "check-email") return redirect("/login/email?sent=1", 303);
  const headers = new Headers();
  headers.append("Set-Cookie", await startSession(request, joined.user));
  headers.append("Set-Cookie", passkeyOfferCookie(request));
  // a relative lands on the family's moments (docs/decisions/0059-the-circle-a-relationship-implies.md)
  return redirect(joinedPath(await inviterOfLink(params.token)), { status: 303, headers });
}

const GONE: Record<string, { title: string; text: string }> = {
  accepted: {
    title: "This invitation has already been used",
    text: "Each invitation link works once. If it was you who used it, log in; otherwise ask the person who invited you for a new link.",
  },
  used: {
    title: "This invitation has already been used",
    text: "Each invitation link works once. If it was answered with your email address, log in and open this link again to accept or decline it; otherwise ask the person who invited you for a new link.",
  },
  declined: {
    title: "You declined this invitation",
    text: "Nothing changed: you are not friends with the person who invited you. If you change your mind, ask them for a new link.",
  },
  expired: { title: "This invitation has expired", text: "Ask the person who invited you for a new link." },
  revoked: {
    title: "This invitation was withdrawn",
    text: "The person who made it has withdrawn it. Ask them for a new link.",
  },
  unknown: {
    title: "This invitation link does not work",
    text: "Check that you have the whole link, or ask the person who invited you for a new one.",
  },
};

function JoinForm({ lastResult, email }: { lastResult?: SubmissionResult<string[]>; email: string | null }) {
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "join-form",
    lastResult,
    defaultValue: email ? { email } : undefined,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: JoinSchema }),
  });
  const errors = summaryErrors(fields as never, ["name", "email", "password"], form.errors, form.id);
  const once = useSubmitOnce(navigation.state !== "idle");
  return (
    <>
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="post" {...once(getFormProps(form))} className="stack">
        <SubmissionToken />
        <Field meta={fields.name} label="Your name" inputProps={{ autoComplete: "name" }} />
        <Field
          meta={fields.email}
          label="Your email address"
          type="email"
          hint={
            email
              ? "The address this invitation was sent to. We send a sign-in link there when you need one."
              : "To send you a sign-in link when you need one."
          }
          inputProps={{ autoComplete: "email", spellCheck: false }}
        />
        <Field
          meta={fields.password}
          label="Password (optional)"
          type="password"
          hint={`Leave it empty to sign in by emailed links. ${PASSWORD_HINT}`}
          inputProps={{ autoComplete: "new-password" }}
        />
        <SubmitButton pending={navigation.state !== "idle"} pendingText="Joining…">
          Join and see the photos
        </SubmitButton>
      </Form>
    </>
  );
}

export default function InvitePage({ loaderData, actionData }: Route.ComponentProps) {
  const { state, inviterName, note, email, sees, own, signedIn, coParentOf, coParentKids } = loaderData;
  const andCoParent = coParentKids ? ` and co-parent ${coParentKids}` : "";
  const navigation = useNavigation();
  const location = useLocation();
  const once = useSubmitOnce(navigation.state !== "idle");
  const answering = navigation.state !== "idle" ? navigation.formData?.get("intent") : null;
  if (state !== "pending" && state !== "offered") {
    const gone = GONE[state] ?? GONE.unknown!;
    return (
      <div className="page narrow">
        <title>{`${gone.title} – Sweet Moments`}</title>
        <h1>{gone.title}</h1>
        <p>{gone.text}</p>
        <p>
          <Link
            to={
              signedIn ? href("/my-kids-list") : `${href("/login")}?redirectTo=${encodeURIComponent(location.pathname)}`
            }
          >
            {signedIn ? "Go to My Kids" : "Log in"}
          </Link>
        </p>
      </div>
    );
  }
  const heading = `${inviterName} invited you to Sweet Moments`;
  const hasErrors = Boolean(actionData?.result && "error" in actionData.result && actionData.result.error);
  return (
    <div className="page narrow">
      <title>{pageTitle(heading, hasErrors)}</title>
      <h1>{heading}</h1>
      <p>
        A private family album: {inviterName} shares photos and little moments of their kids with the people they
        choose.
        {sees && !own && state === "pending"
          ? ` You will see the moments ${inviterName} shares with ${sees.youSee}.`
          : ""}
      </p>
      {coParentOf ? <p className="notice">{coParentOf}</p> : null}
      {note ? (
        <figure className="invite-note">
          <blockquote>{note}</blockquote>
          <figcaption>{inviterName}</figcaption>
        </figure>
      ) : null}
      {actionData?.error ? (
        <p className="notice notice--error" role="alert">
          {actionData.error}
        </p>
      ) : null}
      {own ? (
        <p>This is your own invitation: send the link to the person you want to invite.</p>
      ) : state === "offered" ? (
        <>
          <p>
            Someone answered this invitation with your email address. If you accept, you and {inviterName} become
            friends: you see the moments {inviterName} shares with {sees?.youSee}, and {inviterName} sees the moments
            you share with {sees?.inviterSees}. Nothing changes unless you accept.
          </p>
          <Form method="post" {...once()} className="button-row">
            <SubmissionToken />
            <SubmitButton name="intent" value="accept" pending={answering === "accept"} pendingText="Accepting…">
              Accept: become friends with {inviterName}
              {andCoParent}
            </SubmitButton>
            <SubmitButton
              name="intent"
              value="decline"
              className="button button--secondary"
              pending={answering === "decline"}
              pendingText="Declining…"
            >
              Decline
            </SubmitButton>
          </Form>
        </>
      ) : signedIn ? (
        <Form method="post" {...once()}>
          <SubmissionToken />
          <SubmitButton pending={navigation.state !== "idle"} pendingText="Accepting…">
            Accept: become friends with {inviterName}
            {andCoParent}
          </SubmitButton>
        </Form>
      ) : (
        <>
          <JoinForm lastResult={actionData?.result} email={email} />
          <p>
            Already have an account?{" "}
            <Link to={`${href("/login")}?redirectTo=${encodeURIComponent(location.pathname)}`}>Log in</Link> and open
            this link again.
          </p>
        </>
      )}
    </div>
  );
}
