// Vitest setup, run before each test file: a fresh database and uploads folder, copied from the run's
// database migrated with the real migrations (tests/global-setup-db.ts). No mocks of our database.
// SQLite (the default): a copy of the migrated file in a temporary folder. With TEST_DATABASE_URL:
// this file's own PostgreSQL database, copied from the run's template and dropped at the end.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { resetEnvCache } from "../server/env.mjs";
import { databaseName, dropDatabase, urlOf, withConnection } from "./helpers-pg";

const pgRun = inject("pgTestRun");
const sqliteTemplate = inject("sqliteTemplate");
const pgDatabase = pgRun ? databaseName(pgRun.run) : null;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-test-"));
process.env.DATABASE_FILE = path.join(dir, "test.sqlite");
if (sqliteTemplate) fs.copyFileSync(sqliteTemplate, process.env.DATABASE_FILE);
// never the developer's own database: only the copy made for this file, or none (SQLite)
if (pgRun && pgDatabase) process.env.DATABASE_URL = urlOf(pgRun.base, pgDatabase);
else delete process.env.DATABASE_URL;
process.env.UPLOADS_DIR = path.join(dir, "uploads");
process.env.SESSION_SECRET = crypto.randomBytes(16).toString("hex");
process.env.DEMO = "true";
process.env.TIME_ZONE ??= "UTC";
fs.mkdirSync(process.env.UPLOADS_DIR, { recursive: true });
resetEnvCache();
(globalThis as { __sweetDb?: unknown }).__sweetDb = undefined;

beforeAll(async () => {
  if (pgRun && pgDatabase) {
    await withConnection(pgRun.base, (knex) => knex.raw(`create database ${pgDatabase} template ${pgRun.template}`));
  }
  // the copy is migrated already: a no-op then (and the migrations on a file of its own otherwise)
  const { db } = await import("../app/lib/db.server");
  await db().migrate.latest();
});

afterAll(async () => {
  // the read connection (app/lib/db-read.server.ts), then the knex pool
  const reader = (globalThis as { __sweetReadDb?: { close(): Promise<void> } }).__sweetReadDb;
  (globalThis as { __sweetReadDb?: unknown }).__sweetReadDb = undefined;
  await reader?.close();
  const holder = (globalThis as { __sweetDb?: { knex: { destroy(): Promise<void> } } }).__sweetDb;
  await holder?.knex.destroy();
  (globalThis as { __sweetDb?: unknown }).__sweetDb = undefined;
  // retried: a child process of the test may still be closing a file in it
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  if (pgRun && pgDatabase) await dropDatabase(pgRun.base, pgDatabase);
});
