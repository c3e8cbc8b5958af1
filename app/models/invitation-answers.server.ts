import crypto from "node:crypto";
import type { InvitationRow, UserRow } from "~/lib/tables";
import { isUniqueViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { hashPassword, verifyPassword } from "~/lib/password.server";
import { hashLinkToken, looksLikeLinkToken } from "~/lib/tokens.server";
import { displayName } from "~/lib/names";
import { enqueueMail } from "~/mail/queue.server";
import { invitationAnswerMail } from "~/mail/messages.server";
import type { JoinInput } from "~/forms/invite";
import { presetFromRow } from "./circles.server";
import { isBlockedBetween } from "./access.server";
import { befriendByInvitation } from "./friendships.server";
import { insertDefaultDigest } from "./email-preferences.server";
import { conflict, invalid, type Result } from "./refusal";
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

import { INVITATION_MESSAGES, invitationByHash, invitationPath, readInvitation } from "./invitations.server";

// Answering an invitation link (docs/decisions/0026-invitations-and-sign-in-links.md,
// docs/decisions/0040-invitation-answers-and-blocks.md): joining by it signed out, accepting or
// declining it signed in, and offering it to the account an answer's address already has. The
// rules are in app/models/invitations.server.ts's opening comment.

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
  return row ? { id: row.id, inviterId: row.inviter_id, preset: presetFromRow(row) } : null;
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
    inviterName: displayName(row),
    note: row.note,
    url: link.origin + invitationSignInPath(signIn.token, link.token),
    invitationUrl: link.origin + invitationPath(link.token),
    expiresAt: row.expires_at,
  });
  await enqueueMail(trx, { ...mail, users: [account.id, invitation.inviterId] });
}

const accountByEmail = query<{ email: string }, Pick<UserRow, "id">>((p, k) =>
  k("users").where("email_normalized", p("email")).first("id"),
);

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

const answeredInvitation = query<
  { id: number },
  Pick<InvitationRow, "accepted_at" | "accepted_by"> & { password_hash: UserRow["password_hash"] | null }
>((p, k) =>
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
    const stored = row.password_hash ?? "";
    const same = input.password
      ? await verifyPassword(input.password, stored)
      : stored === "" && Date.now() - Date.parse(row.accepted_at) < JOIN_REPEAT_MS;
    const user = same ? await getUserById(row.accepted_by) : null;
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
        const taken = await usersWithEmailOrUsername.all(
          { email, username: normalizeUsername(candidates[0]!), now: nowIso() },
          { conn: trx },
        );
        const existing = taken.find((r) => r.email_normalized === email);
        if (existing && existing.reserved === 1) {
          // an address its account was just moved away from stays that account's until the undo
          // link expires (decision 0039): used, answered as any known address, offered to nobody
          await once.claim(trx, invitation.id);
          return { ok: true, joined: null };
        }
        if (existing) {
          const account = { id: existing.id, email };
          await offerToAccount(trx, invitation, account, {
            token,
            origin,
            mailAllowed: mailAllowed && known?.id === account.id,
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

type Inviter = Pick<UserRow, "username" | "first_name" | "last_name">;

const acceptedBy = query<{ id: number; viewerId: number }, Inviter>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where({ "invitations.id": p("id"), "invitations.accepted_by": p("viewerId") })
    .first("inviter.username", "inviter.first_name", "inviter.last_name"),
);

const acceptedByHash = query<{ hash: string; viewerId: number }, Inviter>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where({ "invitations.token_hash": p("hash"), "invitations.accepted_by": p("viewerId") })
    .first("inviter.username", "inviter.first_name", "inviter.last_name"),
);

const inviterOf = (row: Inviter | undefined) => (row ? { inviterName: displayName(row) } : null);

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
