// A database of its own for tests of migrations on existing data: SQLite in a temporary folder,
// or with TEST_DATABASE_URL a PostgreSQL database of the run made for the file and dropped after.
// `use()` registers the set-up and tear-down; `knex()` is the connection, migrated by the test.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { knexConfig } from "../../../db/knexfile.mjs";
import { databaseName, dropDatabase, urlOf, withConnection } from "../../helpers-pg";

export function migrationDatabase(suffix: string) {
  const pgRun = inject("pgTestRun");
  const pgName = pgRun ? databaseName(`${pgRun.run}_${suffix}`) : null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sm-migrate-${suffix}-`));
  let knex: Knex;

  beforeAll(async () => {
    if (pgRun && pgName) await withConnection(pgRun.base, (k) => k.raw(`create database ${pgName}`));
    knex = knexFactory(knexConfig(pgRun && pgName ? urlOf(pgRun.base, pgName) : path.join(dir, "old.sqlite")));
  });

  afterAll(async () => {
    await knex?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
    if (pgRun && pgName) await dropDatabase(pgRun.base, pgName);
  });

  return {
    knex: () => knex,
    /** The name of the next migration to run (null when there is none). */
    nextMigration,
    /** Runs the migrations before `name`, one at a time; fails when `name` is not among them. */
    async migrateUpTo(name: string): Promise<void> {
      for (let next = await nextMigration(); next !== name; next = await nextMigration()) {
        expect(next, `${name} is among the migrations`).not.toBeNull();
        await knex.migrate.up();
      }
    },
  };

  async function nextMigration(): Promise<string | null> {
    const [, pending] = (await knex.migrate.list()) as [unknown[], { file: string }[]];
    return pending[0]?.file ?? null;
  }
}

/**
 * A user row written straight into the table, as an older schema has it (no model: the model
 * speaks the latest schema). Answers its id.
 */
export async function insertRawUser(
  knex: Knex,
  name: string,
  { createdAt, passwordHash = "x" }: { createdAt: string; passwordHash?: string },
): Promise<number> {
  return idOf(
    await knex("users")
      .insert({
        username: name,
        username_normalized: name,
        email: `${name}@example.com`,
        email_normalized: `${name}@example.com`,
        password_hash: passwordHash,
        created_at: createdAt,
      })
      .returning("id"),
  );
}

/** The id an insert's `returning("id")` answered, on either engine. */
export function idOf(rows: unknown[]): number {
  const row = rows[0] as { id: number } | number;
  return Number(typeof row === "object" ? row.id : row);
}
