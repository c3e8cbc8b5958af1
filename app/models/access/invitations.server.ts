import type { Db } from "~/lib/db.server";
import type { InvitationRow, InvitedAccountRow, UserRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { forbidden, notFound, type Refusal } from "../refusal";
import { canSeeKidsOf } from "./guards.server";

// Who may revoke an invitation and who may make or use a friend's sign-in link
// (app/models/access.server.ts, docs/decisions/0026-invitations-and-sign-in-links.md).

const invitationOwner = query<{ id: number }, Pick<InvitationRow, "inviter_id">>((p, k) =>
  k("invitations").where("invitations.id", p("id")).first("invitations.inviter_id"),
);

/** May `viewerId` change (revoke) this invitation? Its inviter only; anyone else: as if it did not exist. */
export async function requireInvitationOwner(
  viewerId: number,
  invitationId: number,
  conn?: Db,
): Promise<{ ok: true; invitationId: number } | Refusal> {
  const row = await invitationOwner.first({ id: invitationId }, { conn });
  if (!row || row.inviter_id !== viewerId) return notFound("Invitation not found");
  return { ok: true, invitationId };
}

/** An account's password hash and its invited_accounts row (what relativeLinksOpen reads). */
export type RelativeLinkFacts = Pick<UserRow, "password_hash"> & Pick<InvitedAccountRow, "links_closed_at">;

const invitedFriend = query<{ viewer: number; friend: number }, RelativeLinkFacts>((p, k) =>
  k("invited_accounts")
    .join("users", "users.id", "invited_accounts.user_id")
    .where("invited_accounts.inviter_id", p("viewer"))
    .andWhere("invited_accounts.user_id", p("friend"))
    .first("users.password_hash", "invited_accounts.links_closed_at"),
);

/**
 * Are sign-in links made by the parent whose invitation made this account still open? Only while
 * the relative has no password and has never proven a mailbox or turned links off (`links_closed_at`,
 * set for good by any of these: app/models/sign-in-links.server.ts closeRelativeLinks). `row`: the
 * account's password hash and its invited_accounts row as seen from that parent (null: the account
 * was not made by their invitation). The one rule; requireInvitedFriend and the invitation list use it.
 */
export function relativeLinksOpen(row: RelativeLinkFacts | null | undefined): boolean {
  return !!row && row.password_hash === "" && !row.links_closed_at;
}

export const RELATIVE_LINKS_CLOSED =
  "This friend signs in on their own now (a password, their email, or they turned links off): they can ask for a sign-in link by email.";

/**
 * May `viewerId` make a sign-in link for `friendId`, or may a link they made still be used? Only
 * for an accepted friend whose account the viewer's own invitation made, while relativeLinksOpen:
 * the parent stands in for a mailbox the relative does not read, never for an account the
 * relative has secured or signed in to by other means (docs/decisions/0039-account-safety.md).
 */
export async function requireInvitedFriend(
  viewerId: number,
  friendId: number,
  conn?: Db,
): Promise<{ ok: true; friendId: number } | Refusal> {
  const row = await invitedFriend.first({ viewer: viewerId, friend: friendId }, { conn });
  if (!row || friendId === viewerId || !(await canSeeKidsOf(friendId, viewerId, conn)))
    return notFound("Friend not found");
  if (!relativeLinksOpen(row)) return forbidden(RELATIVE_LINKS_CLOSED);
  return { ok: true, friendId };
}
