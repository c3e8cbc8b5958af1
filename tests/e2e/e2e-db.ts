// The e2e server's database, for helpers that write test data straight into it: the SQLite file in
// E2E_DIR (the default run), or the PostgreSQL database of E2E_DATABASE_URL when the run is against
// a server on PostgreSQL (playwright.config.ts passes it on as the server's DATABASE_URL;
// scripts/test.sh makes a fresh database for it in CI).
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { knexConfig } from "../../db/knexfile.mjs";

export function e2eDatabaseTarget(): string {
  const url = process.env.E2E_DATABASE_URL?.trim();
  if (url) return url;
  const dir = process.env.E2E_DIR;
  if (!dir) throw new Error("E2E_DIR is not set (playwright.config.ts sets it)");
  return path.join(dir, "e2e.sqlite");
}

/** A knex on the e2e server's database (SQLite in WAL mode, so both may write; or PostgreSQL). */
export function openE2eDb(): Knex {
  return knexFactory(knexConfig(e2eDatabaseTarget()));
}
