// @ts-check
// A partner in one step (docs/decisions/0060-co-parent-invitations.md).
// - `invitation_kids`: the kids an invitation makes whoever accepts it a co-parent of (the
//   inviter's own kids when it was made; a kid deleted meanwhile goes with its rows).
// - A notification kind "co-parent-added": the partner is told which kids they now co-parent.
// Knex schema builder and plain queries only (SQLite and PostgreSQL).
import { currentNotificationKinds, setNotificationKinds } from "../notification-kinds.mjs";

const KIND = "co-parent-added";

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("invitation_kids", (t) => {
    t.integer("invitation_id").notNullable().references("id").inTable("invitations").onDelete("CASCADE");
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.primary(["invitation_id", "kid_id"]);
    t.index(["kid_id"]);
  });
  const kinds = await currentNotificationKinds(knex);
  if (!kinds.includes(KIND)) await setNotificationKinds(knex, [...kinds, KIND]);
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex("notifications").where("kind", KIND).delete();
  await setNotificationKinds(
    knex,
    (await currentNotificationKinds(knex)).filter((k) => k !== KIND),
  );
  await knex.schema.dropTable("invitation_kids");
}
