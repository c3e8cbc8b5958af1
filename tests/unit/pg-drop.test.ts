// Dropping a test database must not fail on a race (scripts/pg-drop.mjs): here the backend that
// `DROP DATABASE … WITH (FORCE)` may not end is a superuser's session, as an autovacuum worker's
// would be. PostgreSQL only: the throwaway cluster of scripts/pg-cluster.sh, whose superuser
// `postgres` is trusted on loopback.
import knexFactory from "knex";
import { describe, expect, inject, it } from "vitest";
import { knexConfig } from "../../db/knexfile.mjs";
import { databaseName, dropDatabase, urlOf, withConnection } from "../helpers-pg";

const pgRun = inject("pgTestRun")!;

const exists = (name: string) =>
  withConnection(pgRun.base, async (knex) => (await knex("pg_database").where("datname", name).first()) !== undefined);

describe("dropping a test database", () => {
  it("waits for a backend of another role to leave instead of failing", async () => {
    const name = databaseName("sm_drop");
    await withConnection(pgRun.base, (knex) => knex.raw(`create database ${name}`));
    const superuser = new URL(urlOf(pgRun.base, name));
    superuser.username = "postgres";
    const holder = knexFactory({ ...knexConfig(superuser.toString()), pool: { min: 1, max: 1 } });
    await holder.raw("select 1");
    try {
      // what a bare FORCE does when such a backend is attached
      await expect(
        withConnection(pgRun.base, (knex) => knex.raw(`drop database ${name} with (force)`)),
      ).rejects.toMatchObject({
        code: "42501",
      });
      const dropping = dropDatabase(pgRun.base, name);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await exists(name)).toBe(true);
      await holder.destroy();
      await dropping;
      expect(await exists(name)).toBe(false);
    } finally {
      await holder.destroy();
    }
  });

  it("ends the role's own connections that were left open (a killed server's)", async () => {
    const name = databaseName("sm_drop");
    await withConnection(pgRun.base, (knex) => knex.raw(`create database ${name}`));
    const left = knexFactory({ ...knexConfig(urlOf(pgRun.base, name)), pool: { min: 2, max: 2 } });
    await Promise.all([left.raw("select 1"), left.raw("select 1")]);
    await dropDatabase(pgRun.base, name);
    expect(await exists(name)).toBe(false);
    await left.destroy().catch(() => {});
  });
});
