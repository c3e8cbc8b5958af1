import { href } from "react-router";
import crypto from "node:crypto";
import type { Knex } from "knex";
import { db, insertedId, isUniqueViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import { hashPassword, verifyPassword } from "~/lib/password.server";
import { hashLinkToken, looksLikeLinkToken, newLinkToken, repeatableLinkToken } from "~/lib/tokens.server";
import { parseSubmissionToken } from "~/forms/submission";
import { withinLimit } from "~/lib/limits.server";
import { displayName } from "~/lib/names";
import { enqueueMail } from "~/mail/queue.server";
import { invitationAnswerMail, invitationMail } from "~/mail/messages.server";
import type { InviteInput, JoinInput } from "~/forms/invite";
import type { Circle, FriendRelationship } from "~/forms/circles";
import { presetFromRow } from "./circles.server";
import { isBlockedBetween, isBlockedWithAddress, relativeLinksOpen, requireInvitationOwner } from "./access.server";
import { befriendByInvitation } from "./friendships.server";
import { insertDefaultDigest } from "./email-preferences.server";
import { conflict, invalid, tooMany, type Result } from "./refusal";
import { EMAILED_LINK_MINUTES, insertSignInLink, invitationSignInPath, linkWithinLimits } from "./sign-in-links.server";
import {
  getUserById,
  insertUser,
  normalizeEmail,
  normalizeUsername,
  usersWithEmailOrUsername,
  type User,
} from "./users.server";
import { SIGNUP_USER, submissionOnce } from "./submissions.server";

// Invitation links (docs/decisions/0026-invitations-and-sign-in-links.md). A parent
// makes one (note and email optional); the link carries a 256-bit token, only its sha256 is kept;
// it is single-use (a conditional UPDATE consumes it), expires after INVITE_DAYS and can be
// revoked while unused. Answering it makes an account (no password needed), signs it in and
// makes it an accepted friend of the inviter, in one transaction; or, signed in, only the
// friendship. An address that already has an account is never told so: the invitation is used
// (so one invitation tells its holder at most about one address, and costs them the invitation)
// and OFFERED to that account, which is mailed who invited it, their note, what accepting does
// and a sign-in link that leads to the invitation's page; only its Accept there makes the
// friendship, and it may Decline (docs/decisions/0040-invitation-answers-and-blocks.md). That
// mail counts against the limits of emailed sign-in links (whoever answers may not be the
// address's owner). An invitation presets how the inviter files the one who answers it (circle,
// relationship: the inviter's side of the new friendship). A block between the inviter and the
// one answering (either way) makes no friendship; the answer is the one for a link that can no
// longer be used, and no message goes to an address whose account is in a block with the
// inviter, neither an emailed invitation nor an offer (the inviter sees no difference).

export type InvitationState = "pending" | "accepted" | "used" | "revoked" | "expired";

export type Invitation = {
  id: number;
  note: string | null;
  email: string | null;
  createdAt: string;
  expiresAt: string;
  state: InvitationState;
  /** How the inviter files whoever answers it (docs/spec.md "Invitations"). */
  circle: Circle;
  relationship: FriendRelationship | null;
  /** Who joined by it (accepted). */
  friend: { id: number; name: string; hasPassword: boolean; canMakeLink: boolean } | null;
};

export const INVITATION_MESSAGES = {
  tooMany: "You have made as many invitations as one person may in a day. Try again tomorrow.",
  notPending: "This invitation has already been used or revoked.",
  unusable: "This invitation can no longer be used.",
  own: "This is your own invitation: send the link to the person you want to invite.",
} as const;

export const invitationPath = (token: string) => href("/invite/:token", { token });

function stateOf(row: Record<string, unknown>, now: string): InvitationState {
  if (row.revoked_at) return "revoked";
  if (row.accepted_by) return "accepted";
  if (row.accepted_at) return "used";
  return String(row.expires_at) <= now ? "expired" : "pending";
}

/** The columns `stateOf` and `presetFromRow` read, with the id and note: every read of an invitation selects them. */
const invitationStateColumns = [
  "invitations.id",
  "invitations.note",
  "invitations.expires_at",
  "invitations.accepted_at",
  "invitations.accepted_by",
  "invitations.revoked_at",
  "invitations.circle",
  "invitations.relationship",
];

const invitationColumns = [
  ...invitationStateColumns,
  "invitations.email",
  "invitations.created_at",
  "friend.username as friend_username",
  "friend.first_name as friend_first_name",
  "friend.last_name as friend_last_name",
  "friend.password_hash as friend_password_hash",
  "made.user_id as made_user_id",
  "made.links_closed_at as made_links_closed_at",
];

function invitationFromRow(row: Record<string, unknown>, now = nowIso()): Invitation {
  return {
    id: Number(row.id),
    note: (row.note as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    createdAt: String(row.created_at),
    expiresAt: String(row.expires_at),
    state: stateOf(row, now),
    ...presetFromRow(row),
    friend: row.accepted_by
      ? {
          id: Number(row.accepted_by),
          name: displayName({
            username: String(row.friend_username),
            first_name: row.friend_first_name as string | null,
            last_name: row.friend_last_name as string | null,
          }),
          hasPassword: String(row.friend_password_hash ?? "") !== "",
          // the same rule requireInvitedFriend asks (the friendship itself is asked when a link is made)
          canMakeLink: relativeLinksOpen(
            row.made_user_id == null
              ? null
              : { password_hash: row.friend_password_hash, links_closed_at: row.made_links_closed_at },
          ),
        }
      : null,
  };
}

/** Who answered an invitation, and the account row its inviter's invitation made (if this one did). */
const withFriend = (q: Knex.QueryBuilder) =>
  q
    .leftJoin("users as friend", "friend.id", "invitations.accepted_by")
    .leftJoin("invited_accounts as made", (j) =>
      j.on("made.user_id", "invitations.accepted_by").andOn("made.inviter_id", "invitations.inviter_id"),
    );

const invitationsOf = query<{ inviterId: number }>((p, k) =>
  withFriend(k("invitations"))
    .where("invitations.inviter_id", p("inviterId"))
    .orderBy("invitations.id", "desc")
    .select(invitationColumns),
);

/** The inviter's invitations, newest first (every state). */
export async function listInvitations(inviterId: number): Promise<Invitation[]> {
  const now = nowIso();
  return (await invitationsOf.all({ inviterId })).map((row) => invitationFromRow(row, now));
}

const invitationById = query<{ id: number }>((p, k) =>
  withFriend(k("invitations")).where("invitations.id", p("id")).first(invitationColumns),
);

const invitationHashById = query<{ id: number; inviterId: number }>((p, k) =>
  k("invitations")
    .where({ id: p("id"), inviter_id: p("inviterId") })
    .first("token_hash"),
);

/**
 * A new invitation from `inviter`; emailed when `input.email` is given (queued in the same
 * transaction). Answers it with its link (the only time the token is known). Limited per inviter
 * per day (INVITES_PER_DAY).
 *
 * `token`: the form's one-time submission token, or the Idempotency-Key (submissions.server.ts).
 * A repeat (a double click) answers the first invitation and its link, and sends no second email:
 * with a token, the link's token is made from it (repeatableLinkToken), so the repeat can show the
 * same link although only its hash is kept.
 */
export async function createInvitation(
  inviter: User,
  input: InviteInput,
  origin: string,
  opts: { token?: unknown } = {},
): Promise<Result<{ invitation: Invitation; url: string; replayed?: true }>> {
  const seeded = (seed: string) => repeatableLinkToken("invitation", inviter.id, seed);
  const once = await submissionOnce(
    inviter.id,
    "invitation",
    opts.token,
    () => [input],
    async (id) => {
      const stored = await invitationHashById.first({ id, inviterId: inviter.id });
      const seed = parseSubmissionToken(opts.token);
      if (!stored || !seed) return null;
      const { token, hash } = seeded(seed);
      const row = hash === stored.token_hash ? await invitationById.first({ id }) : null;
      return row ? { invitation: invitationFromRow(row), url: origin + invitationPath(token) } : null;
    },
  );
  if (once.first) return { ok: true, ...once.first, replayed: true };
  if (!(await withinLimit("invitesPerUser", String(inviter.id)))) return tooMany(INVITATION_MESSAGES.tooMany);
  const { token, hash } = once.token ? seeded(once.token) : newLinkToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + config().inviteDays * 24 * 60 * 60_000).toISOString();
  const url = origin + invitationPath(token);
  let id: number;
  try {
    id = await once.create(async (trx) => {
      const id = insertedId(
        await trx("invitations")
          .insert({
            inviter_id: inviter.id,
            token_hash: hash,
            note: input.note ?? null,
            email: input.email ?? null,
            circle: input.circle ?? "friends",
            relationship: input.relationship ?? null,
            created_at: now.toISOString(),
            expires_at: expiresAt,
          })
          .returning("id"),
      );
      // not to an address whose account is in a block with the inviter (nothing says so)
      if (input.email && !(await isBlockedWithAddress(inviter.id, input.email, trx))) {
        await enqueueMail(trx, {
          ...invitationMail({
            to: input.email,
            inviterName: displayName(inviter),
            note: input.note ?? null,
            url,
            expiresAt,
          }),
          users: [inviter.id],
        });
      }
      return id;
    });
  } catch (error) {
    // the same submission at the same moment: its twin made the invitation (and the email)
    const first = await once.winner(error);
    if (first) return { ok: true, ...first, replayed: true };
    throw error;
  }
  const row = await invitationById.first({ id }, { conn: db() });
  return { ok: true, invitation: invitationFromRow(row!), url };
}

/** Revokes an unused invitation of the viewer's. Someone else's: not found. Used or revoked already: conflict. */
export async function revokeInvitation(
  viewerId: number,
  invitationId: number,
): Promise<Result<{ invitation: Invitation }>> {
  const grant = await requireInvitationOwner(viewerId, invitationId);
  if (!grant.ok) return grant;
  const changed = await writeTransaction((trx) =>
    trx("invitations")
      .where({ id: invitationId, inviter_id: viewerId })
      .whereNull("accepted_at")
      .whereNull("revoked_at")
      .update({ revoked_at: nowIso() }),
  );
  if (!changed) return conflict(INVITATION_MESSAGES.notPending);
  const row = await invitationById.first({ id: invitationId }, { conn: db() });
  return { ok: true, invitation: invitationFromRow(row!) };
}

/**
 * What an invitation link is to whoever opens it. Besides the inviter's states: "offered", used
 * by an answer with the viewer's address and waiting for the viewer's Accept or Decline;
 * "declined", the viewer declined it. Everyone else sees such an invitation as "used".
 */
export type InvitationLink = {
  state: InvitationState | "unknown" | "offered" | "declined";
  inviterId: number | null;
  inviterName: string | null;
  note: string | null;
};

const invitationByHash = query<{ hash: string }>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where("invitations.token_hash", p("hash"))
    .first(
      ...invitationStateColumns,
      "invitations.inviter_id",
      "invitations.offered_to",
      "invitations.declined_at",
      "inviter.username",
      "inviter.first_name",
      "inviter.last_name",
    ),
);

/** The invitation's state for `viewerId`: an invitation offered to the viewer is theirs to answer (or declined by them). */
function stateFor(row: Record<string, unknown>, viewerId: number | null, now: string): InvitationLink["state"] {
  const state = stateOf(row, now);
  if (state !== "used" || viewerId === null || Number(row.offered_to ?? 0) !== viewerId) return state;
  if (row.declined_at) return "declined";
  return String(row.expires_at) <= now ? "expired" : "offered";
}

/**
 * What an invitation link is (the page a link opens) to `viewerId` (null: signed out): its state
 * and, while the viewer may answer it (pending, or offered to them), who sent it.
 */
export async function readInvitation(
  token: string | undefined,
  viewerId: number | null = null,
): Promise<InvitationLink> {
  const none: InvitationLink = { state: "unknown", inviterId: null, inviterName: null, note: null };
  if (!looksLikeLinkToken(token)) return none;
  const row = await invitationByHash.first({ hash: hashLinkToken(token) });
  if (!row) return none;
  const state = stateFor(row, viewerId, nowIso());
  // who sent it is told only while it can be answered
  if (state !== "pending" && state !== "offered") return { ...none, state };
  return {
    state,
    inviterId: Number(row.inviter_id),
    inviterName: displayName({
      username: String(row.username),
      first_name: row.first_name as string | null,
      last_name: row.last_name as string | null,
    }),
    note: (row.note as string | null) ?? null,
  };
}

/** Takes the invitation on `trx` if it can still be answered (the single use); answers its id and inviter, or null. */
async function consume(trx: Db, token: string) {
  const hash = hashLinkToken(token);
  const now = nowIso();
  const changed = await trx("invitations")
    .where("token_hash", hash)
    .whereNull("accepted_at")
    .whereNull("revoked_at")
    .andWhere("expires_at", ">", now)
    .update({ accepted_at: now });
  return changed === 1 ? taken(trx, hash) : null;
}

/** The invitation just taken on `trx`: its id, inviter and preset. */
async function taken(trx: Db, hash: string) {
  const row = await invitationByHash.first({ hash }, { conn: trx });
  return row ? { id: Number(row.id), inviterId: Number(row.inviter_id), preset: presetFromRow(row) } : null;
}

/**
 * Answers on `trx` the invitation offered to `viewerId` (accepted_by, or declined_at), if it still
 * waits for their answer (the conditional UPDATE is the single answer); answers like `consume`.
 */
async function answerOffer(
  trx: Db,
  token: string,
  viewerId: number,
  answer: { accepted_by: number } | { declined_at: string },
) {
  const hash = hashLinkToken(token);
  const changed = await trx("invitations")
    .where({ token_hash: hash, offered_to: viewerId })
    .whereNull("accepted_by")
    .whereNull("declined_at")
    .whereNull("revoked_at")
    .andWhere("expires_at", ">", nowIso())
    .update(answer);
  return changed === 1 ? taken(trx, hash) : null;
}

/**
 * Offers the invitation `invitation` (consumed on `trx`) to the existing account `account`
 * that answered it: no block with the inviter, not the inviter, and the mail allowed by the limits
 * (`mailAllowed`, counted before the transaction). Then the invitation waits for that account
 * (offered_to) and the address is mailed the offer with a sign-in link to the invitation's page.
 * Otherwise nothing is sent and nothing says why: the invitation is just used.
 */
async function offerToAccount(
  trx: Db,
  invitation: { id: number; inviterId: number },
  account: { id: number; email: string },
  link: { token: string; origin: string; mailAllowed: boolean },
): Promise<void> {
  if (!link.mailAllowed || account.id === invitation.inviterId) return;
  if ((await isBlockedBetween(invitation.inviterId, account.id, trx)).blocked) return;
  await trx("invitations").where("id", invitation.id).update({ offered_to: account.id });
  const signIn = await insertSignInLink(trx, {
    userId: account.id,
    purpose: "sign-in",
    ttlMs: EMAILED_LINK_MINUTES * 60_000,
    invitationId: invitation.id,
  });
  const row = (await invitationByHash.first({ hash: hashLinkToken(link.token) }, { conn: trx }))!;
  const mail = invitationAnswerMail({
    to: account.email,
    inviterName: displayName({
      username: String(row.username),
      first_name: row.first_name as string | null,
      last_name: row.last_name as string | null,
    }),
    note: (row.note as string | null) ?? null,
    url: link.origin + invitationSignInPath(signIn.token, link.token),
    invitationUrl: link.origin + invitationPath(link.token),
    expiresAt: String(row.expires_at),
  });
  await enqueueMail(trx, { ...mail, users: [account.id, invitation.inviterId] });
}

const accountByEmail = query<{ email: string }>((p, k) => k("users").where("email_normalized", p("email")).first("id"));

/** A username from a name ("Ana María López" → "ana.maria.lopez"), made unique with a number when taken. */
function usernameCandidates(name: string, email: string): string[] {
  const slug = (s: string) =>
    s
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ".")
      .replace(/^\.+|\.+$/g, "")
      .slice(0, 24);
  const base = slug(name).length >= 3 ? slug(name) : slug(email.split("@")[0] ?? "") || "relative";
  const padded = base.length >= 3 ? base : `${base}.family`;
  return [padded, ...Array.from({ length: 4 }, () => `${padded}.${crypto.randomInt(10, 10_000)}`)];
}

/** "Ana María López" → first "Ana", last "María López" (each at most 30 characters). */
function splitName(name: string): { first_name: string; last_name: string | null } {
  const [first, ...rest] = name.trim().split(/\s+/);
  return { first_name: (first ?? name).slice(0, 30), last_name: rest.join(" ").slice(0, 30) || null };
}

export type JoinOutcome = { outcome: "joined"; user: User } | { outcome: "check-email" };

/** How long after a join its repeat (a double click) may still sign in an account that has no password. */
export const JOIN_REPEAT_MS = 10 * 60_000;

const answeredInvitation = query<{ id: number }>((p, k) =>
  k("invitations")
    .leftJoin("users", "users.id", "invitations.accepted_by")
    .where("invitations.id", p("id"))
    .first("invitations.accepted_at", "invitations.accepted_by", "users.password_hash"),
);

/**
 * Answers an invitation signed out: a new account (no password unless one is given), an accepted
 * friend of the inviter, in one transaction; the caller signs it in. If the address already has
 * an account, nothing says so: the invitation is used and offered to that account
 * (offerToAccount: a mail with a sign-in link to the invitation's page, where only Accept makes
 * the friendship), and the answer is "check your email". That mail counts against the limits of
 * emailed sign-in links, per address (`opts.address`, the client's) and per account.
 * A link that cannot be used any more: conflict.
 *
 * `token`: the form's one-time submission token (submissions.server.ts). A repeat of a join that
 * went through (a double click on "Join") answers what the first answered: "check your email", or
 * the account it made, to be signed in again; that only with the account's own password, or, for
 * an account without one, within JOIN_REPEAT_MS of the join while it still has none (the used
 * invitation link in the fingerprint is what proves it is the same person, as the link did).
 */
export async function joinByInvitation(
  token: string | undefined,
  input: JoinInput,
  origin: string,
  opts: { address: string; token?: unknown },
): Promise<Result<JoinOutcome>> {
  if (!looksLikeLinkToken(token)) return conflict(INVITATION_MESSAGES.unusable);
  const email = normalizeEmail(input.email);
  const names = splitName(input.name);
  const repeatOf = async (invitationId: number): Promise<JoinOutcome | null> => {
    const row = await answeredInvitation.first({ id: invitationId });
    if (!row?.accepted_at) return null;
    if (!row.accepted_by) return { outcome: "check-email" };
    const stored = String(row.password_hash ?? "");
    const same = input.password
      ? await verifyPassword(input.password, stored)
      : stored === "" && Date.now() - Date.parse(String(row.accepted_at)) < JOIN_REPEAT_MS;
    const user = same ? await getUserById(Number(row.accepted_by)) : null;
    return user ? { outcome: "joined", user } : null;
  };
  const once = await submissionOnce(
    SIGNUP_USER,
    "join",
    opts.token,
    () => [hashLinkToken(token), email, input.name, Boolean(input.password)],
    repeatOf,
  );
  if (once.first) return { ok: true, ...once.first };
  const password_hash = input.password ? await hashPassword(input.password) : "";
  // an address with an account is mailed: counted as an emailed sign-in link is, before the write
  // (an account made meanwhile gets no mail: the limits were not asked for it)
  const known = await accountByEmail.first({ email });
  const mailAllowed = known ? await linkWithinLimits(email, opts.address) : false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const result = await writeTransaction(async (trx): Promise<Result<{ joined: number | null }>> => {
        const invitation = await consume(trx, token);
        if (!invitation) return conflict(INVITATION_MESSAGES.unusable);
        const candidates = usernameCandidates(input.name, email);
        const taken = await usersWithEmailOrUsername.all<{
          id: number;
          email_normalized: string;
          username_normalized: string;
          reserved: number;
        }>({ email, username: normalizeUsername(candidates[0]!), now: nowIso() }, { conn: trx });
        const existing = taken.find((r) => r.email_normalized === email);
        if (existing && Number(existing.reserved) === 1) {
          // an address its account was just moved away from stays that account's until the undo
          // link expires (decision 0039): used, answered as any known address, offered to nobody
          await once.claim(trx, invitation.id);
          return { ok: true, joined: null };
        }
        if (existing) {
          const account = { id: Number(existing.id), email };
          await offerToAccount(trx, invitation, account, {
            token,
            origin,
            mailAllowed: mailAllowed && Number(known?.id) === account.id,
          });
          await once.claim(trx, invitation.id);
          return { ok: true, joined: null };
        }
        const username = taken.length ? candidates[1 + attempt]! : candidates[0]!;
        const userId = await insertUser(trx, { email, username, password_hash, ...names });
        await trx("invitations").where("id", invitation.id).update({ accepted_by: userId });
        // made by this invitation: its inviter may make sign-in links for it while it has no password
        await trx("invited_accounts").insert({
          user_id: userId,
          inviter_id: invitation.inviterId,
          links_closed_at: password_hash ? nowIso() : null,
        });
        await befriendByInvitation(trx, invitation.inviterId, userId, invitation.preset); // a new account: no block
        await insertDefaultDigest(trx, userId);
        await once.claim(trx, invitation.id);
        return { ok: true, joined: userId };
      });
      if (!result.ok) {
        // used already: by the first submission of this form (a double click)?
        const first = await once.winner();
        return first ? { ok: true, ...first } : result;
      }
      if (result.joined === null) return { ok: true, outcome: "check-email" };
      const user = await getUserById(result.joined);
      if (!user) throw new Error("user vanished after joining");
      return { ok: true, outcome: "joined", user };
    } catch (error) {
      const first = await once.winner(error);
      if (first) return { ok: true, ...first };
      // a username (or the address) taken at the same moment: the transaction rolled back, so the
      // invitation is still unused; try again with another username
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return invalid(INVITATION_MESSAGES.unusable);
}

/** Thrown inside the accepting transaction to undo it: a block stands between the two. */
class NoFriendship extends Error {}

const acceptedBy = query<{ id: number; viewerId: number }>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where({ "invitations.id": p("id"), "invitations.accepted_by": p("viewerId") })
    .first("inviter.username", "inviter.first_name", "inviter.last_name"),
);

const acceptedByHash = query<{ hash: string; viewerId: number }>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where({ "invitations.token_hash": p("hash"), "invitations.accepted_by": p("viewerId") })
    .first("inviter.username", "inviter.first_name", "inviter.last_name"),
);

const inviterOf = (row: Record<string, unknown> | undefined) =>
  row
    ? {
        inviterName: displayName({
          username: String(row.username),
          first_name: row.first_name as string | null,
          last_name: row.last_name as string | null,
        }),
      }
    : null;

/**
 * Answers an invitation signed in: the viewer and the inviter become accepted friends (the link is
 * used), filed on the inviter's side as the invitation presets; so does the Accept of an
 * invitation offered to the viewer. A block between them: the answer of a link that can no longer
 * be used, and nothing changes (the link stays as it was).
 * `token`: the form's one-time submission token; a repeat of an accept that went through (a double
 * click on "Accept") answers the same success instead of "already used".
 */
export async function acceptInvitation(
  viewerId: number,
  token: string | undefined,
  opts: { token?: unknown } = {},
): Promise<Result<{ inviterName: string }>> {
  if (!looksLikeLinkToken(token)) return conflict(INVITATION_MESSAGES.unusable);
  const once = await submissionOnce(
    viewerId,
    "accept",
    opts.token,
    () => [hashLinkToken(token)],
    async (id) => inviterOf(await acceptedBy.first({ id, viewerId })),
  );
  if (once.first) return { ok: true, ...once.first };
  const link = await readInvitation(token, viewerId);
  if (link.state !== "pending" && link.state !== "offered") {
    // used by the viewer themself: a repeat (of this accept, or of the join that made the account
    // and signed it in before its form was sent again) is done, not "already used"
    const first =
      (await once.winner()) ?? inviterOf(await acceptedByHash.first({ hash: hashLinkToken(token), viewerId }));
    return first ? { ok: true, ...first } : conflict(INVITATION_MESSAGES.unusable);
  }
  if (link.inviterId === viewerId) return invalid(INVITATION_MESSAGES.own);
  try {
    const done = await writeTransaction(async (trx) => {
      const invitation =
        link.state === "offered"
          ? await answerOffer(trx, token, viewerId, { accepted_by: viewerId })
          : await consume(trx, token);
      if (!invitation) return false;
      if (!(await befriendByInvitation(trx, invitation.inviterId, viewerId, invitation.preset)))
        throw new NoFriendship();
      await trx("invitations").where("id", invitation.id).update({ accepted_by: viewerId });
      await once.claim(trx, invitation.id);
      return true;
    });
    if (!done) {
      const first = await once.winner();
      return first ? { ok: true, ...first } : conflict(INVITATION_MESSAGES.unusable);
    }
  } catch (error) {
    // not a conflict: the link itself is still pending (the page shows this message, not its state)
    if (error instanceof NoFriendship) return invalid(INVITATION_MESSAGES.unusable);
    const first = await once.winner(error);
    if (first) return { ok: true, ...first };
    throw error;
  }
  return { ok: true, inviterName: link.inviterName ?? "" };
}

/**
 * Declines an invitation offered to the viewer (an answer with their address): nothing changes
 * but that it no longer waits for them. Declining again answers the same; an invitation that is
 * not the viewer's to answer: conflict.
 */
export async function declineInvitation(viewerId: number, token: string | undefined): Promise<Result> {
  if (!looksLikeLinkToken(token)) return conflict(INVITATION_MESSAGES.unusable);
  const state = async () => (await readInvitation(token, viewerId)).state;
  if (
    (await state()) === "offered" &&
    (await writeTransaction((trx) => answerOffer(trx, token, viewerId, { declined_at: nowIso() })))
  )
    return { ok: true };
  // declined already (a double click), or by this answer's twin at the same moment
  return (await state()) === "declined" ? { ok: true } : conflict(INVITATION_MESSAGES.unusable);
}

/**
 * A deleted account's address leaves other users' invitations (docs/spec.md "Delete my account"):
 * an invitation someone sent to it stays theirs (its link still works) but no longer names the
 * address. On `conn`, the deleting transaction.
 */
export async function forgetInvitedAddress(conn: Db, email: string): Promise<void> {
  await conn("invitations")
    .whereRaw("lower(email) = ?", [normalizeEmail(email)])
    .update({ email: null });
}
