// @ts-check
// A fresh database on a PostgreSQL server, for a run against it (scripts/test.sh: the end-to-end
// tests on PostgreSQL, docs/decisions/0021-e2e-on-postgresql.md; bench/run.mjs):
//   node scripts/pg-database.mjs create URL PREFIX   makes PREFIX_<random> (byte-wise C.UTF-8
//                                                   collation, like the app wants) and prints its URL
//   node scripts/pg-database.mjs drop URL            drops the database of URL (connections closed)
// URL is any database on that server that the role may connect to (e.g. TEST_DATABASE_URL).
import crypto from "node:crypto";
import knexFactory from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { dropDatabaseWithRetry } from "./pg-drop.mjs";

/** @param {string} url @param {(knex: import("knex").Knex) => Promise<unknown>} fn */
async function onServer(url, fn) {
  const knex = knexFactory({ ...knexConfig(url), pool: { min: 0, max: 1 } });
  try {
    await fn(knex);
  } finally {
    await knex.destroy();
  }
}

const [command, url, prefix = "sm"] = process.argv.slice(2);
if (command === "create" && url && /^[a-z][a-z0-9_]{0,30}$/.test(prefix)) {
  const name = `${prefix}_${crypto.randomBytes(4).toString("hex")}`;
  // template0: the collation may differ from the server's default
  await onServer(url, (knex) =>
    knex.raw(`create database ${name} template template0 encoding 'UTF8' lc_collate 'C.UTF-8' lc_ctype 'C.UTF-8'`),
  );
  const target = new URL(url);
  target.pathname = `/${name}`;
  console.log(target.toString());
} else if (command === "drop" && url) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(name)) throw new Error(`not a database this script makes: ${name}`);
  const server = new URL(url);
  server.pathname = "/postgres";
  await onServer(server.toString(), (knex) => dropDatabaseWithRetry(knex, name));
} else {
  console.error("usage: node scripts/pg-database.mjs create URL [PREFIX] | drop URL");
  process.exit(2);
}
