// @ts-check
// One-time submission tokens (docs/decisions/0016-one-time-submissions.md): one row per creating
// form (or /api create with an Idempotency-Key) that succeeded, written in the same transaction as
// what it created. The unique key is the arbiter: two concurrent submissions of one token cannot
// both create. Rows older than a day are purged (app/models/submissions.server.ts).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("submissions", (t) => {
    t.increments("id").primary();
    // who submitted: a user id, or 0 for a sign-up (nobody is signed in yet). No foreign key: 0 is
    // no user, and a row only lives a day.
    t.integer("user_id").notNullable();
    // what was created: "kid", "moment", "friend-request", "comment" or "signup"
    t.string("action", 16).notNullable();
    t.string("token", 200).notNullable();
    // sha256 (hex) of what was submitted: the same token with other content is a new submission
    t.string("fingerprint", 64).notNullable();
    // the id of the row created (kid, moment, friendship, comment or user)
    t.integer("result_id").notNullable();
    t.string("created_at", 24).notNullable();
    t.unique(["user_id", "action", "token"]);
    t.index(["created_at"]);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("submissions");
}
