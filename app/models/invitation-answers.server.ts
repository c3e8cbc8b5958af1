import { nowIso, writeTransaction, type Db } from "~/lib/db.server";
import type { UserRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { hashLinkToken, looksLikeLinkToken } from "~/lib/tokens.server";
import { displayName } from "~/lib/names";
import { enqueueMail } from "~/mail/queue.server";
import { invitationAnswerMail } from "~/mail/messages.server";
import { presetFromRow } from "./circles.server";
import { isBlockedBetween } from "./access.server";
import { befriendByInvitation } from "./friendships.server";
import { conflict, invalid, type Result } from "./refusal";
import { EMAILED_LINK_MINUTES, insertSignInLink, invitationSignInPath } from "./sign-in-links.server";
import { submissionOnce } from "./submissions.server";
import { grantInvitationKids, kidsOfInvitationIds } from "./invitation-kids.server";

import {
  INVITATION_MESSAGES,
  invitationByHash,
  invitationPath,
  readInvitation,
  whatEachSees,
} from "./invitations.server";

// Answering an invitation link (docs/decisions/0026-invitations-and-sign-in-links.md,
// docs/decisions/0040-invitation-answers-and-blocks.md): taking it (its single use), accepting or
// declining it signed in, and offering it to the account an answer's address already has; joining
// by it signed out is app/models/invitation-join.server.ts. The rules are in
// app/models/invitations.server.ts's opening comment.

/** Takes the invitation on `trx` if it can still be answered (the single use); answers its id and inviter, or null. */
export async function consume(trx: Db, token: string) {
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
export async function offerToAccount(
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
  const kids = (await kidsOfInvitationIds([invitation.id], trx)).get(invitation.id) ?? [];
  const mail = invitationAnswerMail({
    to: account.email,
    inviterName: displayName(row),
    note: row.note,
    coParentOf: kids.map((k) => k.name),
    url: link.origin + invitationSignInPath(signIn.token, link.token),
    invitationUrl: link.origin + invitationPath(link.token),
    expiresAt: row.expires_at,
    ...whatEachSees(presetFromRow(row).circle),
  });
  await enqueueMail(trx, { ...mail, users: [account.id, invitation.inviterId] });
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
      await grantInvitationKids(trx, invitation, viewerId);
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
