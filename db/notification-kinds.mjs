// @ts-check
// The allowed values of notifications.kind, for migrations that add a kind (or take one away).
// PostgreSQL changes the named check; SQLite cannot alter a check, so the table is made again with
// the same columns and indexes and its rows copied. `currentNotificationKinds` reads the list the
// database holds now, so a migration adds its kind to whatever kinds the migrations before it
// allowed instead of writing the whole list again (two migrations adding a kind each then keep both).

const NOTIFICATION_INDEXES = [["user_id", "read_at"], ["user_id", "id"], ["moment_id"], ["actor_id"]];

/** @param {import("knex").Knex} knex @returns {Promise<string[]>} */
export async function currentNotificationKinds(knex) {
  let definition = "";
  if (knex.client.config.client === "pg") {
    const result = await knex.raw(
      // the table as the search path finds it (tests run one schema per file)
      "select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'notifications_kind_check' and conrelid = 'notifications'::regclass",
    );
    definition = result.rows[0]?.def ?? "";
  } else {
    const row = await knex("sqlite_master").where({ type: "table", name: "notifications" }).first("sql");
    definition = /[`"]?kind[`"]?\s+in\s*\(([^)]*)\)/i.exec(row?.sql ?? "")?.[1] ?? "";
  }
  const kinds = [...definition.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? "");
  if (!kinds.length) throw new Error("notifications.kind has no check to read");
  return kinds;
}

/**
 * notifications.kind with its allowed values `kinds`; on SQLite the rows of other kinds are dropped.
 * @param {import("knex").Knex} knex @param {string[]} kinds
 */
export async function setNotificationKinds(knex, kinds) {
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
