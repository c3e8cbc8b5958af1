import type { Knex } from "knex";
import type { InvitationRow, UserRow } from "~/lib/tables";
import crypto from "node:crypto";
import { isUniqueViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { hashPassword, verifyPassword } from "~/lib/password.server";
import { hashLinkToken, looksLikeLinkToken } from "~/lib/tokens.server";
import type { FriendLabel } from "~/forms/circles";
import type { JoinInput } from "~/forms/invite";
import { splitFullName } from "~/forms/people";
import { befriendByInvitation } from "./friendships.server";
import { insertDefaultDigest } from "./email-preferences.server";
import { conflict, invalid, type Result } from "./refusal";
import { linkWithinLimits } from "./sign-in-links.server";
import {
  getUserById,
  insertUser,
  normalizeEmail,
  normalizeUsername,
  usersWithEmailOrUsername,
  type User,
} from "./users.server";
import { type Once, SIGNUP_USER, submissionOnce } from "./submissions.server";

import { consume, offerToAccount } from "./invitation-answers.server";
import { grantInvitationKids } from "./invitation-kids.server";
import { INVITATION_MESSAGES } from "./invitations.server";

// Joining by an invitation link signed out (docs/decisions/0026-invitations-and-sign-in-links.md):
// the account it makes, or the offer to the account the address already has
// (app/models/invitation-answers.server.ts), and the answer to a repeat of the same join.

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

/** A repeat of a join that went through (see joinByInvitation): what the first answered, or null. */
async function repeatedJoin(input: JoinInput, invitationId: number): Promise<JoinOutcome | null> {
  const row = await answeredInvitation.first({ id: invitationId });
  if (!row?.accepted_at) return null;
  if (!row.accepted_by) return { outcome: "check-email" };
  const stored = row.password_hash ?? "";
  const same = input.password
    ? await verifyPassword(input.password, stored)
    : stored === "" && Date.now() - Date.parse(row.accepted_at) < JOIN_REPEAT_MS;
  const user = same ? await getUserById(row.accepted_by) : null;
  return user ? { outcome: "joined", user } : null;
}

/** What one try of a join writes with: the answer, and what was settled before the transaction. */
type JoinTry = {
  token: string;
  origin: string;
  input: JoinInput;
  email: string;
  password_hash: string;
  /** The try's number: a username taken at the same moment makes the next try take another. */
  attempt: number;
  /** The account the address had before the write, when the limits let it be mailed (else null). */
  mailTo: number | null;
  /** The one-time submission's claim, in the same transaction. */
  claim: Once<JoinOutcome>["claim"];
};

/**
 * One try of a join, on `trx`: takes the invitation, then offers it to the account the address
 * has, or makes the account (the id it answers; null: no account made).
 */
async function joinOnce(trx: Knex.Transaction, t: JoinTry): Promise<Result<{ joined: number | null }>> {
  const invitation = await consume(trx, t.token);
  if (!invitation) return conflict(INVITATION_MESSAGES.unusable);
  const candidates = usernameCandidates(t.input.name, t.email);
  const taken = await usersWithEmailOrUsername.all(
    { email: t.email, username: normalizeUsername(candidates[0]!), now: nowIso() },
    { conn: trx },
  );
  const existing = taken.find((r) => r.email_normalized === t.email);
  if (existing && existing.reserved === 1) {
    // an address its account was just moved away from stays that account's until the undo
    // link expires (decision 0039): used, answered as any known address, offered to nobody
    await t.claim(trx, invitation.id);
    return { ok: true, joined: null };
  }
  if (existing) {
    const account = { id: existing.id, email: t.email };
    await offerToAccount(trx, invitation, account, {
      token: t.token,
      origin: t.origin,
      mailAllowed: t.mailTo === account.id,
    });
    await t.claim(trx, invitation.id);
    return { ok: true, joined: null };
  }
  const username = taken.length ? candidates[1 + t.attempt]! : candidates[0]!;
  const user = { email: t.email, username, password_hash: t.password_hash, ...splitFullName(t.input.name) };
  const userId = await insertInvitedAccount(trx, invitation, user);
  await t.claim(trx, invitation.id);
  return { ok: true, joined: userId };
}

/**
 * The account a join makes, on `trx`: the invitation's answer, an accepted friend of the inviter
 * (filed as the invitation presets), with the default digest, and a co-parent of the kids the
 * invitation names (grantInvitationKids). Answers its id.
 */
async function insertInvitedAccount(
  trx: Db,
  invitation: { id: number; inviterId: number; preset: FriendLabel },
  user: Parameters<typeof insertUser>[1],
): Promise<number> {
  const userId = await insertUser(trx, user);
  await trx("invitations").where("id", invitation.id).update({ accepted_by: userId });
  // made by this invitation: its inviter may make sign-in links for it while it has no password
  await trx("invited_accounts").insert({
    user_id: userId,
    inviter_id: invitation.inviterId,
    links_closed_at: user.password_hash ? nowIso() : null,
  });
  await befriendByInvitation(trx, invitation.inviterId, userId, invitation.preset); // a new account: no block
  await insertDefaultDigest(trx, userId);
  await grantInvitationKids(trx, invitation, userId);
  return userId;
}

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
  const once = await submissionOnce(
    SIGNUP_USER,
    "join",
    opts.token,
    () => [hashLinkToken(token), email, input.name, Boolean(input.password)],
    (invitationId) => repeatedJoin(input, invitationId),
  );
  if (once.first) return { ok: true, ...once.first };
  const password_hash = input.password ? await hashPassword(input.password) : "";
  // an address with an account is mailed: counted as an emailed sign-in link is, before the write
  // (an account made meanwhile gets no mail: the limits were not asked for it)
  const known = await accountByEmail.first({ email });
  const mailTo = known && (await linkWithinLimits(email, opts.address)) ? known.id : null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const result = await writeTransaction((trx) =>
        joinOnce(trx, { token, origin, input, email, password_hash, attempt, mailTo, claim: once.claim }),
      );
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
