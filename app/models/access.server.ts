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

export type KidAccess = { kidId: number; ownerId: number; visible: boolean; isOwner: boolean };
export type LogAccess = KidAccess & { logId: number };

/** Who owns a kid and whether `viewerId` may see it. null: no such kid. */
export async function kidAccess(viewerId: number, kidId: number, conn: Db = db()): Promise<KidAccess | null> {
  const kid = await conn("kids").where("id", kidId).first("id", "user_id");
  if (!kid) return null;
  const ownerId = Number(kid.user_id);
  return { kidId, ownerId, isOwner: ownerId === viewerId, visible: await canSeeKidsOf(viewerId, ownerId, conn) };
}

/** The same for a moment (daily log): its kid, its owner, and whether `viewerId` may see it. */
export async function logAccess(viewerId: number, logId: number, conn: Db = db()): Promise<LogAccess | null> {
  const row = await conn("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", logId)
    .first("daily_logs.id as log_id", "kids.id as kid_id", "kids.user_id as owner_id");
  if (!row) return null;
  const ownerId = Number(row.owner_id);
  return {
    logId,
    kidId: Number(row.kid_id),
    ownerId,
    isOwner: ownerId === viewerId,
    visible: await canSeeKidsOf(viewerId, ownerId, conn),
  };
}
