// @ts-check
// Knex configuration, shared by the app (app/lib/db.server.ts), the CLI scripts and the tests.
// One engine per process: the SQLite file (the default), or PostgreSQL when a postgres:// URL is
// given (DATABASE_URL; docs/decisions/0014-postgresql.md). The same migrations run on both.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
const migrations = { directory: migrationsDir, loadExtensions: [".mjs"], tableName: "knex_migrations" };

/** True for a PostgreSQL connection URL (postgres:// or postgresql://). @param {string | null | undefined} target */
export function isPostgresUrl(target) {
  return typeof target === "string" && /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The knex configuration for `target`: a postgres:// URL, or else the path of the SQLite file.
 * @param {string} target
 * @returns {import("knex").Knex.Config}
 */
export function knexConfig(target) {
  return isPostgresUrl(target) ? postgresConfig(target) : sqliteConfig(target);
}

/**
 * SQLite pragmas applied to every pooled connection: foreign keys enforced, WAL so readers never
 * wait for the writer, a busy timeout instead of SQLITE_BUSY errors, and NORMAL sync (safe with WAL).
 * @param {string} filename
 * @returns {import("knex").Knex.Config}
 */
function sqliteConfig(filename) {
  return {
    client: "sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      /** @param {any} conn @param {(err: Error | null, conn: any) => void} done */
      afterCreate(conn, done) {
        conn.serialize(() => {
          conn.run("PRAGMA foreign_keys = ON");
          conn.run("PRAGMA journal_mode = WAL");
          conn.run("PRAGMA synchronous = NORMAL");
          conn.run("PRAGMA busy_timeout = 5000");
          conn.run("PRAGMA cache_size = -16000", (/** @type {Error | null} */ err) => done(err, conn));
        });
      },
    },
    migrations,
  };
}

// PostgreSQL's 64-bit integers (count(*), sum of integers: OID 20) and numerics (OID 1700) arrive
// from `pg` as strings, because they may not fit a JS number. Ours are row counts: numbers, as on
// SQLite. Given to each connection (pg's `types` option), so the pg module's globals stay untouched.
const INT8 = 20;
const NUMERIC = 1700;

/** @type {any} */
let pgTypes;
function countTypes() {
  pgTypes ??= createRequire(import.meta.url)("pg").types;
  return {
    /** @param {number} oid @param {any} format */
    getTypeParser(oid, format) {
      if ((oid === INT8 || oid === NUMERIC) && format !== "binary") return (/** @type {string} */ v) => Number(v);
      return pgTypes.getTypeParser(oid, format);
    },
  };
}

/**
 * PostgreSQL through `pg`: a pool of up to 10 connections (none kept while idle), each named in
 * pg_stat_activity. Tuning belongs in the URL (?sslmode=require, ?options=...).
 * @param {string} url
 * @returns {import("knex").Knex.Config}
 */
function postgresConfig(url) {
  return {
    client: "pg",
    connection: /** @type {any} */ ({ connectionString: url, application_name: "sweet-moments", types: countTypes() }),
    pool: { min: 0, max: 10 },
    migrations,
  };
}

/** What the environment points at: DATABASE_URL when set, else the SQLite file. */
export function databaseTarget(environment = process.env) {
  return environment.DATABASE_URL?.trim() || path.resolve(environment.DATABASE_FILE || "data/sweet-moments.sqlite");
}

// For the knex CLI: `npx knex --knexfile db/knexfile.mjs migrate:latest`
export default knexConfig(databaseTarget());
