// @ts-check
// `npm run db:migrate`: runs the migrations (idempotent). The server also runs them at start.
import fs from "node:fs";
import path from "node:path";
import knexFactory from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { env } from "./env.mjs";

/** Run migrations (idempotent). Returns the knex instance so callers can go on using it. */
export async function migrate() {
  const { databaseUrl, databaseFile, uploadsDir } = env();
  if (!databaseUrl) fs.mkdirSync(path.dirname(databaseFile), { recursive: true });
  fs.mkdirSync(uploadsDir, { recursive: true });
  const knex = knexFactory(knexConfig(databaseUrl ?? databaseFile));
  const [, applied] = await knex.migrate.latest();
  if (databaseUrl) await warnAboutCollation(knex);
  return { knex, applied };
}

/**
 * Text is ordered byte-wise on SQLite; PostgreSQL orders by the database's collation, so the same
 * lists come out in the same order only with a C collation (docs/decisions/0014-postgresql.md).
 * Asked of the collation itself (libc or ICU, any PostgreSQL version): byte-wise, "B" sorts first.
 * @param {import("knex").Knex} knex
 */
async function warnAboutCollation(knex) {
  const { rows } = await knex.raw("select 'B' < 'a' as bytewise");
  if (rows[0]?.bytewise) return;
  console.warn(
    "[db] this PostgreSQL database does not sort text byte-wise: lists may come out in another order than on " +
      "SQLite. Create it with LC_COLLATE 'C.UTF-8' (or 'C'); see docs/decisions/0014-postgresql.md.",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { knex, applied } = await migrate();
  console.log(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database is up to date.");
  await knex.destroy();
}
