// @ts-check
// Knex configuration, shared by the app (app/lib/db.server.ts), the CLI scripts and the tests.
// One engine per process: the SQLite file (the default), or PostgreSQL when a postgres:// URL is
// given (DATABASE_URL; docs/decisions/0014-postgresql.md). The same migrations run on both.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { privateFile } from "./private-files.mjs";

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
 * How long one SQLite statement waits for another process's write lock before SQLITE_BUSY
 * (SQLITE_BUSY_TIMEOUT_MS, default 5000). The write path retries past it within WRITE_RETRY_MS
 * (app/lib/db.server.ts, docs/decisions/0017-processes-and-write-transactions.md).
 */
export function busyTimeoutMs() {
  const n = Number.parseInt(process.env.SQLITE_BUSY_TIMEOUT_MS ?? "", 10);
  return Number.isFinite(n) && n >= 0 ? n : 5000;
}

/**
 * Every transaction of a SQLite knex instance begins as a write transaction (BEGIN IMMEDIATE): a
 * deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * process wrote meanwhile (the busy timeout cannot help it), an immediate one waits for the lock
 * up front. Nested transactions stay savepoints. PostgreSQL instances are left alone.
 * docs/decisions/0017-processes-and-write-transactions.md.
 * @template {import("knex").Knex} K
 * @param {K} knex
 * @returns {K}
 */
export function immediateTransactions(knex) {
  const client = /** @type {any} */ (knex.client);
  if (client.dialect !== "sqlite3" || client.__immediate) return knex;
  client.__immediate = true;
  const create = client.transaction.bind(client);
  /** @param {any[]} args */
  client.transaction = (...args) => {
    const trx = create(...args);
    // Called once the connection is acquired, after this returns. Through the transaction's own
    // client rather than trx.query, which swallows a failed BEGIN and runs the callback anyway (on a
    // transaction already rejected): a BEGIN refused as busy must reject before any of it runs, so
    // the write path may try again (writeTransaction in app/lib/db.server.ts).
    trx.begin = (/** @type {any} */ conn) => trx.trxClient.query(conn, "BEGIN IMMEDIATE;");
    return trx;
  };
  return knex;
}

/**
 * SQLite pragmas applied to every pooled connection: foreign keys enforced, WAL so readers never
 * wait for the writer, a busy timeout instead of SQLITE_BUSY errors, and NORMAL sync (safe with WAL).
 * @param {string} filename
 * @returns {import("knex").Knex.Config}
 */
function sqliteConfig(filename) {
  // the database and its WAL and SHM files are the owner's only (SQLite makes the WAL and SHM files
  // with the database file's mode, so that one is set before WAL mode starts, and all three after)
  const privateFiles = () => {
    if (filename && filename !== ":memory:" && !filename.startsWith("file:"))
      for (const f of [filename, `${filename}-wal`, `${filename}-shm`]) privateFile(f);
  };
  return {
    client: "sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      /** @param {any} conn @param {(err: Error | null, conn: any) => void} done */
      afterCreate(conn, done) {
        privateFiles();
        conn.serialize(() => {
          conn.run("PRAGMA foreign_keys = ON");
          conn.run("PRAGMA journal_mode = WAL");
          conn.run("PRAGMA synchronous = NORMAL");
          conn.run(`PRAGMA busy_timeout = ${busyTimeoutMs()}`);
          conn.run("PRAGMA cache_size = -16000", (/** @type {Error | null} */ err) => {
            privateFiles();
            done(err, conn);
          });
        });
      },
    },
    migrations,
  };
}

// What differs between the engines is settled here, once, so a row reads the same on both
// (app/lib/tables.ts, docs/decisions/0046-typed-rows.md):
//  - PostgreSQL's 64-bit integers (count(*), sum of integers: OID 20) and numerics (OID 1700) arrive
//    from `pg` as strings, because they may not fit a JS number. Ours are row counts: numbers, as on
//    SQLite.
//  - PostgreSQL's booleans (OID 16) arrive as true/false, SQLite's as the 0/1 it stores: 1 and 0 on
//    both. (Binding true/false in a write or a condition works on both engines as it is.)
// Given to each connection (pg's `types` option), so the pg module's globals stay untouched.
const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;

/** @type {any} */
let pgTypes;
function rowTypes() {
  pgTypes ??= createRequire(import.meta.url)("pg").types;
  return {
    /** @param {number} oid @param {any} format */
    getTypeParser(oid, format) {
      if (format === "binary") return pgTypes.getTypeParser(oid, format);
      if (oid === INT8 || oid === NUMERIC) return (/** @type {string} */ v) => Number(v);
      if (oid === BOOL) return (/** @type {string} */ v) => (v === "t" ? 1 : 0);
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
    connection: /** @type {any} */ ({ connectionString: url, application_name: "sweet-moments", types: rowTypes() }),
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
