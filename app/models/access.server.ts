import type { Knex } from "knex";
import { db, type Db } from "~/lib/db.server";
import { readQuery } from "~/lib/db-read.server";

// THE rule of the product: a user's kids, their moments, likes, comments and photos are visible to
// that user and to users with an ACCEPTED friendship with them (either direction). Pending and
// denied requests give nothing. Pages, /api routes and the image route all ask here.
//
// Without `conn`, these checks read on the read connection (app/lib/db-read.server.ts) with
// prepared statements; with `conn` (e.g. a transaction), through knex on that connection. Same SQL.

type Value = number | string;

const acceptedFriendship = (conn: Db, low: Value, high: Value) =>
  conn("friendships").where({ user_low: low, user_high: high, status: "accepted" }).first("id");
const acceptedFriendshipRead = readQuery<{ low: number; high: number }>((p) => acceptedFriendship(db(), p("low"), p("high")));

export async function canSeeKidsOf(viewerId: number, ownerId: number, conn?: Db): Promise<boolean> {
  if (viewerId === ownerId) return true;
  const low = Math.min(viewerId, ownerId);
  const high = Math.max(viewerId, ownerId);
  const row = conn ? await acceptedFriendship(conn, low, high) : await acceptedFriendshipRead.first({ low, high });
  return Boolean(row);
}

/**
 * The same rule as a SQL condition, for queries that filter many rows at once:
 * `ownerColumn` (e.g. "kids.user_id") is the viewer or one of the viewer's accepted friends.
 * `viewerId` is the viewer's id, or a readQuery parameter standing for it.
 */
export function whereVisibleTo(qb: Knex.QueryBuilder, ownerColumn: string, viewerId: Value): Knex.QueryBuilder {
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

/** Access to a kid whose owner is already known (e.g. read with the kid's row). */
export async function accessToKid(viewerId: number, kidId: number, ownerId: number, conn?: Db): Promise<KidAccess> {
  return { kidId, ownerId, isOwner: ownerId === viewerId, visible: await canSeeKidsOf(viewerId, ownerId, conn) };
}

const kidOwner = (conn: Db, kidId: Value) => conn("kids").where("id", kidId).first("id", "user_id");
const kidOwnerRead = readQuery<{ kidId: number }>((p) => kidOwner(db(), p("kidId")));

/** Who owns a kid and whether `viewerId` may see it. null: no such kid. */
export async function kidAccess(viewerId: number, kidId: number, conn?: Db): Promise<KidAccess | null> {
  const kid = conn ? await kidOwner(conn, kidId) : await kidOwnerRead.first<{ id: number; user_id: number }>({ kidId });
  if (!kid) return null;
  return accessToKid(viewerId, kidId, Number(kid.user_id), conn);
}

const logOwner = (conn: Db, logId: Value) =>
  conn("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", logId)
    .first("daily_logs.id as log_id", "kids.id as kid_id", "kids.user_id as owner_id");
const logOwnerRead = readQuery<{ logId: number }>((p) => logOwner(db(), p("logId")));

/** The same for a moment (daily log): its kid, its owner, and whether `viewerId` may see it. */
export async function logAccess(viewerId: number, logId: number, conn?: Db): Promise<LogAccess | null> {
  const row = conn ? await logOwner(conn, logId) : await logOwnerRead.first<Record<string, unknown>>({ logId });
  if (!row) return null;
  return { logId, ...(await accessToKid(viewerId, Number(row.kid_id), Number(row.owner_id), conn)) };
}
