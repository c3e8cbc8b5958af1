import type { KidRow, UserRow } from "~/lib/tables";
import type { Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { whereNoBlockWith } from "./blocks.server";
import { acceptedFriendIds } from "./pairs.server";
import { whereUserSeesMoment } from "./lists.server";

// Who may see one moment (app/models/access.server.ts): the people a new moment is told to. Not a
// rule of its own: the candidates (the kid's owner, its co-parents, the owner's accepted friends)
// are only where to look, each kept if whereMomentVisibleTo lets them see the moment, the very
// condition every list of moments uses.

const momentKid = query<{ momentId: number }, { kid_id: KidRow["id"]; owner_id: KidRow["user_id"] }>((p, k) =>
  k("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", p("momentId"))
    .first("kids.id as kid_id", "kids.user_id as owner_id"),
);

const audienceOf = query<{ momentId: number; kidId: number; ownerId: number; actorId: number }, Pick<UserRow, "id">>(
  (p, k) =>
    whereNoBlockWith(
      k("users")
        .whereIn(
          "users.id",
          acceptedFriendIds(k, p("ownerId"))
            .unionAll((q) => q.select("kids.user_id").from("kids").where("kids.id", p("kidId")))
            .unionAll((q) => q.select("co_parents.user_id").from("co_parents").where("co_parents.kid_id", p("kidId"))),
        )
        .whereNot("users.id", p("actorId"))
        .modify((q) => void whereUserSeesMoment(q, "users.id", p("momentId"))),
      "users.id",
      p("actorId"),
    )
      .orderBy("users.id")
      .select("users.id"),
);

/**
 * The ids of everyone who may see the moment `momentId`, but `actorId` (who posted it) and anyone
 * in a block with them; on `conn` (the posting transaction, so the new moment is seen). A moment
 * that does not exist: nobody.
 */
export async function momentAudience(momentId: number, actorId: number, conn?: Db): Promise<number[]> {
  const kid = await momentKid.first({ momentId }, { conn });
  if (!kid) return [];
  const rows = await audienceOf.all({ momentId, kidId: kid.kid_id, ownerId: kid.owner_id, actorId }, { conn });
  return rows.map((r) => r.id);
}
