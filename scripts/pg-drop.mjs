// @ts-check
// Dropping a throwaway PostgreSQL database as the app's ordinary role, for the tests and the bench
// (tests/helpers-pg.ts, scripts/pg-database.mjs). docs/decisions/0014-postgresql.md explains why
// a drop must not fail on a race.
//
// `DROP DATABASE … WITH (FORCE)` terminates every backend attached to the database, and refuses
// (42501) when one of them belongs to another role: an autovacuum worker that just started on it,
// or a superuser's session. A non-superuser may not end those, so:
// - first our own role's backends are ended (a server process of the test that was killed and whose
//   backend has not noticed yet, a pool that was never closed);
// - then a plain `DROP DATABASE`, which itself asks autovacuum workers to stop and waits up to 5 s
//   for every other backend to leave (55006 when one stays);
// - both refusals are retried with a short back-off until `timeoutMs` has passed.

/** SQLSTATEs worth another try: a backend we may not end (42501), the database still in use (55006). */
const PASSING = new Set(["42501", "55006"]);

/**
 * Drops `name` (made of [a-z0-9_], so it needs no quoting) over `knex`, a connection to another
 * database of the same server. Resolves once it is gone; rejects with the last error after
 * `timeoutMs` of refusals, or at once on any other error.
 * @param {import("knex").Knex} knex
 * @param {string} name
 * @param {{ timeoutMs?: number }} [options]
 */
export async function dropDatabaseWithRetry(knex, name, { timeoutMs = 60_000 } = {}) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name the tests make: ${name}`);
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    try {
      await knex.raw(`drop database if exists ${name} with (force)`);
      return;
    } catch (error) {
      if (!PASSING.has(codeOf(error))) throw error;
    }
    try {
      await knex.raw(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and usename = current_user and pid <> pg_backend_pid()",
        [name],
      );
      await knex.raw(`drop database if exists ${name}`);
      return;
    } catch (error) {
      if (!PASSING.has(codeOf(error)) || Date.now() + delay > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 1_000);
  }
}

/** @param {unknown} error */
function codeOf(error) {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
}
