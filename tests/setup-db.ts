// Vitest setup, run before each test file: a fresh temporary SQLite file and uploads folder,
// migrated with the real migrations. No mocks of our database.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "../server/env.mjs";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-test-"));
process.env.DATABASE_FILE = path.join(dir, "test.sqlite");
process.env.UPLOADS_DIR = path.join(dir, "uploads");
process.env.SESSION_SECRET = crypto.randomBytes(16).toString("hex");
process.env.DEMO = "true";
process.env.TIME_ZONE ??= "UTC";
fs.mkdirSync(process.env.UPLOADS_DIR, { recursive: true });
resetEnvCache();
(globalThis as { __sweetDb?: unknown }).__sweetDb = undefined;

beforeAll(async () => {
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
  fs.rmSync(dir, { recursive: true, force: true });
});
