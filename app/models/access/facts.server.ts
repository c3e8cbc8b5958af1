import type { Knex } from "knex";
import type { Flag, KidRow, MomentRow } from "~/lib/tables";
import type { Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { Audience } from "~/forms/circles";
import { acceptedBetween, coParentRows, ownerFilesAsFamily } from "./pairs.server";
import { audiencesSeenBy } from "./circles.server";

// The facts under the guards (app/models/access.server.ts): who owns a kid, and whether the viewer
// is a co-parent, a friend or family of the owner, read in ONE query whose conditions are the
// list conditions' forms (app/models/access/pairs.server.ts).

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

/** The row `withRelation` selects: the kid, its owner, and 1/0 for each relation of the viewer. */
type RelationRow = Pick<KidRow, "shown_to_friends"> & {
  kid_id: KidRow["id"];
  owner_id: KidRow["user_id"];
  co_parent: Flag;
  friend: Flag;
  family: Flag;
};

const kidRelation = query<{ kidId: number; viewer: number }, RelationRow>((p, k) =>
  withRelation(k("kids").where("kids.id", p("kidId")), p("viewer"), k).limit(1),
);
const momentRelation = query<{ momentId: number; viewer: number }, RelationRow & Pick<MomentRow, "audience">>((p, k) =>
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
  const ownerId = row.owner_id;
  const isOwner = ownerId === viewerId;
  const isParent = isOwner || row.co_parent === 1;
  const shown = row.shown_to_friends === 1;
  const friend = shown && row.friend === 1;
  const family = shown && row.family === 1;
  const circle = family ? "family" : "friends";
  const seen = (a: Audience) => (audiencesSeenBy(circle) as readonly Audience[]).includes(a);
  const visible = isParent || (friend && (audience === undefined || seen(audience)));
  return { kidId: row.kid_id, ownerId, visible, isOwner, isParent };
}

export const ownerFacts = (kidId: number, ownerId: number): KidFacts => ({
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
  const row = await kidRelation.first({ kidId, viewer: viewerId }, { conn });
  return row ? decide(viewerId, row) : null;
}

/** The same for a moment: its kid, its owner, its audience and what `viewerId` may do. null: no such moment. One query. */
export async function momentAccess(viewerId: number, momentId: number, conn?: Db): Promise<MomentFacts | null> {
  const row = await momentRelation.first({ momentId, viewer: viewerId }, { conn });
  if (!row) return null;
  const audience = row.audience;
  return { momentId, audience, ...decide(viewerId, row, audience) };
}
