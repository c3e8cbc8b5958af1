import type { Knex } from "knex";
import { db, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { Audience } from "~/forms/circles";
import { forbidden, notFound, type Refusal } from "./refusal";

// THE access module (docs/decisions/0012-refusal-and-access-module.md,
// docs/decisions/0031-audiences-circles-co-parents-blocks.md). The rule of the product:
// - A kid is seen by its owner, its co-parents (accepted) and the owner's accepted friends.
// - A moment is seen by the kid's owner and co-parents whatever its audience; by the owner's
//   accepted friends when its audience is "everyone"; by those of them the owner put in the
//   Family circle when it is "family"; by nobody else ("us").
// - A kid handed over to a co-parent when its owner deleted their account is hidden from the new
//   owner's friends (`kids.shown_to_friends` false: parents only) until the new owner shows it
//   (docs/decisions/0041-co-parenting-follows-the-friendship.md).
// - Pending and denied requests give nothing. A block ends the friendship and any co-parent role
//   between the two at once (app/models/blocks.server.ts), so no rule below needs to ask about
//   blocks; only the comments of a blocked user on the blocker's moments are hidden here
//   (`whereCommentShown`), nothing of either reaches the other through digests, notifications
//   and exports (`whereNoBlockWith`), and `isBlockedBetween` answers other features.
// - The owner and co-parents change a kid and its moments ("change"); only the owner removes the
//   kid or manages its co-parents ("own"); only its author changes a comment.
//
// Everything that depends on who is asking asks here: the guards for one thing (requireKid,
// requireMoment, requireCommentAuthor, canViewImage, canSeeKidsOf, requireFriendshipParty,
// requireInvitationOwner, requireInvitedFriend), the conditions for lists (whereKidVisibleTo,
// whereMomentVisibleTo, whereKidParentIs, whereCommentShown, whereVisibleTo, whereOwnedBy,
// whereKidOwnedBy; visibleKidIds for lists across families), the blocks' answers
// (isBlockedBetween, isBlockedWithAddress, whereNotBlockedBy, whereNoBlockWith) and the access state of conditional
// pages (accessStamp). The guards read their facts (co-parent row, friendship and its circle, the
// moment's audience) in ONE query whose conditions are the same functions the lists use (parentOf,
// acceptedBetween, ownerFilesAsFamily).
//
// The friendship has ONE SQL form here: the ordered pair user_low/user_high with status
// "accepted". acceptedBetween tests it for a pair (both orders, each one lookup of the UNIQUE
// (user_low, user_high) index); acceptedFriendIds (accepted rows) and accessStamp (rows of any
// status) list the viewer's rows from both sides instead (user_low = viewer by that index,
// user_high = viewer by the (user_high, status) index), so the feed starts from the viewer's few
// friendships (docs/decisions/0028-moment-dates-and-feed.md). The pair is stored once, as
// user_id/friend_id (who sent the request: only the state machine reads them,
// app/models/friendships.server.ts); user_low/user_high are generated from them by the database,
// so the ordered pair read here can never disagree with the request.
// Outside this module that state machine is the only code that touches the friendships table
// (besides the migrations and the demo seed); what other modules need of it (a block ends it, a
// side's circle, the friend count) is a function there.
//
// The guards answer the access facts or a Refusal (app/models/refusal.ts) in the API's words
// (docs/api.md); callers may reword it (likes and comments have their own messages). Without
// `conn` they read on the read connection; with `conn` (a write transaction) inside it. Same SQL
// either way.

export const ACCESS_MESSAGES = {
  kidNotFound: "Kid not found",
  momentNotFound: "Daily log not found",
  commentNotFound: "Comment not found",
  friendshipNotFound: "Friendship not found",
  notAuthorized: "You are not authorized",
} as const;

/**
 * What the asker wants to do: see it; change it (the kid's owner or a co-parent: edit the kid, add,
 * edit and delete its moments); or own it (the owner only: remove the kid, manage co-parents).
 */
export type Need = "view" | "change" | "own";

type Value = number | string;
/** One side of a pair: a value (or query parameter), or a column (`db().ref(…)`). */
type Side = Value | Knex.Ref<string, Record<string, string>>;

/** `friendships` rows of an ACCEPTED friendship between `a` and `b`, whichever sent the request. */
function acceptedBetween(qb: Knex.QueryBuilder, a: Side, b: Side): Knex.QueryBuilder {
  return qb
    .where("friendships.status", "accepted")
    .andWhere((pair) =>
      pair
        .where((x) => x.where("friendships.user_low", a).andWhere("friendships.user_high", b))
        .orWhere((y) => y.where("friendships.user_low", b).andWhere("friendships.user_high", a)),
    );
}

/** Of those rows: the ones where `owner`'s side put the other in its Family circle. */
function ownerFilesAsFamily(qb: Knex.QueryBuilder, owner: Side): Knex.QueryBuilder {
  return qb.where((w) =>
    w
      .where((x) => x.where("friendships.user_low", owner).andWhere("friendships.low_circle", "family"))
      .orWhere((y) => y.where("friendships.user_high", owner).andWhere("friendships.high_circle", "family")),
  );
}

/** `co_parents` rows that make `viewer` an (accepted) co-parent of the kid `kidId`. */
function coParentRows(qb: Knex.QueryBuilder, kidId: Side, viewer: Side): Knex.QueryBuilder {
  return qb
    .where("co_parents.kid_id", kidId)
    .andWhere("co_parents.user_id", viewer)
    .andWhere("co_parents.status", "accepted");
}

/** The owner's friends may see the kid at all (`kids` names the kids table or alias): not a handed-over kid not yet shown. */
function shownToFriends(qb: Knex.QueryBuilder, kids: string): Knex.QueryBuilder {
  return qb.where(`${kids}.shown_to_friends`, true);
}

/** `viewer` is the kid's owner or one of its co-parents (`kids` names the kids table or alias). */
function parentOf(w: Knex.QueryBuilder, viewer: Value, kids: string): Knex.QueryBuilder {
  const k = db();
  return w
    .where(`${kids}.user_id`, viewer)
    .orWhereExists((sub) => coParentRows(sub.select(k.raw("1")).from("co_parents"), k.ref(`${kids}.id`), viewer));
}

const accepted = query<{ a: number; b: number }>((p, k) =>
  acceptedBetween(k("friendships"), p("a"), p("b")).first("friendships.id"),
);

/** Are `viewerId` and `ownerId` the same user or accepted friends? (Who may see the owner's kids, co-parents aside.) */
export async function canSeeKidsOf(viewerId: number, ownerId: number, conn?: Db): Promise<boolean> {
  if (viewerId === ownerId) return true;
  return Boolean(await accepted.first({ a: viewerId, b: ownerId }, { conn }));
}

/**
 * The owner-level condition, for queries about USERS' relations (not kids or moments):
 * `ownerColumn` is the viewer or one of the viewer's accepted friends. Lists of kids and moments
 * use whereKidVisibleTo / whereMomentVisibleTo, never this on its own.
 */
export function whereVisibleTo(qb: Knex.QueryBuilder, ownerColumn: string, viewerId: Value): Knex.QueryBuilder {
  const k = db();
  return qb.where((w) =>
    w
      .where(ownerColumn, viewerId)
      .orWhereExists((sub) =>
        acceptedBetween(sub.select(k.raw("1")).from("friendships"), viewerId, k.ref(ownerColumn)),
      ),
  );
}

/**
 * The condition for lists of KIDS: rows of `kids` (or its alias) that `viewerId` may see (owner,
 * co-parent, accepted friend of the owner). Every list of kids uses this.
 */
export function whereKidVisibleTo(qb: Knex.QueryBuilder, viewerId: Value, kids = "kids"): Knex.QueryBuilder {
  const k = db();
  return qb.where((w) =>
    parentOf(w, viewerId, kids).orWhere((friend) =>
      shownToFriends(friend, kids).whereExists((sub) =>
        acceptedBetween(sub.select(k.raw("1")).from("friendships"), viewerId, k.ref(`${kids}.user_id`)),
      ),
    ),
  );
}

/**
 * The ids of `viewerId`'s accepted friends, as a subquery on the ordered pair: the other side of
 * each accepted row where the viewer is `user_low` (the UNIQUE (user_low, user_high) index) or
 * `user_high` (the (user_high, status) index). The same pairs as acceptedBetween, listed from the
 * viewer's side instead of tested against an owner.
 */
function acceptedFriendIds(k: Knex, viewerId: Value): Knex.QueryBuilder {
  return k
    .select("friendships.user_high")
    .from("friendships")
    .where("friendships.user_low", viewerId)
    .andWhere("friendships.status", "accepted")
    .unionAll((q) =>
      q
        .select("friendships.user_low")
        .from("friendships")
        .where("friendships.user_high", viewerId)
        .andWhere("friendships.status", "accepted"),
    );
}

/**
 * The ids of the kids `viewerId` may see, as a subquery that starts from the viewer's own rows
 * (their kids, their accepted friends' kids, their accepted co-parent roles) instead of testing
 * every kid: the same set as whereKidVisibleTo, for lists across families (the feed) that would
 * otherwise scan the kids table.
 */
export function visibleKidIds(k: Knex, viewerId: Value): Knex.QueryBuilder {
  return k("kids as visible_kids")
    .select("visible_kids.id")
    .where((w) =>
      w
        .where("visible_kids.user_id", viewerId)
        .orWhere((friend) =>
          shownToFriends(friend, "visible_kids").whereIn("visible_kids.user_id", acceptedFriendIds(k, viewerId)),
        ),
    )
    .unionAll((q) =>
      q
        .select("co_parents.kid_id")
        .from("co_parents")
        .where("co_parents.user_id", viewerId)
        .andWhere("co_parents.status", "accepted"),
    );
}

/** The kids (`kids` or its alias) that `viewerId` owns or co-parents: My Kids. */
export function whereKidParentIs(qb: Knex.QueryBuilder, viewerId: Value, kids = "kids"): Knex.QueryBuilder {
  return qb.where((w) => parentOf(w, viewerId, kids));
}

/**
 * The condition for lists of MOMENTS (and of what hangs off a moment: likes, comments, photos):
 * rows of `daily_logs` (or `tables.moments`) that `viewerId` may see. The query must join the
 * moment's kid (`kids`, or `tables.kids`). Every list of moments uses this: the kid's owner and
 * co-parents see every moment; an accepted friend of the owner sees "everyone" moments, and
 * "family" ones when the owner filed them in the Family circle.
 */
export function whereMomentVisibleTo(
  qb: Knex.QueryBuilder,
  viewerId: Value,
  tables: { moments?: string; kids?: string } = {},
): Knex.QueryBuilder {
  const k = db();
  const kids = tables.kids ?? "kids";
  const moments = tables.moments ?? "daily_logs";
  const owner = k.ref(`${kids}.user_id`);
  return qb.where((w) =>
    parentOf(w, viewerId, kids).orWhere((friend) =>
      shownToFriends(friend, kids).whereExists((sub) =>
        acceptedBetween(sub.select(k.raw("1")).from("friendships"), viewerId, owner).andWhere((a) =>
          a
            .where(`${moments}.audience`, "everyone")
            .orWhere((fam) => ownerFilesAsFamily(fam.where(`${moments}.audience`, "family"), owner)),
        ),
      ),
    ),
  );
}

/**
 * The condition for lists of COMMENTS (`comments` joined to its moment's `kids`): hides the
 * comments of users the kid's owner has blocked, unless the owner chose to keep showing them, and
 * those a former owner's block hid when the kid was handed over (`comments.hidden`,
 * docs/decisions/0041-co-parenting-follows-the-friendship.md).
 */
export function whereCommentShown(
  qb: Knex.QueryBuilder,
  tables: { comments?: string; kids?: string } = {},
): Knex.QueryBuilder {
  const k = db();
  return qb.where(`${tables.comments ?? "comments"}.hidden`, false).whereNotExists((sub) =>
    sub
      .select(k.raw("1"))
      .from("blocks")
      .where("blocks.blocker_id", k.ref(`${tables.kids ?? "kids"}.user_id`))
      .andWhere("blocks.blocked_id", k.ref(`${tables.comments ?? "comments"}.user_id`))
      .andWhere("blocks.show_comments", false),
  );
}

const blockBetween = query<{ a: number; b: number }>((p, k) =>
  k("blocks")
    .where((x) => x.where("blocks.blocker_id", p("a")).andWhere("blocks.blocked_id", p("b")))
    .orWhere((y) => y.where("blocks.blocker_id", p("b")).andWhere("blocks.blocked_id", p("a")))
    .first("blocks.blocker_id"),
);

/**
 * Has either of `a` and `b` blocked the other? Then neither may send the other a friend request,
 * a co-parent invitation or any other invitation. `blockedBy`: who blocked (null: nobody).
 */
export async function isBlockedBetween(
  a: number,
  b: number,
  conn?: Db,
): Promise<{ blocked: boolean; blockedBy: number | null }> {
  const row = await blockBetween.first({ a, b }, { conn });
  return { blocked: Boolean(row), blockedBy: row ? Number(row.blocker_id) : null };
}

const blockWithAddress = query<{ userId: number; email: string }>((p, k) =>
  k("users")
    .where("users.email_normalized", p("email"))
    .whereExists((sub) =>
      sub
        .select(k.raw("1"))
        .from("blocks")
        .where((x) => x.where("blocks.blocker_id", k.ref("users.id")).andWhere("blocks.blocked_id", p("userId")))
        .orWhere((y) => y.where("blocks.blocker_id", p("userId")).andWhere("blocks.blocked_id", k.ref("users.id"))),
    )
    .first("users.id"),
);

/**
 * Is there a block between `userId` and the account that uses the (normalized) address `email`?
 * For an emailed invitation: such a message is not sent, and the inviter is not told
 * (docs/spec.md "Invitations"). No account at that address: false.
 */
export async function isBlockedWithAddress(userId: number, email: string, conn?: Db): Promise<boolean> {
  return Boolean(await blockWithAddress.first({ userId, email }, { conn }));
}

/**
 * What others did (`column`: who did it: a comment's or a like's author, a notification's actor)
 * that may reach `viewerId` through the channels that carry it to them (digests, notifications,
 * the export): nothing by a user in a block with the viewer, whichever of the two blocked the
 * other. Stricter than `whereCommentShown`: the blocker's "Show their comments" is about the
 * pages, and a block is two-way here as for requests and invitations (`isBlockedBetween`).
 */
export function whereNoBlockWith(qb: Knex.QueryBuilder, column: string, viewerId: Value): Knex.QueryBuilder {
  const k = db();
  return qb.whereNotExists((sub) =>
    sub
      .select(k.raw("1"))
      .from("blocks")
      .where((x) => x.where("blocks.blocker_id", viewerId).andWhere("blocks.blocked_id", k.ref(column)))
      .orWhere((y) => y.where("blocks.blocker_id", k.ref(column)).andWhere("blocks.blocked_id", viewerId)),
  );
}

/** `users.id` (or `column`) has not blocked `viewerId`: for searches, so a blocker cannot be found. */
export function whereNotBlockedBy(qb: Knex.QueryBuilder, column: string, viewerId: Value): Knex.QueryBuilder {
  const k = db();
  return qb.whereNotExists((sub) =>
    sub
      .select(k.raw("1"))
      .from("blocks")
      .where("blocks.blocker_id", k.ref(column))
      .andWhere("blocks.blocked_id", viewerId),
  );
}

/**
 * Rows that are the user's own and nobody else's, never a friend's (`column` holds their owner):
 * their sessions, their account. For what only the user may list or end.
 */
export function whereOwnedBy(qb: Knex.QueryBuilder, column: string, userId: Value): Knex.QueryBuilder {
  return qb.where(column, userId);
}

/** The kids the user owns (not those they co-parent): what deleting the account takes with it. */
export function whereKidOwnedBy(qb: Knex.QueryBuilder, userId: Value, kids = "kids"): Knex.QueryBuilder {
  return qb.where(`${kids}.user_id`, userId);
}

/**
 * The moments that are the user's to export (docs/spec.md §2 "Your data", docs/decisions/0023):
 * every moment of a kid the user owns, and the moments the user posted on a kid they co-parent
 * (the other parent's are theirs to export). Moments of friends' kids are never the user's. The
 * query must join the moment's kid (`kids`, or `tables.kids`). The kids of the export are
 * whereKidParentIs's.
 */
export function whereMomentExportedBy(
  qb: Knex.QueryBuilder,
  userId: Value,
  tables: { moments?: string; kids?: string } = {},
): Knex.QueryBuilder {
  const kids = tables.kids ?? "kids";
  const moments = tables.moments ?? "daily_logs";
  return qb.where((w) =>
    w
      .where(`${kids}.user_id`, userId)
      .orWhere((co) => co.where(`${moments}.posted_by`, userId).andWhere((p) => parentOf(p, userId, kids))),
  );
}

// ---- the facts --------------------------------------------------------------------------------

export type KidFacts = {
  kidId: number;
  ownerId: number;
  visible: boolean;
  /** The kid's (original) owner. */
  isOwner: boolean;
  /** The owner or an accepted co-parent: may change the kid and its moments. */
  isParent: boolean;
};
export type MomentFacts = KidFacts & { momentId: number; audience: Audience };

/** The facts' columns, read with the kid (`kids`): is the viewer a co-parent, a friend, family? */
function withRelation(qb: Knex.QueryBuilder, viewer: string, k: Knex): Knex.QueryBuilder {
  const owner = k.ref("kids.user_id");
  return qb.select(
    "kids.id as kid_id",
    "kids.user_id as owner_id",
    "kids.shown_to_friends",
    k.raw("(case when exists ? then 1 else 0 end) as co_parent", [
      coParentRows(k("co_parents").select(k.raw("1")), k.ref("kids.id"), viewer),
    ]),
    k.raw("(case when exists ? then 1 else 0 end) as friend", [
      acceptedBetween(k("friendships").select(k.raw("1")), viewer, owner),
    ]),
    k.raw("(case when exists ? then 1 else 0 end) as family", [
      ownerFilesAsFamily(acceptedBetween(k("friendships").select(k.raw("1")), viewer, owner), owner),
    ]),
  );
}

type RelationRow = {
  kid_id: unknown;
  owner_id: unknown;
  shown_to_friends: unknown;
  co_parent: unknown;
  friend: unknown;
  family: unknown;
  audience?: unknown;
};

const kidRelation = query<{ kidId: number; viewer: number }>((p, k) =>
  withRelation(k("kids").where("kids.id", p("kidId")), p("viewer"), k).limit(1),
);
const momentRelation = query<{ momentId: number; viewer: number }>((p, k) =>
  withRelation(
    k("daily_logs").join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.id", p("momentId")),
    p("viewer"),
    k,
  )
    .select("daily_logs.audience")
    .limit(1),
);

/** The rule for one kid (and, with `audience`, one moment of it), from the relation row. */
function decide(viewerId: number, row: RelationRow, audience?: Audience): KidFacts {
  const ownerId = Number(row.owner_id);
  const isOwner = ownerId === viewerId;
  const isParent = isOwner || Number(row.co_parent) === 1;
  const shown = Boolean(row.shown_to_friends);
  const friend = shown && Number(row.friend) === 1;
  const family = shown && Number(row.family) === 1;
  const visible =
    isParent ||
    (audience === undefined ? friend : audience === "everyone" ? friend : audience === "family" ? family : false);
  return { kidId: Number(row.kid_id), ownerId, visible, isOwner, isParent };
}

const ownerFacts = (kidId: number, ownerId: number): KidFacts => ({
  kidId,
  ownerId,
  visible: true,
  isOwner: true,
  isParent: true,
});

/** Access to a kid whose owner is already known (e.g. read with the kid's row). One query unless the viewer is the owner. */
export async function accessToKid(viewerId: number, kidId: number, ownerId: number, conn?: Db): Promise<KidFacts> {
  if (viewerId === ownerId) return ownerFacts(kidId, ownerId);
  return (
    (await kidAccess(viewerId, kidId, conn)) ?? { kidId, ownerId, visible: false, isOwner: false, isParent: false }
  );
}

/** Who owns a kid and what `viewerId` may do with it. null: no such kid. One query. */
export async function kidAccess(viewerId: number, kidId: number, conn?: Db): Promise<KidFacts | null> {
  const row = await kidRelation.first<RelationRow>({ kidId, viewer: viewerId }, { conn });
  return row ? decide(viewerId, row) : null;
}

/** The same for a moment: its kid, its owner, its audience and what `viewerId` may do. null: no such moment. One query. */
export async function momentAccess(viewerId: number, momentId: number, conn?: Db): Promise<MomentFacts | null> {
  const row = await momentRelation.first<RelationRow>({ momentId, viewer: viewerId }, { conn });
  if (!row) return null;
  const audience = String(row.audience) as Audience;
  return { momentId, audience, ...decide(viewerId, row, audience) };
}

// ---- the guards -------------------------------------------------------------------------------

export type KidGrant = { ok: true; kidId: number; ownerId: number; isOwner: boolean; isParent: boolean };
export type MomentGrant = KidGrant & { momentId: number };
export type CommentGrant = { ok: true; commentId: number; momentId: number };

/** A row the caller has already read, with what the rule needs (saves a lookup for the owner). */
export type KidRow = { id: number; ownerId: number };
export type MomentRow = { id: number; kidId: number; ownerId: number };
export type CommentRow = { id: number; momentId: number; authorId: number };

/** null when `facts` allow `need`; otherwise why not. */
function judge(facts: KidFacts | null, need: Need, notFoundMessage: string): Refusal | null {
  if (!facts) return notFound(notFoundMessage);
  if (!facts.visible) return forbidden(ACCESS_MESSAGES.notAuthorized, { hidden: true });
  if (need === "change" && !facts.isParent) return forbidden(ACCESS_MESSAGES.notAuthorized);
  if (need === "own" && !facts.isOwner) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return null;
}

/**
 * May `viewerId` see (`view`), change (`change`: owner or co-parent) or own (`own`: the owner
 * only) this kid? `kid`: its id, or the row the caller has already read (null: there was none).
 */
export async function requireKid(
  viewerId: number,
  kid: number | KidRow | null,
  need: Need = "view",
  conn?: Db,
): Promise<KidGrant | Refusal> {
  const facts =
    typeof kid === "number"
      ? await kidAccess(viewerId, kid, conn)
      : kid && (await accessToKid(viewerId, kid.id, kid.ownerId, conn));
  const refusal = judge(facts, need, ACCESS_MESSAGES.kidNotFound);
  if (refusal) return refusal;
  const { kidId, ownerId, isOwner, isParent } = facts!;
  return { ok: true, kidId, ownerId, isOwner, isParent };
}

/** The same for a moment (its kid's owner and co-parents, and its audience, decide). */
export async function requireMoment(
  viewerId: number,
  moment: number | MomentRow | null,
  need: Need = "view",
  conn?: Db,
): Promise<MomentGrant | Refusal> {
  let facts: (KidFacts & { momentId: number }) | null;
  if (moment === null) facts = null;
  else if (typeof moment !== "number" && moment.ownerId === viewerId)
    facts = { momentId: moment.id, ...ownerFacts(moment.kidId, moment.ownerId) };
  else facts = await momentAccess(viewerId, typeof moment === "number" ? moment : moment.id, conn);
  const refusal = judge(facts, need, ACCESS_MESSAGES.momentNotFound);
  if (refusal) return refusal;
  const { momentId, kidId, ownerId, isOwner, isParent } = facts!;
  return { ok: true, momentId, kidId, ownerId, isOwner, isParent };
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
  if (!row || (opts.momentId !== undefined && row.momentId !== opts.momentId))
    return notFound(ACCESS_MESSAGES.commentNotFound);
  const facts = await momentAccess(viewerId, row.momentId, opts.conn);
  const refusal = judge(facts, "view", ACCESS_MESSAGES.commentNotFound);
  if (refusal) return refusal;
  if (row.authorId !== viewerId) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return { ok: true, commentId: row.id, momentId: row.momentId };
}

/** The images row's facts the rule needs (app/images/storage.server.ts ImageRecord has them). */
export type ImageRef = { id: number; kind: string; owner_id: number };

const kidOfImage = query<{ imageId: number; viewer: number }>((p, k) =>
  whereKidVisibleTo(k("kids").where("kids.image_id", p("imageId")), p("viewer")).first("kids.id"),
);
// a moment's photo: its first (daily_logs.image_id) or any of its photos (moment_photos), every
// photo of a multi-photo moment (docs/decisions/0030-several-photos-per-moment.md)
const momentOfImage = query<{ imageId: number; viewer: number }>((p, k) =>
  whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where((w) =>
        w
          .where("daily_logs.image_id", p("imageId"))
          .orWhereIn(
            "daily_logs.id",
            k("moment_photos").where("moment_photos.image_id", p("imageId")).select("moment_photos.daily_log_id"),
          ),
      ),
    p("viewer"),
  ).first("daily_logs.id"),
);

/**
 * May `viewerId` fetch this photo? Profile pictures: any signed-in user. A kid's photo: whoever
 * may see the kid; a moment's photo: whoever may see the moment (its audience included), one query
 * from the image to its kid or moment. A photo of no kid or moment, or of another kind: nobody.
 */
export async function canViewImage(viewerId: number, image: ImageRef): Promise<boolean> {
  if (image.kind === "user") return true;
  if (image.kind === "kid") return Boolean(await kidOfImage.first({ imageId: image.id, viewer: viewerId }));
  if (image.kind === "moment") return Boolean(await momentOfImage.first({ imageId: image.id, viewer: viewerId }));
  return false;
}

const friendshipParties = query<{ id: number }>((p, k) =>
  k("friendships")
    .where("friendships.id", p("id"))
    .first("friendships.status", "friendships.user_low", "friendships.user_high"),
);

export type FriendshipGrant = { ok: true; friendshipId: number; side: "low" | "high"; accepted: boolean };

/**
 * May `viewerId` change their own side of this friendship (file the other in a circle, give a
 * relationship; app/models/circles.server.ts)? Its two parties only, whatever its status; `side`
 * says which of the ordered pair's columns are theirs, `accepted` whether the friendship is.
 */
export async function requireFriendshipParty(
  viewerId: number,
  friendshipId: number,
  conn?: Db,
): Promise<FriendshipGrant | Refusal> {
  const row = await friendshipParties.first({ id: friendshipId }, { conn });
  if (!row) return notFound(ACCESS_MESSAGES.friendshipNotFound);
  const side = Number(row.user_low) === viewerId ? "low" : Number(row.user_high) === viewerId ? "high" : null;
  if (!side) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return { ok: true, friendshipId, side, accepted: row.status === "accepted" };
}

// ---- invitations and sign-in links (docs/decisions/0026-*) ------------------------------------

const invitationOwner = query<{ id: number }>((p, k) =>
  k("invitations").where("invitations.id", p("id")).first("invitations.inviter_id"),
);

/** May `viewerId` change (revoke) this invitation? Its inviter only; anyone else: as if it did not exist. */
export async function requireInvitationOwner(
  viewerId: number,
  invitationId: number,
  conn?: Db,
): Promise<{ ok: true; invitationId: number } | Refusal> {
  const row = await invitationOwner.first({ id: invitationId }, { conn });
  if (!row || Number(row.inviter_id) !== viewerId) return notFound("Invitation not found");
  return { ok: true, invitationId };
}

const invitedFriend = query<{ viewer: number; friend: number }>((p, k) =>
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
export function relativeLinksOpen(
  row: { password_hash?: unknown; links_closed_at?: unknown } | null | undefined,
): boolean {
  return Boolean(row) && String(row!.password_hash ?? "") === "" && !row!.links_closed_at;
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

// ---- the access state, for conditional pages ----------------------------------------------------

// One row of the viewer's relations as they stand: friendships (accepted or not, circles: a
// circle change stamps updated_at), co-parent roles and blocks, either side. Part of every
// conditional page's ETag (app/web/conditional.server.ts), so an unfriend, a circle or audience
// change, a co-parent role or a block gives the page a new tag even where the rows on it stay.
const accessStampQuery = query<{ viewer: number }>((p, k) =>
  k
    .queryBuilder()
    .select(
      k.raw(
        "(select count(*) from friendships where friendships.user_low = ? or friendships.user_high = ?) as friendships",
        [p("viewer"), p("viewer")],
      ),
      k.raw(
        "(select max(friendships.updated_at) from friendships where friendships.user_low = ? or friendships.user_high = ?) as friendships_at",
        [p("viewer"), p("viewer")],
      ),
      k.raw(
        "(select count(*) from co_parents where co_parents.user_id = ? and co_parents.status = 'accepted') as co_parents",
        [p("viewer")],
      ),
      k.raw("(select max(co_parents.id) from co_parents where co_parents.user_id = ?) as co_parents_max", [
        p("viewer"),
      ]),
      k.raw("(select count(*) from blocks where blocks.blocker_id = ? or blocks.blocked_id = ?) as blocks", [
        p("viewer"),
        p("viewer"),
      ]),
      k.raw("(select max(blocks.id) from blocks where blocks.blocker_id = ? or blocks.blocked_id = ?) as blocks_max", [
        p("viewer"),
        p("viewer"),
      ]),
    ),
);

/** `viewerId`'s access state as one comparable list (one indexed query): changes whenever a relation of theirs does. */
export async function accessStamp(viewerId: number): Promise<string[]> {
  const row = (await accessStampQuery.first({ viewer: viewerId })) ?? {};
  return ["friendships", "friendships_at", "co_parents", "co_parents_max", "blocks", "blocks_max"].map((c) =>
    String(row[c] ?? ""),
  );
}
