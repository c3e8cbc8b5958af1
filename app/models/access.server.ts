import type { Knex } from "knex";
import { db, type Db } from "~/lib/db.server";

// THE rule of the product: a user's kids, their moments, likes, comments and photos are visible to
// that user and to users with an ACCEPTED friendship with them (either direction). Pending and
// denied requests give nothing. Pages, /api routes and the image route all ask here.

export async function canSeeKidsOf(viewerId: number, ownerId: number, conn: Db = db()): Promise<boolean> {
  if (viewerId === ownerId) return true;
  const row = await conn("friendships")
    .where({ user_low: Math.min(viewerId, ownerId), user_high: Math.max(viewerId, ownerId), status: "accepted" })
    .first("id");
  return Boolean(row);
}

/**
 * The same rule as a SQL condition, for queries that filter many rows at once:
 * `ownerColumn` (e.g. "kids.user_id") is the viewer or one of the viewer's accepted friends.
 */
export function whereVisibleTo(qb: Knex.QueryBuilder, ownerColumn: string, viewerId: number): Knex.QueryBuilder {
  return qb.where((w) =>
    w.where(ownerColumn, viewerId).orWhereExists((sub) =>
      sub
        .select(db().raw("1"))
        .from("friendships")
        .where("friendships.status", "accepted")
        .andWhere((pair) =>
          pair
            .where((a) => a.where("friendships.user_id", viewerId).andWhereRaw("friendships.friend_id = ??", [ownerColumn]))
            .orWhere((b) => b.where("friendships.friend_id", viewerId).andWhereRaw("friendships.user_id = ??", [ownerColumn])),
        ),
    ),
  );
}
