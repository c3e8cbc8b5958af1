// @ts-check
// Who sees what (docs/decisions/0031-audiences-circles-co-parents-blocks.md): an audience per
// moment and a default per kid, who posted a moment, each side's circle and relationship label of
// an accepted friendship, co-parents of a kid, and blocks. Knex schema builder only (SQLite and
// PostgreSQL).

const AUDIENCES = ["us", "family", "everyone"];
const CIRCLES = ["family", "friends"];
const RELATIONSHIPS = ["grandparent", "parents_sibling", "cousin", "friend", "caregiver", "other"];

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  // existing moments keep today's behaviour: every accepted friend sees them
  await knex.schema.alterTable("daily_logs", (t) => {
    t.string("audience", 8).notNullable().defaultTo("everyone").checkIn(AUDIENCES, "daily_logs_audience");
    t.integer("posted_by").nullable().references("id").inTable("users").onDelete("SET NULL");
  });
  await knex("daily_logs").update({
    posted_by: knex("kids").select("kids.user_id").where("kids.id", knex.ref("daily_logs.kid_id")),
  });
  await knex.schema.alterTable("kids", (t) => {
    t.string("default_audience", 8).notNullable().defaultTo("everyone").checkIn(AUDIENCES, "kids_default_audience");
  });
  // low_*: how user_low files user_high; high_*: how user_high files user_low
  await knex.schema.alterTable("friendships", (t) => {
    t.string("low_circle", 8).notNullable().defaultTo("friends").checkIn(CIRCLES, "friendships_low_circle");
    t.string("high_circle", 8).notNullable().defaultTo("friends").checkIn(CIRCLES, "friendships_high_circle");
    t.string("low_relationship", 16).nullable().checkIn(RELATIONSHIPS, "friendships_low_relationship");
    t.string("high_relationship", 16).nullable().checkIn(RELATIONSHIPS, "friendships_high_relationship");
  });
  await knex.schema.createTable("co_parents", (t) => {
    t.increments("id").primary();
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("status", 8).notNullable().defaultTo("pending").checkIn(["pending", "accepted"]);
    t.string("created_at", 24).notNullable();
    t.unique(["kid_id", "user_id"]);
    t.index(["user_id", "status"]);
  });
  await knex.schema.createTable("blocks", (t) => {
    t.increments("id").primary();
    t.integer("blocker_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("blocked_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    // the blocker's choice: the blocked user's past comments on the blocker's moments stay shown
    t.boolean("show_comments").notNullable().defaultTo(false);
    t.string("created_at", 24).notNullable();
    t.unique(["blocker_id", "blocked_id"]);
    t.index(["blocked_id"]);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("blocks");
  await knex.schema.dropTableIfExists("co_parents");
  await knex.schema.alterTable("friendships", (t) => {
    t.dropColumns("low_circle", "high_circle", "low_relationship", "high_relationship");
  });
  await knex.schema.alterTable("kids", (t) => {
    t.dropColumn("default_audience");
  });
  await knex.schema.alterTable("daily_logs", (t) => {
    t.dropForeign(["posted_by"]);
    t.dropColumns("audience", "posted_by");
  });
}
