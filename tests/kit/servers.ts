// A second fresh server in one test file: its own database (a copy of the run's migrated template,
// SQLite or PostgreSQL) and its own photo storage (another uploads folder; on S3 another prefix of
// the file's bucket). `switchTo` points the app's database, read connection, settings and photo
// store at one of them, so a test can act on "server A", then on "server B", as two installations.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { resetEnvCache } from "../../server/env.mjs";
import { closePhotoStore } from "../../app/images/photo-store.server";
import { databaseName, dropDatabase, urlOf, withConnection } from "../helpers-pg";

export type Server = { env: Record<string, string | undefined>; cleanup: () => Promise<void> };

const KEYS = ["DATABASE_FILE", "DATABASE_URL", "UPLOADS_DIR", "S3_PREFIX"] as const;

/** The server the test file started on (tests/setup-db.ts). */
export function currentServer(): Server {
  return { env: Object.fromEntries(KEYS.map((k) => [k, process.env[k]])), cleanup: async () => {} };
}

/** A fresh server: a new migrated database and an empty photo storage. */
export async function freshServer(): Promise<Server> {
  const pgRun = inject("pgTestRun");
  const template = inject("sqliteTemplate");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-second-"));
  const uploads = path.join(dir, "uploads");
  fs.mkdirSync(uploads);
  const env: Server["env"] = { ...currentServer().env, UPLOADS_DIR: uploads };
  if (process.env.S3_PREFIX !== undefined || process.env.STORAGE === "s3")
    env.S3_PREFIX = `${process.env.S3_PREFIX ?? ""}-second-${path.basename(dir)}`;
  let dbName: string | null = null;
  if (pgRun) {
    dbName = databaseName(`${pgRun.run}_b`);
    await withConnection(pgRun.base, (knex) => knex.raw(`create database ${dbName} template ${pgRun.template}`));
    env.DATABASE_URL = urlOf(pgRun.base, dbName);
  } else {
    env.DATABASE_FILE = path.join(dir, "second.sqlite");
    if (template) fs.copyFileSync(template, env.DATABASE_FILE);
  }
  return {
    env,
    cleanup: async () => {
      if (pgRun && dbName) await dropDatabase(pgRun.base, dbName);
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** Closes the app's connections and photo store, then points them at `server`. */
export async function switchTo(server: Server): Promise<void> {
  const g = globalThis as {
    __sweetReadDb?: { close(): Promise<void> };
    __sweetDb?: { knex: { destroy(): Promise<void> } };
  };
  const reader = g.__sweetReadDb;
  g.__sweetReadDb = undefined;
  await reader?.close();
  const holder = g.__sweetDb;
  g.__sweetDb = undefined;
  await holder?.knex.destroy();
  await closePhotoStore();
  for (const k of KEYS) {
    const v = server.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
  const { db } = await import("../../app/lib/db.server");
  await db().migrate.latest();
}
