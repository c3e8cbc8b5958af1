// @ts-check
// `npm run db:migrate`: runs the migrations (idempotent). The server also runs them at start.
import path from "node:path";
import knexFactory from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { env } from "./env.mjs";
import { privateDir } from "../db/private-files.mjs";

/**
 * Run migrations (idempotent), logging each one applied. Returns the knex instance so callers can go on using it.
 * @param {(line: string) => void} [log]
 */
export async function migrate(log = console.log) {
  const { databaseUrl, databaseFile, uploadsDir } = env();
  // the session secret (unless SESSION_SECRET is set) is made with the database, once per machine
  // before any server process starts; commands that never sign a cookie (backup, restore) make none
  void env().sessionSecret;
  // folders made here are the owner's only (docs/decisions/0042-*); the photos are the family's
  if (!databaseUrl) privateDir(path.dirname(databaseFile));
  privateDir(uploadsDir);
  const knex = knexFactory(knexConfig(databaseUrl ?? databaseFile));
  const [, applied] = await latestWhenFree(knex);
  for (const name of applied) log(`[db] applied migration ${name}`);
  if (databaseUrl) await warnAboutCollation(knex);
  return { knex, applied };
}

/**
 * `knex.migrate.latest()`, waiting while another server migrates the same database: app servers
 * that start together on one PostgreSQL database (README "Scaling out") meet knex's migration lock
 * ("Migration table is already locked"), or race to create knex's own tables at the very first
 * start. Those are retried for up to a minute; any other error stops the start at once.
 * @param {import("knex").Knex} knex
 * @returns {Promise<[number, string[]]>}
 */
export async function latestWhenFree(knex, waitMs = 60_000) {
  const until = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await knex.migrate.latest();
    } catch (error) {
      const e = /** @type {{ name?: string, message?: string, code?: string }} */ (error);
      // LockError: the lock is held; 42P07 / 23505: knex's tables were just created by the other server
      const busy =
        e?.name === "LockError" ||
        /already locked/.test(e?.message ?? "") ||
        e?.code === "42P07" ||
        e?.code === "23505";
      if (!busy || Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, Math.min(200 * attempt, 2000)));
    }
  }
}

/**
 * Text is ordered byte-wise on SQLite; PostgreSQL orders by the database's collation, so the same
 * lists come out in the same order only with a C collation (docs/decisions/0014-postgresql.md).
 * Asked of the collation itself (libc or ICU, any PostgreSQL version): byte-wise, "B" sorts first.
 * @param {import("knex").Knex} knex
 */
async function warnAboutCollation(knex) {
  const { rows } = await knex.raw("select 'B' < 'a' as bytewise");
  if (rows[0]?.bytewise) return;
  console.warn(
    "[db] this PostgreSQL database does not sort text byte-wise: lists may come out in another order than on " +
      "SQLite. Create it with LC_COLLATE 'C.UTF-8' (or 'C'); see docs/decisions/0014-postgresql.md.",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { knex, applied } = await migrate();
  if (!applied.length) console.log("Database is up to date.");
  await knex.destroy();
}
