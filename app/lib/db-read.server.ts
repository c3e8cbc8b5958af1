import { createHash } from "node:crypto";
import sqlite3 from "sqlite3";
import { config } from "./config.server";
import { db, onPostgres } from "./db.server";

// The READ connection: a second SQLite connection on the same file, on which the query layer
// (app/lib/query.server.ts, the only caller) runs every read made outside a write transaction. Why:
//  - knex's pool holds ONE connection (SQLite has one writer), so every query of every concurrent
//    request waited for the previous one, including the main-thread hop between two queries;
//  - knex compiles each query builder to SQL and SQLite parses that SQL again on every call.
// Here, WAL lets this connection read while the writer writes, statements run back to back on the
// thread pool, and each SQL text is prepared once and reused (a small pool of prepared statements
// per SQL text). The connection is `query_only`: it cannot change anything.
//
// Reads that belong to a write transaction must keep using that transaction (they must see its
// uncommitted rows: `query(...).all(params, { conn: trx })`); only autocommit reads come here. A
// read here sees everything committed before it starts, as a read on the knex connection would.
//
// Query counting: each read emits knex's "query" event on db() (only when someone listens), with
// `{ method: "select", sql, bindings, readConnection: true }`, so tests that count a page's
// queries with `db().on("query", …)` count these too.

/** Prepared statements kept per SQL text (more are prepared under concurrency, then dropped). */
const IDLE_PER_SQL = 16;

type Row = Record<string, unknown>;

class ReadConnection {
  readonly file: string;
  private readonly database: sqlite3.Database;
  private readonly ready: Promise<void>;
  private readonly idle = new Map<string, sqlite3.Statement[]>();
  private inFlight = 0;
  /** Statements prepared so far (for tests: SQL texts are parsed once, not per call). */
  prepared = 0;
  private drained: (() => void) | null = null;
  private closing: Promise<void> | null = null;

  constructor(file: string) {
    this.file = file;
    let opened!: () => void;
    let failed!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      opened = resolve;
      failed = reject;
    });
    // never created here: the writer (migrations) creates the file. FULLMUTEX: statements of
    // concurrent requests run on several thread-pool threads at once (SQLite serializes them).
    this.database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_FULLMUTEX, (error) => {
      if (error) return failed(error);
      this.database.exec("PRAGMA query_only = 1; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -16000", (err) =>
        err ? failed(err) : opened(),
      );
    });
    // an open failure is reported to the first reader, not as an unhandled rejection
    this.ready.catch(() => {});
  }

  all<T = Row>(sql: string, params: readonly unknown[]): Promise<T[]> {
    if (this.closing) return Promise.reject(new Error("The read connection is closed"));
    this.inFlight += 1;
    const stmt = this.idle.get(sql)?.pop();
    const run = stmt ? this.run<T>(stmt, sql, params) : this.prepare(sql).then((s) => this.run<T>(s, sql, params));
    return run.finally(() => this.settled());
  }

  private async prepare(sql: string): Promise<sqlite3.Statement> {
    await this.ready;
    this.prepared += 1;
    return new Promise((resolve, reject) => {
      const stmt: sqlite3.Statement = this.database.prepare(sql, (error: Error | null) =>
        error ? reject(error) : resolve(stmt),
      );
    });
  }

  private run<T>(stmt: sqlite3.Statement, sql: string, params: readonly unknown[]): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      stmt.all<T>(params, (error, rows) => {
        if (error) {
          // a statement that failed is not reused
          stmt.finalize(() => {});
          reject(error);
          return;
        }
        this.release(sql, stmt);
        resolve(rows);
      });
    });
  }

  private release(sql: string, stmt: sqlite3.Statement) {
    let list = this.idle.get(sql);
    if (!list) this.idle.set(sql, (list = []));
    if (this.closing || list.length >= IDLE_PER_SQL) stmt.finalize(() => {});
    else list.push(stmt);
  }

  private settled() {
    this.inFlight -= 1;
    if (this.inFlight === 0) this.drained?.();
  }

  /** Waits for the reads under way, then finalizes every statement and closes the connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      try {
        await this.ready;
      } catch {
        return; // never opened
      }
      const statements = [...this.idle.values()].flat();
      this.idle.clear();
      await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
      await new Promise<void>((resolve, reject) => this.database.close((error) => (error ? reject(error) : resolve())));
    })();
    return this.closing;
  }
}

// One read connection per process (per database file), like the knex instance in db.server.ts.
const globalForRead = globalThis as unknown as { __sweetReadDb?: ReadConnection };

function connection(): ReadConnection {
  const file = config().databaseFile;
  const current = globalForRead.__sweetReadDb;
  if (current && current.file === file) return current;
  if (current) void current.close().catch(() => {});
  const created = new ReadConnection(file);
  globalForRead.__sweetReadDb = created;
  return created;
}

/** Closes the read connection (server shutdown, test teardown). Safe to call when none is open. */
export async function closeReadDb(): Promise<void> {
  const current = globalForRead.__sweetReadDb;
  globalForRead.__sweetReadDb = undefined;
  await current?.close();
}

/** How many statements the current read connection has prepared (tests). */
export function readDbPreparedCount(): number {
  return globalForRead.__sweetReadDb?.prepared ?? 0;
}

function announce(sql: string, bindings: readonly unknown[]) {
  const knex = db();
  if (knex.listenerCount("query") > 0) knex.emit("query", { method: "select", sql, bindings, readConnection: true });
}

/**
 * Every row of a SELECT, through a reused prepared statement: on SQLite on the read connection; on
 * PostgreSQL on a connection of knex's pool, as a named statement (each pooled connection prepares
 * each SQL text once; the name is derived from the text).
 */
export function readAll<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
  announce(sql, params);
  if (onPostgres()) return postgresAll<T>(sql, params);
  return connection().all<T>(sql, params);
}

type PooledClient = { query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }> };
type Pool = { acquireConnection(): Promise<PooledClient>; releaseConnection(c: PooledClient): Promise<void> };
const statementNames = new Map<string, string>();

async function postgresAll<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
  let name = statementNames.get(sql);
  if (!name) {
    name = "sm_" + createHash("sha1").update(sql).digest("hex").slice(0, 24);
    statementNames.set(sql, name);
  }
  const pool = db().client as unknown as Pool;
  const conn = await pool.acquireConnection();
  try {
    return (await conn.query({ name, text: sql, values: [...params] })).rows as T[];
  } finally {
    await pool.releaseConnection(conn);
  }
}

/** The first row of a SELECT (or undefined). The SQL should say `limit 1` when more rows could match. */
export async function readFirst<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
  return (await readAll<T>(sql, params))[0];
}
