import type { Knex } from "knex";
import { db } from "~/lib/db.server";

// The SQL forms the access rules are written in (app/models/access.server.ts): a friendship, its
// Family circle, a co-parent role, a kid shown to friends. Each is written once, here; the list
// conditions and the guards' facts are made of them, nothing outside the access module uses them.

export type Value = number | string;
/** One side of a pair: a value (or query parameter), or a column (`db().ref(…)`). */
export type Side = Value | Knex.Ref<string, Record<string, string>>;

/** `friendships` rows of an ACCEPTED friendship between `a` and `b`, whichever sent the request. */
export function acceptedBetween(qb: Knex.QueryBuilder, a: Side, b: Side): Knex.QueryBuilder {
  return qb
    .where("friendships.status", "accepted")
    .andWhere((pair) =>
      pair
        .where((x) => x.where("friendships.user_low", a).andWhere("friendships.user_high", b))
        .orWhere((y) => y.where("friendships.user_low", b).andWhere("friendships.user_high", a)),
    );
}

/** Of those rows: the ones where `owner`'s side put the other in its Family circle. */
export function ownerFilesAsFamily(qb: Knex.QueryBuilder, owner: Side): Knex.QueryBuilder {
  return qb.where((w) =>
    w
      .where((x) => x.where("friendships.user_low", owner).andWhere("friendships.low_circle", "family"))
      .orWhere((y) => y.where("friendships.user_high", owner).andWhere("friendships.high_circle", "family")),
  );
}

/** `co_parents` rows that make `viewer` an (accepted) co-parent of the kid `kidId`. */
export function coParentRows(qb: Knex.QueryBuilder, kidId: Side, viewer: Side): Knex.QueryBuilder {
  return coParentKidIds(qb.where("co_parents.kid_id", kidId), viewer);
}

/** The kids `viewer` is an (accepted) co-parent of: `co_parents.kid_id` of `qb` (a select from co_parents). */
export function coParentKidIds(qb: Knex.QueryBuilder, viewer: Side): Knex.QueryBuilder {
  return qb.where("co_parents.user_id", viewer).andWhere("co_parents.status", "accepted");
}

/** The owner's friends may see the kid at all (`kids` names the kids table or alias): not a handed-over kid not yet shown. */
export function shownToFriends(qb: Knex.QueryBuilder, kids: string): Knex.QueryBuilder {
  return qb.where(`${kids}.shown_to_friends`, true);
}

/**
 * `viewer` is the kid's owner or one of its co-parents (`kids` names the kids table or alias). The
 * co-parent side is "the kid is among the viewer's co-parented kids" rather than "a co-parent row
 * exists for this kid": a list of the viewer's kids (My Kids) then reads the owner's index and the
 * viewer's few co_parents rows, where the EXISTS form made SQLite test every kid (5,000 kids: 0.7 ms
 * against 0.01 ms per query).
 */
export function parentOf(w: Knex.QueryBuilder, viewer: Side, kids: string): Knex.QueryBuilder {
  const k = db();
  return w
    .where(`${kids}.user_id`, viewer)
    .orWhereIn(`${kids}.id`, coParentKidIds(k.select("co_parents.kid_id").from("co_parents"), viewer));
}

/**
 * The ids of `viewerId`'s accepted friends, as a subquery on the ordered pair: the other side of
 * each accepted row where the viewer is `user_low` (the UNIQUE (user_low, user_high) index) or
 * `user_high` (the (user_high, status) index). The same pairs as acceptedBetween, listed from the
 * viewer's side instead of tested against an owner.
 */
export function acceptedFriendIds(k: Knex, viewerId: Value): Knex.QueryBuilder {
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
