// `npm run move-to-postgres` (db/move/, README "Scaling out", docs/decisions/0022-move-to-postgres.md)
// on the demo data: seeded into a SQLite file with its photos on the local disk, moved into this
// test file's PostgreSQL database (tests/setup-db.ts, runs on PostgreSQL only: vitest.config.ts)
// and a real S3-compatible server (s3rver, in-process), then every row and every photo's bytes
// compared with the source.
import { buffer } from "node:stream/consumers";
import knexFactory, { type Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPhotoStore, type PhotoStore } from "~/images/photo-store.server";
import { db } from "~/lib/db.server";
import { knexConfig } from "../../db/knexfile.mjs";
import { moveFromEnvironment } from "../../db/move/cli.server";
import { dependencyOrder, MoveRefused, SKIPPED_TABLES } from "../../db/move/move.server";
import { seedDemo } from "../../db/seed/demo.server";
import { readStorageSettings, resetEnvCache } from "../../server/env.mjs";
import { startS3, type RunningS3 } from "../s3-server";
import { runNpmScript } from "./support/npm-script";

const targetUrl = process.env.DATABASE_URL!;
const sourceFile = process.env.DATABASE_FILE!;
const uploadsDir = process.env.UPLOADS_DIR!;
let s3: RunningS3;
let source: Knex;
let target: Knex;
let sourceStore: PhotoStore;
let targetStore: PhotoStore;
const moveEnv = () => ({
  ...process.env,
  ...s3.env,
  DATABASE_URL: targetUrl,
  DATABASE_FILE: sourceFile,
  UPLOADS_DIR: uploadsDir,
});

async function sourceTables(): Promise<string[]> {
  const rows: { name: string }[] = await source.raw(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
  );
  return rows.map((r) => r.name).filter((n) => !SKIPPED_TABLES.includes(n));
}

/** Rows as comparable values: SQLite's 0/1 booleans and PostgreSQL's true/false alike. */
const normal = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "boolean" ? Number(v) : v])));

async function rowsOf(knex: Knex, table: string): Promise<Record<string, unknown>[]> {
  const columns: { name: string }[] = await source.raw(`pragma table_info("${table}")`);
  const names = columns.map((c) => c.name);
  const order = names.includes("id") ? ["id"] : names;
  return normal(await knex(table).select(names).orderBy(order));
}

async function photoBytes(store: PhotoStore): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for await (const { key } of store.listKeys()) {
    for (const name of await store.list(key)) {
      const opened = await store.open(key, name);
      files.set(`${key}/${name}`, await buffer(opened!.stream));
    }
  }
  return files;
}

beforeAll(async () => {
  // the demo installation on the embedded engines: a SQLite file, photos on the disk
  delete process.env.DATABASE_URL;
  resetEnvCache();
  try {
    await db().migrate.latest();
    await seedDemo();
  } finally {
    await db().destroy();
    (globalThis as { __sweetDb?: unknown }).__sweetDb = undefined;
    process.env.DATABASE_URL = targetUrl;
    resetEnvCache();
  }
  s3 = await startS3("sweet-moments-moved");
  source = knexFactory(knexConfig(sourceFile));
  target = knexFactory(knexConfig(targetUrl));
  sourceStore = createPhotoStore({ uploadsDir, storage: { kind: "disk" } });
  targetStore = createPhotoStore({ uploadsDir, storage: withEnv(s3.env, readStorageSettings) });
}, 120_000);

afterAll(async () => {
  await source?.destroy();
  await target?.destroy();
  await sourceStore?.close();
  await targetStore?.close();
  await s3?.stop();
});

function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe("npm run move-to-postgres", () => {
  it("copies every row of every table (ids kept) and every photo's bytes into PostgreSQL and S3", async () => {
    // the command itself, as README says (its S3 client loads on first use, after the move began)
    const moved = await runNpmScript("move-to-postgres", [], moveEnv());
    expect(moved.out).toMatch(/Moved \d+ rows in \d+ tables and \d+ photos \(\d+ files\)\./);
    expect(moved.code).toBe(0);

    const tables = await sourceTables();
    expect(tables).toEqual(
      expect.arrayContaining(["users", "images", "kids", "daily_logs", "likes", "comments", "friendships", "sessions"]),
    );
    for (const table of tables) expect(await rowsOf(target, table), table).toEqual(await rowsOf(source, table));
    // the demo data is really there (not two empty sides)
    for (const table of ["users", "images", "kids", "daily_logs", "likes", "comments", "friendships"]) {
      expect((await rowsOf(target, table)).length, table).toBeGreaterThan(0);
    }

    const before = await photoBytes(sourceStore);
    const after = await photoBytes(targetStore);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
    // every image row's files are there
    const keys = (await target("images").pluck("key")) as string[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect((await targetStore.list(key)).length, key).toBeGreaterThan(0);
    expect(moved.out).toContain(`(${before.size} files)`);

    // sequences continue after the largest id copied: a new row gets the next id
    for (const table of tables) {
      // a table keyed otherwise (feed_visits: by user_id) has no id sequence
      const idColumn = await target.raw(
        "select 1 from information_schema.columns where table_schema = current_schema() and table_name = ? and column_name = 'id'",
        [table],
      );
      if (!idColumn.rows.length) continue;
      const { rows } = await target.raw("select pg_get_serial_sequence(?, 'id') as seq", [table]);
      if (!rows[0]?.seq) continue;
      const max = Number((await target(table).max({ m: "id" }).first())?.m ?? 0);
      const next = await target.raw("select nextval(?::regclass) as n", [rows[0].seq]);
      expect(Number(next.rows[0].n), table).toBe(max + 1);
    }
  });

  it("refuses a target that is not empty, and changes nothing", async () => {
    const users = await target("users").count({ n: "*" }).first();
    const files = (await photoBytes(targetStore)).size;
    await expect(moveFromEnvironment(moveEnv(), () => {})).rejects.toThrow(MoveRefused);
    await expect(moveFromEnvironment(moveEnv(), () => {})).rejects.toThrow(/not empty/);
    expect(await target("users").count({ n: "*" }).first()).toEqual(users);
    expect((await photoBytes(targetStore)).size).toBe(files);
  });

  it("refuses without a PostgreSQL target or without the SQLite file", async () => {
    await expect(moveFromEnvironment({ ...moveEnv(), DATABASE_URL: "" }, () => {})).rejects.toThrow(/DATABASE_URL/);
    await expect(
      moveFromEnvironment({ ...moveEnv(), DATABASE_FILE: `${sourceFile}.missing` }, () => {}),
    ).rejects.toThrow(/no SQLite database/);
  });
});

describe("dependencyOrder", () => {
  it("puts parents first and refuses a cycle", () => {
    const graph = new Map([
      ["c", new Set(["b"])],
      ["b", new Set(["a"])],
      ["a", new Set<string>()],
    ]);
    expect(dependencyOrder(graph)).toEqual(["a", "b", "c"]);
    expect(() =>
      dependencyOrder(
        new Map([
          ["x", new Set(["y"])],
          ["y", new Set(["x"])],
        ]),
      ),
    ).toThrow(MoveRefused);
  });
});
