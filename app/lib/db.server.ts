import knexFactory, { type Knex } from "knex";
import { immediateTransactions, knexConfig } from "../../db/knexfile.mjs";
import { config } from "./config.server";

// One knex instance per process, created on first use so tests can point DATABASE_FILE at a
// temporary file before anything touches the database. It holds the one writer connection: writes
// and write transactions. Reads go through the query layer (app/lib/query.server.ts), which runs
// them on a second, read-only connection with prepared statements (app/lib/db-read.server.ts).
// With DATABASE_URL set, the instance talks to PostgreSQL instead (docs/decisions/0014-postgresql.md)
// and the query layer runs its reads as named prepared statements on knex's pool.
const globalForDb = globalThis as unknown as { __sweetDb?: { target: string; knex: Knex } };

export function db(): Knex {
  const { databaseUrl, databaseFile } = config();
  const target = databaseUrl ?? databaseFile;
  const current = globalForDb.__sweetDb;
  if (current && current.target === target) return current.knex;
  const knex = immediateTransactions(knexFactory(knexConfig(target)));
  globalForDb.__sweetDb = { target, knex };
  return knex;
}

export type Db = Knex | Knex.Transaction;

/** Is this process's database PostgreSQL (DATABASE_URL) rather than the SQLite file? */
export function onPostgres(): boolean {
  return (db().client as { config: { client: unknown } }).config.client === "pg";
}

// ---- the write path -------------------------------------------------------------------------
// docs/decisions/0017-processes-and-write-transactions.md. Several server processes may share one
// SQLite file. Every transaction begins as a write transaction (BEGIN IMMEDIATE, see
// immediateTransactions in db/knexfile.mjs), so it either gets the write lock before its first
// statement or never starts. When another process holds the lock past the busy timeout, the
// transaction is tried again with back-off up to WRITE_RETRY_MS, then DatabaseBusyError: the root
// middleware answers it 503 with Retry-After (app/web/request-guard.server.ts), never 500.

/** The database stayed locked by someone else for longer than the write path waits. */
export class DatabaseBusyError extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super("The database is busy; try again shortly.", options);
    this.name = "DatabaseBusyError";
  }
}

/** SQLite's "database is locked" (after its busy timeout), or a DatabaseBusyError. */
export function isDatabaseBusy(error: unknown): boolean {
  if (error instanceof DatabaseBusyError) return true;
  const e = error as { code?: string; cause?: unknown } | null;
  return e?.code === "SQLITE_BUSY" || (e?.code === undefined && e?.cause !== undefined && isDatabaseBusy(e.cause));
}

/** The Retry-After of a busy error (see isDatabaseBusy). */
export function busyRetryAfter(error: unknown): number {
  return error instanceof DatabaseBusyError ? error.retryAfterSeconds : retryAfterSeconds();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * THE way to run a transaction (every one may write): `fn` gets the transaction and its value is
 * returned after the commit; a throw rolls back. Retried only while the transaction could not
 * begin (nothing of `fn` ran), with back-off, for up to WRITE_RETRY_MS in all.
 */
export async function writeTransaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const { writeRetryMs } = config();
  const deadline = Date.now() + writeRetryMs;
  let pause = 20;
  for (;;) {
    let began = false;
    try {
      return await db().transaction((trx) => {
        began = true;
        return fn(trx);
      });
    } catch (error) {
      if (!isDatabaseBusy(error) || error instanceof DatabaseBusyError) throw error;
      const left = deadline - Date.now();
      if (began || left <= 0) throw new DatabaseBusyError(retryAfterSeconds(), { cause: error });
      await sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, 500);
    }
  }
}

/** What a client told "busy" should wait: the time the write path itself is willing to wait. */
export function retryAfterSeconds(): number {
  return Math.max(1, Math.ceil(config().writeRetryMs / 1000));
}

/** For GET /readyz: true when the database answers a trivial query within `timeoutMs`. */
export async function databaseReady(timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    return await Promise.race([
      db()
        .raw("select 1")
        .then(() => true),
      timeout,
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** ISO 8601 UTC timestamp with milliseconds, the format every *_at column holds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** SQLite and PostgreSQL both report unique violations with recognisable messages. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return (e.code === "SQLITE_CONSTRAINT" && /UNIQUE/i.test(e.message ?? "")) || e.code === "23505";
}

/** A foreign key pointed at a row that is gone (e.g. deleted between a check and an insert). */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return (e.code === "SQLITE_CONSTRAINT" && /FOREIGN KEY/i.test(e.message ?? "")) || e.code === "23503";
}

/** The id of the row an `insert(…).returning("id")` added (SQLite answers `[{id}]` or `[id]`). */
export function insertedId(rows: unknown[]): number {
  const row = rows[0];
  const id = Number(typeof row === "object" && row !== null ? (row as { id: unknown }).id : row);
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error("insert returned no id");
  return id;
}
