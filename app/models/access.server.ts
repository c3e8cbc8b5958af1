import type { Knex } from "knex";
import { db, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { forbidden, notFound, type Refusal } from "./refusal";

// THE access module (docs/decisions/0012-refusal-and-access-module.md). The rule of the product: a
// user's kids, their moments, likes, comments and photos are visible to that user and to users
// with an ACCEPTED friendship with them (either direction); pending and denied requests give
// nothing; only the owner changes a kid or its moments; only its author changes a comment.
//
// Everything that depends on who is asking asks here: the guards (requireKid, requireMoment,
// requireCommentAuthor, canViewImage) for one thing, whereKidVisibleTo and whereMomentVisibleTo
// (over whereVisibleTo) for lists. The friendship
// condition exists once, in acceptedBetween: on the ordered pair user_low/user_high (UNIQUE, so
// one index lookup). The friendships table is otherwise only the state machine's
// (app/models/friendships.server.ts).
//
// The guards answer the access facts or a Refusal (app/models/refusal.ts) in the API's words
// (docs/api.md); callers may reword it (likes and comments have their own messages). Without
// `conn` they read on the read connection; with `conn` (a write transaction) inside it. Same SQL
// either way.

export const ACCESS_MESSAGES = {
  kidNotFound: "Kid not found",
  momentNotFound: "Daily log not found",
  commentNotFound: "Comment not found",
  notAuthorized: "You are not authorized",
} as const;

/** What the asker wants to do: see it, or change it (owner or author only). */
export type Need = "view" | "change";

type Value = number | string;
/** One side of a friendship pair: a value (or query parameter), or a column (`db().ref(…)`). */
type Side = Value | Knex.Ref<string, Record<string, string>>;

/** `friendships` rows of an ACCEPTED friendship between `a` and `b`, whichever sent the request. */
function acceptedBetween(qb: Knex.QueryBuilder, a: Side, b: Side): Knex.QueryBuilder {
  return qb.where("friendships.status", "accepted").andWhere((pair) =>
    pair
      .where((x) => x.where("friendships.user_low", a).andWhere("friendships.user_high", b))
      .orWhere((y) => y.where("friendships.user_low", b).andWhere("friendships.user_high", a)),
  );
}

const accepted = query<{ a: number; b: number }>((p, k) => acceptedBetween(k("friendships"), p("a"), p("b")).first("friendships.id"));

/** May `viewerId` see the kids (moments, photos…) of `ownerId`? */
export async function canSeeKidsOf(viewerId: number, ownerId: number, conn?: Db): Promise<boolean> {
  if (viewerId === ownerId) return true;
  return Boolean(await accepted.first({ a: viewerId, b: ownerId }, { conn }));
}

/**
 * The same rule as a SQL condition, for queries that filter many rows at once: `ownerColumn`
 * (e.g. "kids.user_id") is the viewer or one of the viewer's accepted friends. `viewerId` is the
 * viewer's id, or a query parameter standing for it.
 */
export function whereVisibleTo(qb: Knex.QueryBuilder, ownerColumn: string, viewerId: Value): Knex.QueryBuilder {
  const k = db();
  return qb.where((w) =>
    w
      .where(ownerColumn, viewerId)
      .orWhereExists((sub) => acceptedBetween(sub.select(k.raw("1")).from("friendships"), viewerId, k.ref(ownerColumn))),
  );
}

/**
 * The condition for lists of KIDS: rows of `kids` (or its alias) that `viewerId` may see. Every
 * list of kids uses this (never `whereVisibleTo` on its own), so a finer rule changes here only.
 */
export function whereKidVisibleTo(qb: Knex.QueryBuilder, viewerId: Value, kids = "kids"): Knex.QueryBuilder {
  return whereVisibleTo(qb, `${kids}.user_id`, viewerId);
}

/**
 * The condition for lists of MOMENTS (and of what hangs off a moment: likes, comments, photos):
 * rows of `daily_logs` that `viewerId` may see. The query must join the moment's kid (`kids`, or
 * the alias given). Every list of moments uses this, so a rule per moment (an audience, say)
 * changes here only.
 */
export function whereMomentVisibleTo(
  qb: Knex.QueryBuilder,
  viewerId: Value,
  tables: { moments?: string; kids?: string } = {},
): Knex.QueryBuilder {
  return whereVisibleTo(qb, `${tables.kids ?? "kids"}.user_id`, viewerId);
}

/**
 * Rows that are the user's own and nobody else's, never a friend's (`column` holds their owner):
 * their sessions, their account. For what only the user may list or end.
 */
export function whereOwnedBy(qb: Knex.QueryBuilder, column: string, userId: Value): Knex.QueryBuilder {
  return qb.where(column, userId);
}

/**
 * The kids that are the user's to export (docs/spec.md, Your data): those the user owns. Kids of
 * friends that the user may see are theirs to export, not this user's. Co-parents change this here.
 */
export function whereKidOwnedBy(qb: Knex.QueryBuilder, userId: Value, kids = "kids"): Knex.QueryBuilder {
  return qb.where(`${kids}.user_id`, userId);
}

// ---- the facts --------------------------------------------------------------------------------

export type KidFacts = { kidId: number; ownerId: number; visible: boolean; isOwner: boolean };
export type MomentFacts = KidFacts & { momentId: number };

/** Access to a kid whose owner is already known (e.g. read with the kid's row). */
export async function accessToKid(viewerId: number, kidId: number, ownerId: number, conn?: Db): Promise<KidFacts> {
  return { kidId, ownerId, isOwner: ownerId === viewerId, visible: await canSeeKidsOf(viewerId, ownerId, conn) };
}

const kidOwner = query<{ kidId: number }>((p, k) => k("kids").where("kids.id", p("kidId")).first("kids.id", "kids.user_id"));

/** Who owns a kid and whether `viewerId` may see it. null: no such kid. */
export async function kidAccess(viewerId: number, kidId: number, conn?: Db): Promise<KidFacts | null> {
  const kid = await kidOwner.first<{ user_id: number }>({ kidId }, { conn });
  return kid ? accessToKid(viewerId, kidId, Number(kid.user_id), conn) : null;
}

const momentOwner = query<{ momentId: number }>((p, k) =>
  k("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", p("momentId"))
    .first("daily_logs.kid_id", "kids.user_id as owner_id"),
);

/** The same for a moment: its kid, its owner, and whether `viewerId` may see it. null: no such moment. */
export async function momentAccess(viewerId: number, momentId: number, conn?: Db): Promise<MomentFacts | null> {
  const row = await momentOwner.first({ momentId }, { conn });
  if (!row) return null;
  return { momentId, ...(await accessToKid(viewerId, Number(row.kid_id), Number(row.owner_id), conn)) };
}

// ---- the guards -------------------------------------------------------------------------------

export type KidGrant = { ok: true; kidId: number; ownerId: number; isOwner: boolean };
export type MomentGrant = KidGrant & { momentId: number };
export type CommentGrant = { ok: true; commentId: number; momentId: number };

/** A row the caller has already read, with what the rule needs (saves a lookup). */
export type KidRow = { id: number; ownerId: number };
export type MomentRow = { id: number; kidId: number; ownerId: number };
export type CommentRow = { id: number; momentId: number; authorId: number };

/** null when `facts` allow `need`; otherwise why not. */
function judge(facts: KidFacts | null, need: Need, notFoundMessage: string): Refusal | null {
  if (!facts) return notFound(notFoundMessage);
  if (!facts.visible) return forbidden(ACCESS_MESSAGES.notAuthorized, { hidden: true });
  if (need === "change" && !facts.isOwner) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return null;
}

/**
 * May `viewerId` see (`view`) or change (`change`: the owner only) this kid? `kid`: its id, or the
 * row the caller has already read (null: there was none).
 */
export async function requireKid(viewerId: number, kid: number | KidRow | null, need: Need = "view", conn?: Db): Promise<KidGrant | Refusal> {
  const facts =
    typeof kid === "number" ? await kidAccess(viewerId, kid, conn) : kid && (await accessToKid(viewerId, kid.id, kid.ownerId, conn));
  const refusal = judge(facts, need, ACCESS_MESSAGES.kidNotFound);
  if (refusal) return refusal;
  const { kidId, ownerId, isOwner } = facts!;
  return { ok: true, kidId, ownerId, isOwner };
}

/** The same for a moment (its kid's owner decides). */
export async function requireMoment(
  viewerId: number,
  moment: number | MomentRow | null,
  need: Need = "view",
  conn?: Db,
): Promise<MomentGrant | Refusal> {
  const facts =
    typeof moment === "number"
      ? await momentAccess(viewerId, moment, conn)
      : moment && { momentId: moment.id, ...(await accessToKid(viewerId, moment.kidId, moment.ownerId, conn)) };
  const refusal = judge(facts, need, ACCESS_MESSAGES.momentNotFound);
  if (refusal) return refusal;
  const { momentId, kidId, ownerId, isOwner } = facts!;
  return { ok: true, momentId, kidId, ownerId, isOwner };
}

const commentAuthor = query<{ commentId: number }>((p, k) =>
  k("comments").where("comments.id", p("commentId")).first("comments.id", "comments.daily_log_id", "comments.user_id"),
);

/**
 * May `viewerId` change (edit, delete) this comment? Its author only, and only while they can
 * still see its moment. With `momentId` (a page's form names both) the comment must be that
 * moment's. Not found: "Comment not found", the moment's absence included.
 */
export async function requireCommentAuthor(
  viewerId: number,
  comment: number | CommentRow | null,
  opts: { momentId?: number; conn?: Db } = {},
): Promise<CommentGrant | Refusal> {
  let row = typeof comment === "number" ? null : comment;
  if (typeof comment === "number") {
    const found = await commentAuthor.first({ commentId: comment }, { conn: opts.conn });
    if (found) row = { id: comment, momentId: Number(found.daily_log_id), authorId: Number(found.user_id) };
  }
  if (!row || (opts.momentId !== undefined && row.momentId !== opts.momentId)) return notFound(ACCESS_MESSAGES.commentNotFound);
  const facts = await momentAccess(viewerId, row.momentId, opts.conn);
  const refusal = judge(facts, "view", ACCESS_MESSAGES.commentNotFound);
  if (refusal) return refusal;
  if (row.authorId !== viewerId) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return { ok: true, commentId: row.id, momentId: row.momentId };
}

/** The images row's facts the rule needs (app/images/storage.server.ts ImageRecord has them). */
export type ImageRef = { kind: string; owner_id: number };

/**
 * May `viewerId` fetch this photo? Profile pictures: any signed-in user. Kid and moment photos:
 * whoever may see the owner's kids. Anything else: nobody.
 */
export async function canViewImage(viewerId: number, image: ImageRef): Promise<boolean> {
  if (image.kind === "user") return true;
  if (image.kind === "kid" || image.kind === "log") return canSeeKidsOf(viewerId, image.owner_id);
  return false;
}

// ---- invitations and sign-in links (issue #16) -------------------------------------------------

const invitationOwner = query<{ id: number }>((p, k) => k("invitations").where("invitations.id", p("id")).first("invitations.inviter_id"));

/** May `viewerId` change (revoke) this invitation? Its inviter only; anyone else: as if it did not exist. */
export async function requireInvitationOwner(viewerId: number, invitationId: number, conn?: Db): Promise<{ ok: true; invitationId: number } | Refusal> {
  const row = await invitationOwner.first({ id: invitationId }, { conn });
  if (!row || Number(row.inviter_id) !== viewerId) return notFound("Invitation not found");
  return { ok: true, invitationId };
}

const invitedFriend = query<{ viewer: number; friend: number }>((p, k) =>
  k("invitations")
    .join("users", "users.id", "invitations.accepted_by")
    .where("invitations.inviter_id", p("viewer"))
    .andWhere("invitations.accepted_by", p("friend"))
    .first("users.password_hash"),
);

/**
 * May `viewerId` make a sign-in link for `friendId` (a relative without email or password)? Only
 * for an accepted friend who joined by the viewer's own invitation and has set no password: the
 * parent stands in for the relative's mailbox, never for an account someone else secured.
 */
export async function requireInvitedFriend(viewerId: number, friendId: number, conn?: Db): Promise<{ ok: true; friendId: number } | Refusal> {
  const row = await invitedFriend.first<{ password_hash: string }>({ viewer: viewerId, friend: friendId }, { conn });
  if (!row || !(await canSeeKidsOf(friendId, viewerId, conn)) || friendId === viewerId) return notFound("Friend not found");
  if (row.password_hash !== "") return forbidden("This friend has set a password: they can ask for a sign-in link by email.");
  return { ok: true, friendId };
}
