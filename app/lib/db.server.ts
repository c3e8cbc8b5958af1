import knexFactory, { type Knex } from "knex";
import { knexConfig } from "../../db/knexfile.mjs";
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
  const knex = knexFactory(knexConfig(target));
  globalForDb.__sweetDb = { target, knex };
  return knex;
}

export type Db = Knex | Knex.Transaction;

/** Is this process's database PostgreSQL (DATABASE_URL) rather than the SQLite file? */
export function onPostgres(): boolean {
  return (db().client as { config: { client: unknown } }).config.client === "pg";
}

/** ISO 8601 UTC timestamp with milliseconds, the format every *_at column holds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** SQLite and PostgreSQL both report unique violations with recognisable messages. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return (
    e.code === "SQLITE_CONSTRAINT" && /UNIQUE/i.test(e.message ?? "")
  ) || e.code === "23505";
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
