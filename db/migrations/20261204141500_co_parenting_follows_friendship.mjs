// @ts-check
// Co-parenting follows the friendship (docs/decisions/0041-co-parenting-follows-the-friendship.md).
// - `comments.hidden`: a comment the kid's former owner had hidden by a block stays hidden after
//   the kid is handed over to a co-parent (the old owner's blocks go with their account); the
//   access module's whereCommentShown reads it.
// - `kids.shown_to_friends`: a kid handed over to a co-parent is hidden from the new owner's
//   friends (false) until the new owner shows it; every other kid is shown (true).
// - Co-parent roles and invitations whose owner and co-parent are no longer accepted friends (left
//   behind by a Remove Friend before its end took them along) end now, as they would today.
// - A notification kind "kid-handed-over": the new owner of a handed-over kid is told.
// Knex schema builder and plain queries only (SQLite and PostgreSQL).

import { setNotificationKinds } from "../notification-kinds.mjs";

const KINDS = ["friend-request", "friend-accepted", "invite-accepted", "like", "comment", "reply"];

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("comments", (t) => t.boolean("hidden").notNullable().defaultTo(false));
  await knex.schema.alterTable("kids", (t) => t.boolean("shown_to_friends").notNullable().defaultTo(true));
  await setNotificationKinds(knex, [...KINDS, "kid-handed-over"]);
  await knex("co_parents")
    .whereNotExists((sub) =>
      sub
        .select(knex.raw("1"))
        .from("friendships")
        .join("kids", (j) => j.on("kids.id", "=", knex.ref("co_parents.kid_id")))
        .where("friendships.status", "accepted")
        .andWhere((pair) =>
          pair
            .where((x) =>
              x
                .where("friendships.user_low", knex.ref("kids.user_id"))
                .andWhere("friendships.user_high", knex.ref("co_parents.user_id")),
            )
            .orWhere((y) =>
              y
                .where("friendships.user_high", knex.ref("kids.user_id"))
                .andWhere("friendships.user_low", knex.ref("co_parents.user_id")),
            ),
        ),
    )
    .delete();
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  // the co-parent rows ended by `up` do not come back: they gave access nobody had agreed to keep
  await knex("notifications").where("kind", "kid-handed-over").delete();
  await setNotificationKinds(knex, KINDS);
  await knex.schema.alterTable("kids", (t) => t.dropColumn("shown_to_friends"));
  await knex.schema.alterTable("comments", (t) => t.dropColumn("hidden"));
}
