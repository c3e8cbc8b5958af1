// Vitest global setup, run once per `vitest run` in the main process. On SQLite (the default) there
// is nothing to do: each test file migrates its own temporary file (tests/setup-db.ts). With
// TEST_DATABASE_URL set: one template database migrated here, copied per test file, and every
// database of this run dropped at the end (tests/helpers-pg.ts).
import type { TestProject } from "vitest/node";
import { databaseName, dropDatabase, testDatabaseUrl, urlOf, withConnection } from "./helpers-pg";

export default async function setup(project: TestProject) {
  const base = testDatabaseUrl();
  if (!base) {
    project.provide("pgTestRun", null);
    return;
  }
  const run = databaseName(`sm_test_${Date.now().toString(36)}`);
  const template = `${run}_template`;
  await withConnection(base, (knex) => knex.raw(`create database ${template}`));
  // no connection to the template may stay open: CREATE DATABASE … TEMPLATE refuses to copy then
  await withConnection(urlOf(base, template), (knex) => knex.migrate.latest());
  project.provide("pgTestRun", { base, run, template });

  return async () => {
    const names = await withConnection(
      base,
      async (knex) => (await knex("pg_database").where("datname", "like", `${run}\\_%`).pluck("datname")) as string[],
    );
    // the copies first: while they are being made, the template cannot be dropped
    for (const name of names.filter((n) => n !== template)) await dropDatabase(base, name);
    await dropDatabase(base, template);
  };
}
