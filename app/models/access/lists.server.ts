import type { Knex } from "knex";
import { db } from "~/lib/db.server";
import {
  acceptedBetween,
  acceptedFriendIds,
  coParentKidIds,
  ownerFilesAsFamily,
  parentOf,
  shownToFriends,
  type Side,
  type Value,
} from "./pairs.server";
import { AUDIENCES_SEEN_BY_CIRCLE } from "./circles.server";

// The conditions for lists (app/models/access.server.ts): SQL where-clauses that restrict a list
// to what a viewer may see or what is theirs, made of the same forms as the guards' facts.

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
    .unionAll((q) => coParentKidIds(q.select("co_parents.kid_id").from("co_parents"), viewerId));
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
  viewerId: Side,
  tables: { moments?: string; kids?: string } = {},
): Knex.QueryBuilder {
  const k = db();
  const kids = tables.kids ?? "kids";
  const moments = tables.moments ?? "daily_logs";
  const owner = k.ref(`${kids}.user_id`);
  return qb.where((w) =>
    parentOf(w, viewerId, kids).orWhere((friend) =>
      shownToFriends(friend, kids).whereExists((sub) =>
        // every friend sees what the Friends circle sees, the Family circle more (circles.server.ts)
        acceptedBetween(sub.select(k.raw("1")).from("friendships"), viewerId, owner).andWhere((a) =>
          a
            .whereIn(`${moments}.audience`, [...AUDIENCES_SEEN_BY_CIRCLE.friends])
            .orWhere((fam) =>
              ownerFilesAsFamily(fam.whereIn(`${moments}.audience`, [...AUDIENCES_SEEN_BY_CIRCLE.family]), owner),
            ),
        ),
      ),
    ),
  );
}

/**
 * The condition for lists of PEOPLE who may see one moment: rows whose `userColumn` (`users.id`)
 * may see the moment `momentId`, by whereMomentVisibleTo with that person as the viewer. For
 * telling people about a moment (momentAudience, the right-away mails).
 */
export function whereUserSeesMoment(qb: Knex.QueryBuilder, userColumn: string, momentId: Value): Knex.QueryBuilder {
  const k = db();
  return qb.whereExists((sub) =>
    whereMomentVisibleTo(
      sub
        .select(k.raw("1"))
        .from("daily_logs")
        .join("kids", "kids.id", "daily_logs.kid_id")
        .where("daily_logs.id", momentId),
      k.ref(userColumn),
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
/**
 * Rows that are the user's own and nobody else's, never a friend's (`column` holds their owner):
 * their sessions, their account. For what only the user may list or end.
 */
export function whereOwnedBy(qb: Knex.QueryBuilder, column: string, userId: Value): Knex.QueryBuilder {
  return qb.where(column, userId);
}

/**
 * The kids the user owns (not those they co-parent): what deleting the account takes with it, and
 * the only kids a user may make someone a co-parent of. `userId` may be a column (`k.ref`): the
 * kids an invitation names that its inviter still owns.
 */
export function whereKidOwnedBy(
  qb: Knex.QueryBuilder,
  userId: Value | Knex.Ref<string, object>,
  kids = "kids",
): Knex.QueryBuilder {
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
