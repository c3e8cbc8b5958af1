// PostgreSQL test databases (docs/decisions/0014-postgresql.md): when TEST_DATABASE_URL points at a
// PostgreSQL server, tests/global-setup-db.ts migrates ONE template database per run, and
// tests/setup-db.ts gives each test file its own copy (CREATE DATABASE … TEMPLATE …), dropped at the
// end. The role in TEST_DATABASE_URL needs CREATEDB, nothing more (scripts/pg-cluster.sh makes one).
import crypto from "node:crypto";
import knexFactory, { type Knex } from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { dropDatabaseWithRetry } from "../scripts/pg-drop.mjs";

/** What the global setup hands every test file (vitest provide/inject). */
export type PgTestRun = { base: string; run: string; template: string };

declare module "vitest" {
  export interface ProvidedContext {
    pgTestRun: PgTestRun | null;
    /** SQLite runs: the migrated file each test file starts from as a copy (tests/global-setup-db.ts). */
    sqliteTemplate: string | null;
    /** Where the first test file that starts the real server builds the app (tests/unit/support/built-server.ts). */
    appBuildDir: string;
  }
}

/** The PostgreSQL server tests run against, or null (SQLite). */
export function testDatabaseUrl(): string | null {
  return process.env.TEST_DATABASE_URL?.trim() || null;
}

/** Database names are made here from [a-z0-9_] only, so they need no quoting. */
export function databaseName(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(4).toString("hex")}`;
}

/** `base` with its database replaced by `name`. */
export function urlOf(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` on a one-connection knex to the database of `url`, then closes it. */
export async function withConnection<T>(url: string, fn: (knex: Knex) => Promise<T>): Promise<T> {
  const config = knexConfig(url);
  const knex = knexFactory({ ...config, pool: { min: 0, max: 1 } });
  try {
    return await fn(knex);
  } finally {
    await knex.destroy();
  }
}

/**
 * Drops a database even when a connection is still open (a worker that died, say) or an autovacuum
 * worker is on it: scripts/pg-drop.mjs.
 */
export async function dropDatabase(base: string, name: string): Promise<void> {
  await withConnection(base, (knex) => dropDatabaseWithRetry(knex, name));
}
