// @ts-check
// The family's story (docs/decisions/0028-moment-dates-and-feed.md):
// - daily_logs.taken_on: the moment's own calendar date ("YYYY-MM-DD"), chosen by the parent.
//   Existing moments get the UTC calendar date of their creation.
// - daily_logs.milestone: null, or the milestone's label ("First steps", or the parent's own).
// - The kid's cursor index now follows the page order (taken_on, created_at, id); the feed reads
//   each visible kid's range of it (no index across kids: see the decision record).
// - feed_visits: when each user last opened the feed and what the "New since your last visit"
//   marker counts from.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("daily_logs", (t) => {
    // the empty default only fills existing rows until the update below; the app always sets it
    t.string("taken_on", 10).notNullable().defaultTo("");
    t.string("milestone", 40).nullable();
  });
  await knex("daily_logs").update({ taken_on: knex.raw("substr(created_at, 1, 10)") });
  await knex.schema.alterTable("daily_logs", (t) => {
    t.dropIndex(["kid_id", "created_at", "id"], "daily_logs_kid_cursor");
    t.index(["kid_id", "taken_on", "created_at", "id"], "daily_logs_kid_taken");
  });
  await knex.schema.createTable("feed_visits", (t) => {
    t.integer("user_id").primary().references("id").inTable("users").onDelete("CASCADE");
    t.string("seen_at", 24).notNullable(); // ISO 8601 UTC: the last time the feed was opened
    t.string("since", 24).nullable(); // what "new" is measured from: the visit before this one
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("feed_visits");
  await knex.schema.alterTable("daily_logs", (t) => {
    t.dropIndex(["kid_id", "taken_on", "created_at", "id"], "daily_logs_kid_taken");
    t.index(["kid_id", "created_at", "id"], "daily_logs_kid_cursor");
  });
  await knex.schema.alterTable("daily_logs", (t) => {
    t.dropColumn("milestone");
    t.dropColumn("taken_on");
  });
}
