import { href } from "react-router";
import type { InvitationRow, InvitedAccountRow, SignInLinkRow, UserRow } from "~/lib/tables";
import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import { hashLinkToken, looksLikeLinkToken, newLinkToken } from "~/lib/tokens.server";
import { withinLimit } from "~/lib/limits.server";
import { enqueueMail } from "~/mail/queue.server";
import { signInLinkMail } from "~/mail/messages.server";
import { relativeLinksOpen, requireInvitedFriend } from "./access.server";
import { displayName } from "~/lib/names";
import { parseUserId } from "./friendships.server";
import { conflict, notFound, tooMany, type Result } from "./refusal";
import { getUserById, normalizeEmail, type User } from "./users.server";
import { deleteLinkSessions } from "./sessions.server";

// Sign-in links (docs/decisions/0026-invitations-and-sign-in-links.md): single-use,
// only the token's sha256 stored. Three purposes: "sign-in" (emailed, "Email me a sign-in link"),
// "reset" (emailed, "Forgot your password?": afterwards the user is sent to set a new password),
// "friend" (made by a parent for a relative whose account their invitation made, shown like an
// invitation link, valid INVITE_DAYS; only while requireInvitedFriend allows, when made and when
// used: docs/decisions/0039-account-safety.md).

export type LinkPurpose = "sign-in" | "reset" | "friend";
export const EMAILED_LINK_MINUTES = 15;

export const SIGN_IN_LINK_MESSAGES = {
  unusable: "This sign-in link has already been used or has expired.",
  tooManyFriendLinks: "You have made as many links as one person may in a day. Try again tomorrow.",
} as const;

/**
 * The link's path for a token; `then: "delete"` leads to the account's delete page once used (a
 * password-less account confirms its deletion by signing in again: docs/spec.md "Delete my account").
 */
export const signInLinkPath = (token: string, then?: LinkThen) =>
  `${href("/login/link/:token", { token })}${then ? `?then=${then}` : ""}`;

/** Where a used link may lead besides the default (a fixed list: never a URL from the request). */
export type LinkThen = "delete";
export const LINK_THEN: Record<LinkThen, string> = { delete: "/settings/delete" };
export function linkThen(value: string | null): LinkThen | undefined {
  return value === "delete" ? value : undefined;
}

/**
 * The path of an emailed link that offers an invitation (app/models/invitations.server.ts): once
 * used it leads to that invitation's page, `/invite/{invitationToken}`, to Accept or Decline it.
 * The invitation's token rides in the URL because only its hash is stored; the link row names the
 * invitation, so redeemSignInLink leads nowhere else.
 */
export const invitationSignInPath = (token: string, invitationToken: string) =>
  `${href("/login/link/:token", { token })}?invitation=${invitationToken}`;

/** A new link row on `conn`; answers the token (shown once, never stored). */
export async function insertSignInLink(
  conn: Db,
  input: {
    userId: number;
    purpose: LinkPurpose;
    ttlMs: number;
    createdBy?: number | null;
    invitationId?: number | null;
  },
): Promise<{ id: number; token: string; expiresAt: string }> {
  const { token, hash } = newLinkToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + input.ttlMs).toISOString();
  const id = insertedId(
    await conn("sign_in_links")
      .insert({
        user_id: input.userId,
        token_hash: hash,
        purpose: input.purpose,
        created_by: input.createdBy ?? null,
        invitation_id: input.invitationId ?? null,
        created_at: now.toISOString(),
        expires_at: expiresAt,
      })
      .returning("id"),
  );
  return { id, token, expiresAt };
}

const userIdByEmail = query<{ email: string }, Pick<UserRow, "id" | "email" | "is_demo">>((p, k) =>
  k("users").where("email_normalized", p("email")).first("id", "email", "is_demo"),
);

/**
 * "Email me a sign-in link" / "Forgot your password?": when an account has this address (and the
 * limits allow), a link is queued to it. Always answers the same, found or not, limited or not:
 * nothing here tells whether an address has an account.
 */
export async function requestSignInLink(
  emailInput: string,
  opts: { reset: boolean; origin: string; address: string },
): Promise<void> {
  const email = normalizeEmail(emailInput);
  if (!(await linkWithinLimits(email, opts.address))) return;
  const user = await userIdByEmail.first({ email });
  if (!user || user.is_demo === 1) return;
  await queueEmailedLink({ id: user.id, email: user.email }, { reset: opts.reset, origin: opts.origin });
}

/** One more emailed link to `email` (normalised) asked from the client `address`: within both limits? Counts it. */
export async function linkWithinLimits(email: string, address: string): Promise<boolean> {
  const perAccount = await withinLimit("signInLinkPerAccount", email);
  const perAddress = await withinLimit("signInLinkPerAddress", address);
  return perAccount && perAddress;
}

async function queueEmailedLink(
  user: { id: number; email: string },
  opts: { reset: boolean; origin: string; then?: LinkThen },
): Promise<void> {
  await writeTransaction(async (trx) => {
    const link = await insertSignInLink(trx, {
      userId: user.id,
      purpose: opts.reset ? "reset" : "sign-in",
      ttlMs: EMAILED_LINK_MINUTES * 60_000,
    });
    const mail = signInLinkMail({
      to: user.email,
      url: opts.origin + signInLinkPath(link.token, opts.then),
      reset: opts.reset,
      deleting: opts.then === "delete",
    });
    await enqueueMail(trx, { ...mail, users: [user.id] });
  });
}

export const DELETE_LINK_TOO_MANY =
  "You have asked for as many sign-in links as one may for now. Try again in an hour.";

/**
 * "Email me a sign-in link" on the delete page of a signed-in account without a password: a link to
 * its own address that signs in again and leads back to the delete page, where the fresh sign-in
 * confirms the deletion (FRESH_SIGN_IN_MS, app/models/account.server.ts). Same limits as any
 * emailed link. Refused: not-found, too-many.
 */
export async function emailDeleteConfirmLink(
  userId: number,
  opts: { origin: string; address: string },
): Promise<Result<{ email: string }>> {
  const user = await getUserById(userId);
  if (!user) return notFound("User not found");
  if (!(await linkWithinLimits(normalizeEmail(user.email), opts.address))) return tooMany(DELETE_LINK_TOO_MANY);
  // biome-ignore lint/suspicious/noThenProperty: an option named "then" in a plain options object, never awaited
  await queueEmailedLink({ id: user.id, email: user.email }, { reset: false, origin: opts.origin, then: "delete" });
  return { ok: true, email: user.email };
}

/**
 * A parent makes a fresh sign-in link for `friendIdInput`, a relative who joined by the parent's
 * invitation and has no password (the access module decides: requireInvitedFriend). Counted with
 * the parent's invitations per day.
 */
export async function createFriendSignInLink(
  viewerId: number,
  friendIdInput: unknown,
  origin: string,
): Promise<Result<{ url: string; expiresAt: string; friendId: number }>> {
  const friendId = parseUserId(friendIdInput);
  if (friendId === null) return notFound("Friend not found");
  const grant = await requireInvitedFriend(viewerId, friendId);
  if (!grant.ok) return grant;
  if (!(await withinLimit("invitesPerUser", String(viewerId))))
    return tooMany(SIGN_IN_LINK_MESSAGES.tooManyFriendLinks);
  const link = await writeTransaction((trx) =>
    insertSignInLink(trx, {
      userId: friendId,
      purpose: "friend",
      ttlMs: config().inviteDays * 24 * 60 * 60_000,
      createdBy: viewerId,
    }),
  );
  return { ok: true, url: origin + signInLinkPath(link.token), expiresAt: link.expiresAt, friendId };
}

export type LinkState = "valid" | "used" | "expired" | "unknown";

type Link = Pick<
  SignInLinkRow,
  "id" | "user_id" | "purpose" | "expires_at" | "used_at" | "invitation_id" | "created_by"
>;

const linkByHash = query<{ hash: string }, Link>((p, k) =>
  k("sign_in_links")
    .where("token_hash", p("hash"))
    .first("id", "user_id", "purpose", "expires_at", "used_at", "invitation_id", "created_by"),
);

function stateOf(row: Link | undefined, now = nowIso()): LinkState {
  if (!row) return "unknown";
  if (row.used_at) return "used";
  return row.expires_at <= now ? "expired" : "valid";
}

/** What a link is, without using it (the page that offers "Sign in"). */
export async function readSignInLink(
  token: string | undefined,
): Promise<{ state: LinkState; purpose: LinkPurpose | null }> {
  if (!looksLikeLinkToken(token)) return { state: "unknown", purpose: null };
  const row = await linkByHash.first({ hash: hashLinkToken(token) });
  return { state: stateOf(row), purpose: row ? row.purpose : null };
}

const invitationHash = query<{ id: number }, Pick<InvitationRow, "token_hash">>((p, k) =>
  k("invitations").where("id", p("id")).first("token_hash"),
);

/**
 * Uses a link: once, before it expires (the conditional UPDATE is the single use, so two clicks
 * at once sign in once). Answers the user and the purpose, and for a link that offers an
 * invitation (invitationSignInPath) that invitation's token when `opts.invitation` is it: the page
 * to go to next. Using the link makes no friendship: only the invitation page's Accept does.
 */
export async function redeemSignInLink(
  token: string | undefined,
  opts: { invitation?: string | null } = {},
): Promise<Result<{ user: User; purpose: LinkPurpose; invitation: string | null; madeBy: number | null }>> {
  if (!looksLikeLinkToken(token)) return conflict(SIGN_IN_LINK_MESSAGES.unusable);
  const hash = hashLinkToken(token);
  const used = await writeTransaction(async (trx) => {
    const now = nowIso();
    const changed = await trx("sign_in_links")
      .where("token_hash", hash)
      .whereNull("used_at")
      .andWhere("expires_at", ">", now)
      .update({ used_at: now });
    if (changed !== 1) return null;
    const row = (await linkByHash.first({ hash }, { conn: trx }))!;
    const userId = row.user_id;
    if (row.purpose === "friend") {
      // a link made before the relative set a password, proved their email or turned links off
      // (or before the friendship ended) signs no one in: the rule is asked again now
      if (!row.created_by || !(await requireInvitedFriend(row.created_by, userId, trx)).ok) return null;
    } else {
      // an emailed link proves the mailbox: the parent no longer stands in for it
      await closeRelativeLinks(trx, userId);
    }
    const offered =
      row.invitation_id && looksLikeLinkToken(opts.invitation ?? undefined)
        ? await invitationHash.first({ id: row.invitation_id }, { conn: trx })
        : null;
    const invitation = offered && offered.token_hash === hashLinkToken(opts.invitation!) ? opts.invitation! : null;
    // the other emailed links of this account stop working too: one sign-in per request
    await trx("sign_in_links")
      .where("user_id", userId)
      .whereNull("used_at")
      .whereNot("purpose", "friend")
      .update({ used_at: now });
    return {
      userId,
      purpose: row.purpose,
      invitation,
      madeBy: row.purpose === "friend" ? row.created_by : null,
    };
  });
  if (!used) return conflict(SIGN_IN_LINK_MESSAGES.unusable);
  const user = await getUserById(used.userId);
  if (!user) return conflict(SIGN_IN_LINK_MESSAGES.unusable);
  return { ok: true, user, purpose: used.purpose, invitation: used.invitation, madeBy: used.madeBy };
}

// ---- links made for a relative, as the relative sees them ---------------------------------------

/**
 * On `conn`: links made by a parent for this account stop for good (a password set, a mailbox
 * proven, or the relative's own choice), every such link not yet used stops working now, and every
 * session such a link started ends (but `keepToken`'s).
 */
export async function closeRelativeLinks(conn: Db, userId: number, keepToken: string | null = null): Promise<void> {
  const now = nowIso();
  // and whoever is signed in by such a link is signed out
  await deleteLinkSessions(conn, userId, keepToken);
  await conn("invited_accounts").where("user_id", userId).whereNull("links_closed_at").update({ links_closed_at: now });
  await conn("sign_in_links")
    .where({ user_id: userId, purpose: "friend" })
    .whereNull("used_at")
    .andWhere("expires_at", ">", now)
    .update({ expires_at: now });
}

export type LinkMadeForMe = { by: { id: number | null; name: string }; createdAt: string; usedAt: string | null };
export type LinksMadeForMe = { open: boolean; links: LinkMadeForMe[] };

const linksMadeFor = query<
  { user: number },
  Pick<SignInLinkRow, "created_at" | "used_at"> & {
    maker_id: UserRow["id"] | null;
    username: UserRow["username"] | null;
    first_name: UserRow["first_name"];
    last_name: UserRow["last_name"];
  }
>((p, k) =>
  k("sign_in_links")
    .leftJoin("users as maker", "maker.id", "sign_in_links.created_by")
    .where({ "sign_in_links.user_id": p("user"), "sign_in_links.purpose": "friend" })
    .orderBy("sign_in_links.id", "desc")
    .select(
      "sign_in_links.created_at",
      "sign_in_links.used_at",
      "maker.id as maker_id",
      "maker.username",
      "maker.first_name",
      "maker.last_name",
    ),
);

const linksState = query<{ user: number }, Pick<UserRow, "password_hash"> & Pick<InvitedAccountRow, "links_closed_at">>(
  (p, k) =>
    k("invited_accounts")
      .join("users", "users.id", "invited_accounts.user_id")
      .where("invited_accounts.user_id", p("user"))
      .first("users.password_hash", "invited_accounts.links_closed_at"),
);

/** The settings page: who made sign-in links for the user and when, and whether they still can. */
export async function linksMadeForMe(userId: number): Promise<LinksMadeForMe> {
  const [rows, state] = await Promise.all([linksMadeFor.all({ user: userId }), linksState.first({ user: userId })]);
  return {
    open: relativeLinksOpen(state),
    links: rows.map((r) => ({
      by: {
        id: r.maker_id,
        name:
          r.maker_id == null || r.username == null
            ? "Someone"
            : displayName({ username: r.username, first_name: r.first_name, last_name: r.last_name }),
      },
      createdAt: r.created_at,
      usedAt: r.used_at,
    })),
  };
}

/**
 * The relative turns off links made for them (for good; an emailed link still signs them in).
 * `keepToken`: the session asking, which stays even if a link started it.
 */
export async function turnOffRelativeLinks(userId: number, keepToken: string | null = null): Promise<LinksMadeForMe> {
  await writeTransaction((trx) => closeRelativeLinks(trx, userId, keepToken));
  return linksMadeForMe(userId);
}
