// App servers that start together on one database (README "Scaling out") wait for each other's
// migrations instead of stopping at knex's lock: server/migrate.mjs latestWhenFree.
import { afterEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { latestWhenFree } from "../../server/migrate.mjs";

const setLock = (locked: boolean) => db()("knex_migrations_lock").update({ is_locked: locked ? 1 : 0 });

afterEach(async () => {
  await setLock(false);
});

describe("migrations while another server holds the lock", () => {
  it("waits until the lock is free, then migrates", async () => {
    const knex = db();
    await setLock(true);
    // knex's own attempt to take the lock: `update … set is_locked = ? where is_locked = ?`
    let attempts = 0;
    let secondAttempt!: () => void;
    const retried = new Promise<void>((resolve) => (secondAttempt = resolve));
    const onQuery = (q: { sql: string }) => {
      if (/knex_migrations_lock.+where/i.test(q.sql) && ++attempts === 2) secondAttempt();
    };
    knex.on("query", onQuery);
    try {
      const run = latestWhenFree(knex);
      await retried; // the first attempt met the lock and a retry has begun
      await setLock(false);
      await expect(run).resolves.toEqual([expect.any(Number), []]);
      expect(attempts).toBeGreaterThanOrEqual(2);
    } finally {
      knex.off("query", onQuery);
    }
  });

  it("gives up with knex's error when the lock stays taken past the wait", async () => {
    await setLock(true);
    await expect(latestWhenFree(db(), 0)).rejects.toThrow(/already locked/);
  });
});
