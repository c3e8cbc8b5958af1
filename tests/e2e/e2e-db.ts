// The e2e server's database and photo store, for helpers that write test data straight into them:
// the SQLite file in E2E_DIR (the default run), or the PostgreSQL database of E2E_DATABASE_URL when
// the run is against a server on PostgreSQL (playwright.config.ts passes it on as the server's
// DATABASE_URL; scripts/test.sh makes a fresh database for it in CI); the uploads folder, or the S3
// bucket when the run has STORAGE=s3 and the S3_* settings. One connection and one store per
// worker, opened on first use; a spec that uses them closes them in its afterAll (closeE2eDb).
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { knexConfig } from "../../db/knexfile.mjs";
import { createPhotoStore, type PhotoStore } from "../../app/images/photo-store.server";
import { readStorageSettings } from "../../server/env.mjs";

function e2eDir(): string {
  const dir = process.env.E2E_DIR;
  if (!dir) throw new Error("E2E_DIR is not set (playwright.config.ts sets it)");
  return dir;
}

function e2eDatabaseTarget(): string {
  return process.env.E2E_DATABASE_URL?.trim() || path.join(e2eDir(), "e2e.sqlite");
}

let conn: Knex | null = null;
let store: PhotoStore | null = null;

/** A knex on the e2e server's database (SQLite in WAL mode, so both may write; or PostgreSQL). */
export function e2eDb(): Knex {
  conn ??= knexFactory(knexConfig(e2eDatabaseTarget()));
  return conn;
}

/** The e2e server's photo store (the same settings: playwright.config.ts passes our environment on). */
export function e2eStore(): PhotoStore {
  store ??= createPhotoStore({ uploadsDir: path.join(e2eDir(), "uploads"), storage: readStorageSettings() });
  return store;
}

export async function closeE2eDb(): Promise<void> {
  await conn?.destroy();
  conn = null;
  await store?.close();
  store = null;
}

/** A friendship written straight into the database (accepted unless said otherwise). */
export async function befriend(
  senderId: number,
  receiverId: number,
  status: "pending" | "accepted" = "accepted",
): Promise<void> {
  const now = new Date().toISOString();
  await e2eDb()("friendships").insert({
    user_id: senderId,
    friend_id: receiverId,
    status,
    created_at: now,
    updated_at: now,
  });
}
