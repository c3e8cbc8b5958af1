import { createCookie, data, redirect, type Cookie, type MiddlewareFunction } from "react-router";
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { config, siteOrigin } from "~/lib/config.server";
import { parseId } from "~/lib/request.server";
import { InviteSchema } from "~/forms/invite";
import type { Circle } from "~/forms/circles";
import { SUBMISSION_FIELD } from "~/forms/submission";
import { createInvitation, revokeInvitation } from "~/models/invitations.server";
import { createFriendSignInLink } from "~/models/sign-in-links.server";
import type { User } from "~/models/users.server";
import { refusalMessage, refusalStatus } from "~/api/refusal.server";

// The friends page's invitation forms (docs/spec.md "Invitations"): create, revoke, and make a
// sign-in link for a friend who joined by invitation. A new link is shown once: the token is not
// stored, so after the redirect (post, redirect, get) the page reads it from a short-lived signed
// cookie that the page's loader clears at once.

export const FRIENDS_PATH = "/current/friends";

export type LinkFlash = {
  kind: "invitation" | "sign-in";
  url: string;
  expiresAt: string;
  who: string | null;
  circle?: Circle;
};

let flashCookie: { secret: string; cookie: Cookie } | null = null;
function cookie(): Cookie {
  const secret = config().sessionSecret;
  if (flashCookie?.secret !== secret) {
    flashCookie = {
      secret,
      // path /current: the page (/current/friends) and its data requests (/current/friends.data)
      cookie: createCookie("sm_new_link", {
        httpOnly: true,
        sameSite: "lax",
        path: "/current",
        maxAge: 600,
        secrets: [secret],
      }),
    };
  }
  return flashCookie.cookie;
}

/** The link made by the last post, if any (linkFlashMiddleware forgets it after this answer). */
export async function readLinkFlash(request: Request): Promise<LinkFlash | null> {
  const header = request.headers.get("Cookie");
  if (!header?.includes("sm_new_link=")) return null;
  const value = (await cookie().parse(header)) as LinkFlash | null;
  return value && typeof value.url === "string" ? value : null;
}

/** On the page that shows a new link: a GET that carried it answers with the cookie cleared. */
export const linkFlashMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  const response = await next();
  if (
    request.method === "GET" &&
    request.headers.get("Cookie")?.includes("sm_new_link=") &&
    !response.headers.has("Set-Cookie")
  ) {
    response.headers.append("Set-Cookie", await cookie().serialize("", { maxAge: 0, expires: new Date(0) }));
  }
  return response;
};

async function showLink(flash: LinkFlash) {
  return redirect(`${FRIENDS_PATH}#new-link`, {
    status: 303,
    headers: { "Set-Cookie": await cookie().serialize(flash) },
  });
}

export type InvitationActionData = { inviteResult?: SubmissionResult<string[]>; error?: string };

/** The invitation intents of the friends page's action; null for any other intent. */
export async function invitationAction(user: User, form: FormData) {
  const intent = form.get("intent");
  if (intent === "invite") {
    const submission = parseWithZod(form, { schema: InviteSchema });
    if (submission.status !== "success")
      return data<InvitationActionData>({ inviteResult: submission.reply() }, { status: 400 });
    const made = await createInvitation(user, submission.value, siteOrigin(), { token: form.get(SUBMISSION_FIELD) });
    if (!made.ok)
      return data<InvitationActionData>(
        {
          // a kid that is not the parent's own is the field's error; anything else the form's
          inviteResult: made.fieldErrors
            ? submission.reply({ fieldErrors: made.fieldErrors })
            : submission.reply({ formErrors: [refusalMessage(made)] }),
        },
        { status: refusalStatus(made) },
      );
    return showLink({
      kind: "invitation",
      url: made.url,
      expiresAt: made.invitation.expiresAt,
      who: made.invitation.email,
      circle: made.invitation.circle,
    });
  }
  if (intent === "revoke-invite") {
    const id = parseId(typeof form.get("invitationId") === "string" ? String(form.get("invitationId")) : undefined);
    const result = id === null ? null : await revokeInvitation(user.id, id);
    if (!result?.ok)
      return data<InvitationActionData>(
        { error: "That invitation has changed in the meantime. The lists below are up to date." },
        { status: result ? refusalStatus(result) : 400 },
      );
    return redirect(`${FRIENDS_PATH}#invitations`, 303);
  }
  if (intent === "friend-link") {
    const made = await createFriendSignInLink(user.id, form.get("friendId"), siteOrigin());
    if (!made.ok) return data<InvitationActionData>({ error: refusalMessage(made) }, { status: refusalStatus(made) });
    return showLink({
      kind: "sign-in",
      url: made.url,
      expiresAt: made.expiresAt,
      who: typeof form.get("friendName") === "string" ? String(form.get("friendName")).slice(0, 80) : null,
    });
  }
  return null;
}
