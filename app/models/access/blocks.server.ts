import type { Knex } from "knex";
import type { BlockRow, UserRow } from "~/lib/tables";
import { db, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { Value } from "./pairs.server";

// What a block hides (app/models/access.server.ts): the answers for one pair or address, and the
// conditions that keep a blocked user's doings out of digests, notifications, exports and searches.

const blockBetween = query<{ a: number; b: number }, Pick<BlockRow, "blocker_id">>((p, k) =>
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
  return { blocked: !!row, blockedBy: row ? row.blocker_id : null };
}

const blockWithAddress = query<{ userId: number; email: string }, Pick<UserRow, "id">>((p, k) =>
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
