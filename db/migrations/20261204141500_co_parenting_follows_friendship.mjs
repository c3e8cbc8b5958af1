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

const KINDS = ["friend-request", "friend-accepted", "invite-accepted", "like", "comment", "reply"];

const NOTIFICATION_INDEXES = [["user_id", "read_at"], ["user_id", "id"], ["moment_id"], ["actor_id"]];

/**
 * notifications.kind with its allowed values. PostgreSQL changes the named check; SQLite cannot
 * alter a check, so the table is made again with the same columns and indexes and its rows copied.
 * @param {import("knex").Knex} knex @param {string[]} kinds
 */
async function notificationKinds(knex, kinds) {
  if (knex.client.config.client === "pg") {
    await knex.schema.alterTable("notifications", (t) => t.dropChecks(["notifications_kind_check"]));
    await knex.schema.alterTable("notifications", (t) => {
      t.string("kind", 20).notNullable().checkIn(kinds, "notifications_kind_check").alter();
    });
    return;
  }
  // index names are global in SQLite: the old table's go first
  await knex.schema.alterTable("notifications", (t) => {
    for (const columns of NOTIFICATION_INDEXES) t.dropIndex(columns);
  });
  await knex.schema.renameTable("notifications", "notifications_before");
  await knex.schema.createTable("notifications", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("kind", 20).notNullable().checkIn(kinds);
    t.integer("actor_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("moment_id").nullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.string("read_at", 24).nullable();
    for (const columns of NOTIFICATION_INDEXES) t.index(columns);
  });
  const columns = ["id", "user_id", "kind", "actor_id", "moment_id", "created_at", "read_at"];
  await knex
    .into(knex.raw("?? (??, ??, ??, ??, ??, ??, ??)", ["notifications", ...columns]))
    .insert(knex("notifications_before").whereIn("kind", kinds).select(columns));
  await knex.schema.dropTable("notifications_before");
}

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("comments", (t) => t.boolean("hidden").notNullable().defaultTo(false));
  await knex.schema.alterTable("kids", (t) => t.boolean("shown_to_friends").notNullable().defaultTo(true));
  await notificationKinds(knex, [...KINDS, "kid-handed-over"]);
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
  await notificationKinds(knex, KINDS);
  await knex.schema.alterTable("kids", (t) => t.dropColumn("shown_to_friends"));
  await knex.schema.alterTable("comments", (t) => t.dropColumn("hidden"));
}
