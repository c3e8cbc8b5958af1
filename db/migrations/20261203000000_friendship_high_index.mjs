// @ts-check
// The friendship's second side: an index on (user_high, status) next to the UNIQUE
// (user_low, user_high). The access module lists a user's accepted friends on the ordered pair
// (app/models/access.server.ts acceptedFriendIds: the feed's visible kids; accessStamp: every
// conditional page), one range per side; without this the user_high side was a scan of the table.
// With it, the pair form is the only SQL form of the friendship the access module needs
// (docs/decisions/0012-refusal-and-access-module.md). Knex schema builder only (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("friendships", (t) => t.index(["user_high", "status"], "friendships_user_high_status"));
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("friendships", (t) =>
    t.dropIndex(["user_high", "status"], "friendships_user_high_status"),
  );
}
