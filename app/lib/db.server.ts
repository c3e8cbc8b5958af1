import knexFactory, { type Knex } from "knex";
import { knexConfig } from "../../db/knexfile.mjs";
import { config } from "./config.server";

// One knex instance per process, created on first use so tests can point DATABASE_FILE at a
// temporary file before anything touches the database. It holds the one writer connection: writes
// and write transactions. Reads go through the query layer (app/lib/query.server.ts), which runs
// them on a second, read-only connection with prepared statements (app/lib/db-read.server.ts).
const globalForDb = globalThis as unknown as { __sweetDb?: { file: string; knex: Knex } };

export function db(): Knex {
  const file = config().databaseFile;
  const current = globalForDb.__sweetDb;
  if (current && current.file === file) return current.knex;
  const knex = knexFactory(knexConfig(file));
  globalForDb.__sweetDb = { file, knex };
  return knex;
}

export type Db = Knex | Knex.Transaction;

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
