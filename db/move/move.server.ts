import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Knex } from "knex";
import type { PhotoFile, PhotoStore } from "~/images/photo-store.server";

// Moves an installation from the embedded engines (a SQLite file, photos on the local disk) to the
// scale-out ones (PostgreSQL, an S3 bucket): `npm run move-to-postgres` (server/move-to-postgres.mjs,
// db/move/cli.server.ts), README "Scaling out", docs/decisions/0022-move-to-postgres.md.
//
// - The target database is migrated by our migrations first, then must hold no rows; the target
//   store must hold no photos. Anything else is refused before a byte is written.
// - Tables come from the source's schema (so tables added by later migrations are copied without a
//   change here), knex's own migration tables excepted; they are copied parents first, in the
//   order of their foreign keys, every column and every id as it is, in one transaction on the
//   target; then each PostgreSQL sequence restarts after the largest id copied.
// - Photos: every key of the source store with all its files, bytes as they are. They are copied
//   before the rows, and removed again when the rows cannot be committed, so a failed move leaves
//   the target as empty as it found it.

/** knex's bookkeeping: the target has its own, written by our migrations. */
export const SKIPPED_TABLES = ["knex_migrations", "knex_migrations_lock"];

export type MoveOptions = {
  /** The installation's SQLite database (already migrated: the caller runs the migrations). */
  source: Knex;
  /** An empty, migrated PostgreSQL database. */
  target: Knex;
  sourceStore: PhotoStore;
  /** Where the photos go; the same as the source (one disk folder) when only the database moves. */
  targetStore: PhotoStore;
  log?: (line: string) => void;
  /** Rows per INSERT (capped so that no statement has more than PostgreSQL's 65,535 parameters). */
  batchRows?: number;
};

export type MoveReport = {
  tables: { table: string; rows: number }[];
  photos: { keys: number; files: number; bytes: number };
  /** Tables of the source that the target's schema does not have (not made by our migrations). */
  leftBehind: string[];
};

export class MoveRefused extends Error {}

type Column = { name: string; type: string };

/** The source's tables with their foreign-key parents (SQLite's schema). */
async function sqliteTables(source: Knex): Promise<Map<string, Set<string>>> {
  const rows: { name: string }[] = await source.raw(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name",
  );
  const tables = new Map<string, Set<string>>();
  for (const { name } of rows) {
    if (SKIPPED_TABLES.includes(name)) continue;
    const keys: { table: string }[] = await source.raw(`pragma foreign_key_list(${quoteIdent(name)})`);
    tables.set(name, new Set(keys.map((k) => k.table).filter((t) => t !== name)));
  }
  return tables;
}

/** Parents before children; a cycle (which no insert order can satisfy) is refused. */
export function dependencyOrder(tables: Map<string, Set<string>>): string[] {
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (table: string, path: string[]) => {
    if (state.get(table) === "done") return;
    if (state.get(table) === "visiting")
      throw new MoveRefused(`the foreign keys of ${[...path, table].join(" → ")} form a cycle`);
    state.set(table, "visiting");
    for (const parent of [...(tables.get(table) ?? [])].sort()) if (tables.has(parent)) visit(parent, [...path, table]);
    state.set(table, "done");
    order.push(table);
  };
  for (const table of [...tables.keys()].sort()) visit(table, []);
  return order;
}

/**
 * The target's tables and the columns a copy writes (PostgreSQL, the current schema). Generated
 * columns (the friendship's ordered pair) are the database's to compute: they are left out here,
 * as SQLite's `pragma table_info` leaves them out of the source's list.
 */
async function postgresColumns(target: Knex): Promise<Map<string, Column[]>> {
  const { rows } = await target.raw(
    `select table_name, column_name, data_type from information_schema.columns
      where table_schema = current_schema() and is_generated = 'NEVER'
      order by table_name, ordinal_position`,
  );
  const tables = new Map<string, Column[]>();
  for (const r of rows as { table_name: string; column_name: string; data_type: string }[]) {
    const list = tables.get(r.table_name) ?? [];
    list.push({ name: r.column_name, type: r.data_type });
    tables.set(r.table_name, list);
  }
  return tables;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Refuses a target that already holds rows or photos. */
async function assertEmpty(target: Knex, tables: string[], store: PhotoStore | null): Promise<void> {
  for (const table of tables) {
    const row = await target(table).first(target.raw("1 as one"));
    if (row)
      throw new MoveRefused(
        `the target database is not empty: table ${table} has rows. Move into a new, empty database.`,
      );
  }
  if (store)
    for await (const { key } of store.listKeys()) {
      throw new MoveRefused(
        `the target photo store is not empty (it holds ${key}). Use an empty bucket (or a new S3_PREFIX).`,
      );
    }
}

/** SQLite keeps booleans as 0/1; PostgreSQL wants true/false. Everything else is copied as it is. */
function converter(columns: Column[]): (row: Record<string, unknown>) => Record<string, unknown> {
  const booleans = columns.filter((c) => c.type === "boolean").map((c) => c.name);
  return (row) => {
    for (const name of booleans) if (typeof row[name] === "number") row[name] = row[name] !== 0;
    return row;
  };
}

async function copyTable(
  source: Knex,
  trx: Knex.Transaction,
  table: string,
  columns: Column[],
  batchRows: number,
): Promise<number> {
  const names = columns.map((c) => c.name);
  const convert = converter(columns);
  const perInsert = Math.max(1, Math.min(batchRows, Math.floor(60_000 / Math.max(1, names.length))));
  let copied = 0;
  let after = -Infinity;
  // rowid order: for a table with an integer primary key that is id order, so rows that point at
  // an earlier row of their own table find it already there
  for (;;) {
    const rows: Record<string, unknown>[] = await source(table)
      .select(source.raw("rowid as __rowid"), ...names)
      .where("rowid", ">", Number.isFinite(after) ? after : Number.MIN_SAFE_INTEGER)
      .orderBy("rowid")
      .limit(perInsert);
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.__rowid);
    await trx(table).insert(rows.map(({ __rowid: _, ...row }) => convert(row)));
    copied += rows.length;
  }
  return copied;
}

/** Restarts every sequence-backed column of `table` after its largest value (1 when empty). */
async function resetSequences(trx: Knex.Transaction, table: string): Promise<void> {
  const { rows } = await trx.raw(
    `select column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as seq
       from information_schema.columns
      where table_schema = current_schema() and table_name = ? and pg_get_serial_sequence(quote_ident(table_name), column_name) is not null`,
    [table],
  );
  for (const { column_name, seq } of rows as { column_name: string; seq: string }[]) {
    await trx.raw(
      `select setval(?::regclass, coalesce((select max(${quoteIdent(column_name)}) from ${quoteIdent(table)}), 0) + 1, false)`,
      [seq],
    );
  }
}

async function copyPhotos(from: PhotoStore, to: PhotoStore, copied: string[], log: (line: string) => void) {
  let files = 0;
  let bytes = 0;
  // each key's files go through a local folder, never memory: a clip's source may be hundreds of MB
  // (docs/decisions/0064-video-clips.md)
  const spool = await fsp.mkdtemp(path.join(os.tmpdir(), "sm-move-"));
  try {
    for await (const { key } of from.listKeys()) {
      const list: PhotoFile[] = [];
      for (const name of await from.list(key)) {
        const opened = await from.open(key, name);
        if (!opened) continue;
        const file = path.join(spool, `${list.length}`);
        await pipeline(opened.stream, fs.createWriteStream(file));
        list.push({ name, file });
        bytes += (await fsp.stat(file)).size;
      }
      if (list.length === 0) continue;
      await to.putAll(key, list);
      await Promise.all(list.map((f) => ("file" in f ? fsp.rm(f.file, { force: true }) : undefined)));
      copied.push(key);
      files += list.length;
      if (copied.length % 500 === 0) log(`  photos: ${copied.length} copied`);
    }
  } finally {
    await fsp.rm(spool, { recursive: true, force: true });
  }
  return { keys: copied.length, files, bytes };
}

export async function moveInstallation(options: MoveOptions): Promise<MoveReport> {
  const { source, target, sourceStore, targetStore, batchRows = 1000 } = options;
  const log = options.log ?? (() => {});
  if (target.client.config.client !== "pg")
    throw new MoveRefused("the target must be a PostgreSQL database (DATABASE_URL=postgres://…)");
  if (source.client.config.client !== "sqlite3")
    throw new MoveRefused("the source must be the SQLite file (DATABASE_FILE)");

  const sourceTables = await sqliteTables(source);
  const targetColumns = await postgresColumns(target);
  const leftBehind = [...sourceTables.keys()].filter((t) => !targetColumns.has(t));
  for (const t of leftBehind) sourceTables.delete(t);
  const order = dependencyOrder(sourceTables);

  // every source column must have a place in the target (same migrations, so it has)
  const plan: { table: string; columns: Column[] }[] = [];
  for (const table of order) {
    const have: { name: string }[] = await source.raw(`pragma table_info(${quoteIdent(table)})`);
    const targetCols = targetColumns.get(table)!;
    const missing = have.map((c) => c.name).filter((n) => !targetCols.some((c) => c.name === n));
    if (missing.length)
      throw new MoveRefused(
        `the target's table ${table} has no column ${missing.join(", ")}: are both at the same migration?`,
      );
    plan.push({ table, columns: targetCols.filter((c) => have.some((h) => h.name === c.name)) });
  }

  const samePlace = sourceStore === targetStore;
  await assertEmpty(
    target,
    [...targetColumns.keys()].filter((t) => !SKIPPED_TABLES.includes(t)),
    samePlace ? null : targetStore,
  );

  const copiedKeys: string[] = [];
  try {
    const photos = samePlace
      ? { keys: 0, files: 0, bytes: 0 }
      : await copyPhotos(sourceStore, targetStore, copiedKeys, log);
    if (!samePlace) log(`Photos: ${photos.keys} (${photos.files} files, ${photos.bytes} bytes)`);
    const tables: MoveReport["tables"] = [];
    await target.transaction(async (trx) => {
      for (const { table, columns } of plan) {
        const rows = await copyTable(source, trx, table, columns, batchRows);
        await resetSequences(trx, table);
        tables.push({ table, rows });
        log(`Table ${table}: ${rows} rows`);
      }
    });
    return { tables, photos, leftBehind };
  } catch (error) {
    // the target as it was: without the photos copied so far (the rows rolled back on their own)
    for (const key of copiedKeys) await targetStore.deleteAll(key).catch(() => {});
    throw error;
  }
}
