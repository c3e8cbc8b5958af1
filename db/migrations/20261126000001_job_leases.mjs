// @ts-check
// Leases of the periodic jobs (docs/decisions/0018-shared-limits-and-job-leases.md): one row per job
// name, held by one process (host:pid:random) until `expires_at`, so a job runs once across every
// process and machine (app/jobs/schedule.server.ts).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("job_leases", (t) => {
    t.string("name", 100).primary();
    t.string("holder", 200).notNullable();
    // ISO 8601 UTC, like every *_at column: compared as text on both engines
    t.string("expires_at", 30).notNullable();
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable("job_leases");
}
