// @ts-check
// Shared counters for abuse limits (docs/decisions/0018-shared-limits-and-job-leases.md): log-in
// failures per account, per client address and per pair, sign-ups per address, and the limits
// features to come (sign-in links, invitations). In the database, so every process and machine
// counts together. One row per key: a fixed window from `window_ends_at` back.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("rate_limits", (t) => {
    // sha256 (hex) of the caller's key: no email or address is kept in clear
    t.string("key", 64).primary();
    t.integer("count").notNullable();
    // ISO 8601 UTC, like every *_at column: compared as text on both engines
    t.string("window_ends_at", 30).notNullable();
    t.index(["window_ends_at"], "rate_limits_window_ends_at");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable("rate_limits");
}
