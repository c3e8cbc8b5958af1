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
  return { knex, applied };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { knex, applied } = await migrate();
  console.log(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database is up to date.");
  await knex.destroy();
}
