import fs from "node:fs";
import knexFactory from "knex";
import { createPhotoStore } from "~/images/photo-store.server";
import { knexConfig } from "../knexfile.mjs";
import { readEnv } from "../../server/env.mjs";
import { moveInstallation, MoveRefused, type MoveReport } from "./move.server";

// `npm run move-to-postgres` (server/move-to-postgres.mjs): the installation of DATABASE_FILE and
// UPLOADS_DIR into the PostgreSQL database of DATABASE_URL and, with STORAGE=s3, the bucket of the
// S3_* settings. README "Scaling out"; docs/decisions/0022-move-to-postgres.md.

const say = (line: string) => console.log(line);

/** Runs the move as the environment says; returns the report, or throws (MoveRefused: a message for the operator). */
export async function moveFromEnvironment(environment = process.env, log = say): Promise<MoveReport> {
  const cfg = withEnvironment(environment, readEnv);
  if (!cfg.databaseUrl) throw new MoveRefused("set DATABASE_URL to the new, empty PostgreSQL database (postgres://…)");
  if (!fs.existsSync(cfg.databaseFile))
    throw new MoveRefused(`there is no SQLite database at ${cfg.databaseFile} (set DATABASE_FILE)`);
  log(`From ${cfg.databaseFile} and the photos in ${cfg.uploadsDir}`);
  log(
    `To PostgreSQL ${redacted(cfg.databaseUrl)} and ${cfg.storage.kind === "s3" ? `the S3 bucket ${cfg.storage.bucket}` : "the same photo folder (STORAGE is not s3)"}`,
  );

  const source = knexFactory(knexConfig(cfg.databaseFile));
  const target = knexFactory(knexConfig(cfg.databaseUrl));
  const sourceStore = createPhotoStore({ uploadsDir: cfg.uploadsDir, storage: { kind: "disk" } });
  const targetStore = cfg.storage.kind === "s3" ? createPhotoStore(cfg) : sourceStore;
  try {
    // both at the code's latest migration: the source as `npm start` would leave it, the target's schema made by our migrations
    await source.migrate.latest();
    await target.migrate.latest();
    const report = await moveInstallation({ source, target, sourceStore, targetStore, log });
    const rows = report.tables.reduce((n, t) => n + t.rows, 0);
    log(
      `Moved ${rows} rows in ${report.tables.length} tables and ${report.photos.keys} photos (${report.photos.files} files).`,
    );
    if (report.leftBehind.length) log(`Not copied (not made by the migrations): ${report.leftBehind.join(", ")}`);
    return report;
  } finally {
    await source.destroy();
    await target.destroy();
    await sourceStore.close();
    if (targetStore !== sourceStore) await targetStore.close();
  }
}

/** readEnv() reads process.env: give it `environment` for the duration of the call. */
function withEnvironment<T>(environment: NodeJS.ProcessEnv, fn: () => T): T {
  if (environment === process.env) return fn();
  const saved = { ...process.env };
  const set = (vars: NodeJS.ProcessEnv) => {
    for (const k of Object.keys(process.env)) if (!(k in vars)) delete process.env[k];
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) process.env[k] = v;
  };
  set(environment);
  try {
    return fn();
  } finally {
    set(saved);
  }
}

function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

/** Entry for server/move-to-postgres.mjs: exit code 0 when moved, 1 when refused or failed. */
export async function run(): Promise<number> {
  try {
    await moveFromEnvironment();
    return 0;
  } catch (error) {
    if (error instanceof MoveRefused) console.error(`Nothing moved: ${error.message}`);
    else console.error("The move failed; the target is left as it was.", error);
    return 1;
  }
}
