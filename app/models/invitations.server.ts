import { href } from "react-router";
import type { InvitationRow, InvitedAccountRow, UserRow } from "~/lib/tables";
import type { Knex } from "knex";
import { db, insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import { hashLinkToken, looksLikeLinkToken, newLinkToken, repeatableLinkToken } from "~/lib/tokens.server";
import { parseSubmissionToken } from "~/forms/submission";
import { withinLimit } from "~/lib/limits.server";
import { displayName } from "~/lib/names";
import { enqueueMail } from "~/mail/queue.server";
import { invitationMail } from "~/mail/messages.server";
import type { InviteInput } from "~/forms/invite";
import { impliedCircle, type Circle, type FriendRelationship } from "~/forms/circles";
import { presetFromRow } from "./circles.server";
import { audiencesText, isBlockedWithAddress, relativeLinksOpen, requireInvitationOwner } from "./access.server";
import { conflict, tooMany, type Result } from "./refusal";
import { normalizeEmail, type User } from "./users.server";
import { submissionOnce } from "./submissions.server";
import { type InvitedKid, kidsOfInvitationIds, ownKidsAmong, saveInvitationKids } from "./invitation-kids.server";

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
  /** The inviter's kids whoever accepts it becomes a co-parent of (docs/decisions/0060-co-parent-invitations.md). */
  coParentKids: InvitedKid[];
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

function stateOf(row: InvitationStateColumns, now: string): InvitationState {
  if (row.revoked_at) return "revoked";
  if (row.accepted_by) return "accepted";
  if (row.accepted_at) return "used";
  return row.expires_at <= now ? "expired" : "pending";
}

/** The columns `stateOf` and `presetFromRow` read, with the id and note: every read of an invitation selects them. */
type InvitationStateColumns = Pick<
  InvitationRow,
  "id" | "note" | "expires_at" | "accepted_at" | "accepted_by" | "revoked_at" | "circle" | "relationship"
>;
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

/** The row `invitationColumns` select (the friend's columns are null until someone answered it). */
type InvitationColumns = InvitationStateColumns &
  Pick<InvitationRow, "email" | "created_at"> & {
    friend_username: UserRow["username"] | null;
    friend_first_name: UserRow["first_name"];
    friend_last_name: UserRow["last_name"];
    friend_password_hash: UserRow["password_hash"] | null;
    made_user_id: InvitedAccountRow["user_id"] | null;
    made_links_closed_at: InvitedAccountRow["links_closed_at"];
  };

function invitationFromRow(row: InvitationColumns, now = nowIso()): Invitation {
  return {
    id: row.id,
    note: row.note,
    email: row.email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    state: stateOf(row, now),
    ...presetFromRow(row),
    coParentKids: [],
    friend: row.accepted_by
      ? {
          id: row.accepted_by,
          name: displayName({
            username: row.friend_username ?? "",
            first_name: row.friend_first_name,
            last_name: row.friend_last_name,
          }),
          hasPassword: (row.friend_password_hash ?? "") !== "",
          // the same rule requireInvitedFriend asks (the friendship itself is asked when a link is made)
          canMakeLink: relativeLinksOpen(
            row.made_user_id == null
              ? null
              : { password_hash: row.friend_password_hash ?? "", links_closed_at: row.made_links_closed_at },
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

const invitationsOf = query<{ inviterId: number }, InvitationColumns>((p, k) =>
  withFriend(k("invitations"))
    .where("invitations.inviter_id", p("inviterId"))
    .orderBy("invitations.id", "desc")
    .select(invitationColumns),
);

/** `invitations` with the kids each names (one query for all). */
async function withKids(invitations: Invitation[], conn?: Db): Promise<Invitation[]> {
  const kids = await kidsOfInvitationIds(
    invitations.map((i) => i.id),
    conn,
  );
  return invitations.map((i) => ({ ...i, coParentKids: kids.get(i.id) ?? [] }));
}

/** The inviter's invitations, newest first (every state). */
export async function listInvitations(inviterId: number): Promise<Invitation[]> {
  const now = nowIso();
  return withKids((await invitationsOf.all({ inviterId })).map((row) => invitationFromRow(row, now)));
}

const invitationById = query<{ id: number }, InvitationColumns>((p, k) =>
  withFriend(k("invitations")).where("invitations.id", p("id")).first(invitationColumns),
);

const invitationHashById = query<{ id: number; inviterId: number }, Pick<InvitationRow, "token_hash">>((p, k) =>
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
      return row
        ? { invitation: (await withKids([invitationFromRow(row)]))[0]!, url: origin + invitationPath(token) }
        : null;
    },
  );
  if (once.first) return { ok: true, ...once.first, replayed: true };
  // someone else's kid (or none such): refused before anything is written, the limit's count included
  const own = await ownKidsAmong(inviter.id, input.coParentKids);
  if (!own.ok) return own;
  if (!(await withinLimit("invitesPerUser", String(inviter.id)))) return tooMany(INVITATION_MESSAGES.tooMany);
  const { token, hash } = once.token ? seeded(once.token) : newLinkToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + config().inviteDays * 24 * 60 * 60_000).toISOString();
  const url = origin + invitationPath(token);
  const circle = input.circle ?? impliedCircle(input.relationship);
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
            circle,
            relationship: input.relationship ?? null,
            created_at: now.toISOString(),
            expires_at: expiresAt,
          })
          .returning("id"),
      );
      const kids = await saveInvitationKids(trx, { id, inviterId: inviter.id }, input.coParentKids);
      // not to an address whose account is in a block with the inviter (nothing says so)
      if (input.email && !(await isBlockedWithAddress(inviter.id, input.email, trx))) {
        await enqueueMail(trx, {
          ...invitationMail({
            to: input.email,
            inviterName: displayName(inviter),
            note: input.note ?? null,
            url,
            expiresAt,
            coParentOf: kids.map((k) => k.name),
            youSee: audiencesText(circle),
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
  return { ok: true, invitation: (await withKids([invitationFromRow(row!)], db()))[0]!, url };
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
  return { ok: true, invitation: (await withKids([invitationFromRow(row!)], db()))[0]! };
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
  /** The address it was emailed to (the join form starts with it). */
  email: string | null;
  /** What whoever answers will see of the inviter's moments, and the inviter of theirs. */
  sees: { youSee: string; inviterSees: string } | null;
};

/**
 * What each side sees of the other's moments once an invitation filed in `circle` is accepted:
 * the one answering, the inviter's moments shared with that circle's audiences; the inviter,
 * theirs shared with Friends' (their own side starts at Friends). From the access module's table.
 */
export function whatEachSees(circle: Circle): { youSee: string; inviterSees: string } {
  return { youSee: audiencesText(circle), inviterSees: audiencesText("friends") };
}

/** An invitation by its link token's hash, with its inviter's name: what its page and its answers read. */
/** The row `invitationByHash` answers. */
export type InvitationByHash = InvitationStateColumns &
  Pick<InvitationRow, "inviter_id" | "offered_to" | "declined_at" | "email"> &
  Pick<UserRow, "username" | "first_name" | "last_name">;

export const invitationByHash = query<{ hash: string }, InvitationByHash>((p, k) =>
  k("invitations")
    .join("users as inviter", "inviter.id", "invitations.inviter_id")
    .where("invitations.token_hash", p("hash"))
    .first(
      ...invitationStateColumns,
      "invitations.inviter_id",
      "invitations.offered_to",
      "invitations.declined_at",
      "invitations.email",
      "inviter.username",
      "inviter.first_name",
      "inviter.last_name",
    ),
);

/** The invitation's state for `viewerId`: an invitation offered to the viewer is theirs to answer (or declined by them). */
function stateFor(row: InvitationByHash, viewerId: number | null, now: string): InvitationLink["state"] {
  const state = stateOf(row, now);
  if (state !== "used" || viewerId === null || (row.offered_to ?? 0) !== viewerId) return state;
  if (row.declined_at) return "declined";
  return row.expires_at <= now ? "expired" : "offered";
}

/**
 * What an invitation link is (the page a link opens) to `viewerId` (null: signed out): its state
 * and, while the viewer may answer it (pending, or offered to them), who sent it.
 */
export async function readInvitation(
  token: string | undefined,
  viewerId: number | null = null,
): Promise<InvitationLink> {
  const none: InvitationLink = {
    state: "unknown",
    inviterId: null,
    inviterName: null,
    note: null,
    email: null,
    sees: null,
  };
  if (!looksLikeLinkToken(token)) return none;
  const row = await invitationByHash.first({ hash: hashLinkToken(token) });
  if (!row) return none;
  const state = stateFor(row, viewerId, nowIso());
  // who sent it is told only while it can be answered
  if (state !== "pending" && state !== "offered") return { ...none, state };
  return {
    state,
    inviterId: row.inviter_id,
    inviterName: displayName(row),
    note: row.note,
    email: state === "pending" ? row.email : null,
    sees: whatEachSees(row.circle),
  };
}
/** Who made the invitation of link `token`, whatever its state (null: no such link). */
export async function inviterOfLink(token: string | undefined): Promise<number | null> {
  if (!looksLikeLinkToken(token)) return null;
  return (await invitationByHash.first({ hash: hashLinkToken(token) }))?.inviter_id ?? null;
}

/** Where someone who just joined or accepted `inviterId`'s invitation lands: the feed, welcomed. */
export const joinedPath = (inviterId: number | null) =>
  inviterId === null ? href("/feed") : `${href("/feed")}?welcome=${inviterId}`;

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
