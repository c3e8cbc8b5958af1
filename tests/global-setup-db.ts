// Vitest global setup, run once per `vitest run` (and project) in the main process: ONE database
// migrated with the real migrations, which every test file starts from as a copy (tests/setup-db.ts),
// instead of each file migrating its own; and the folder of the run's one production build
// (docs/decisions/0051-test-kit-and-a-faster-suite.md). The migration tests still migrate for real,
// from empty or from an old schema (tests/unit/support/migration-db.ts).
// - SQLite (the default): a migrated file in a temp folder, copied per file, removed at the end.
// - TEST_DATABASE_URL set: one template database, copied per file (CREATE DATABASE … TEMPLATE …),
//   and every database of this run dropped at the end (tests/helpers-pg.ts).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import type { TestProject } from "vitest/node";
import { knexConfig } from "../db/knexfile.mjs";
import { databaseName, dropDatabase, testDatabaseUrl, urlOf, withConnection } from "./helpers-pg";

export default async function setup(project: TestProject) {
  const build = appBuild();
  project.provide("appBuildDir", build.dir);
  const base = testDatabaseUrl();
  if (!base) {
    project.provide("pgTestRun", null);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-test-template-"));
    const file = path.join(dir, "template.sqlite");
    const knex = knexFactory(knexConfig(file));
    try {
      await knex.migrate.latest();
    } finally {
      // the last connection closes: SQLite folds the WAL into the file, so the file alone is the copy
      await knex.destroy();
    }
    project.provide("sqliteTemplate", file);
    return () => {
      fs.rmSync(dir, { recursive: true, force: true });
      build.remove();
    };
  }
  project.provide("sqliteTemplate", null);
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
    build.remove();
  };
}

/**
 * The folder of the run's one production build, made on demand by the first test file that starts
 * the real server (tests/unit/support/built-server.ts): inside the project (build-test-*, ignored by
 * git) so the build finds its node_modules. Removed at the end with its lock and partial folders.
 * TEST_BUILD_DIR names a production build of this very tree made before the run instead (scripts/test.sh
 * builds once for vitest on both engines and the end-to-end tests): used as it is, and kept.
 */
function appBuild() {
  const given = process.env.TEST_BUILD_DIR?.trim();
  if (given) {
    const dir = path.resolve(given);
    if (!fs.existsSync(path.join(dir, "server", "index.js")))
      throw new Error(`TEST_BUILD_DIR=${given}: no production build there (npx react-router build)`);
    return { dir, remove() {} };
  }
  const dir = path.join(path.resolve(import.meta.dirname, ".."), `build-test-${crypto.randomBytes(4).toString("hex")}`);
  return {
    dir,
    remove() {
      for (const p of [dir, `${dir}.lock`, `${dir}.partial`, `${dir}.failed`])
        fs.rmSync(p, { recursive: true, force: true });
    },
  };
}
