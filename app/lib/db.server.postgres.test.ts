// PostgreSQL itself (docs/decisions/0014-postgresql.md). Run only with TEST_DATABASE_URL
// (vitest.config.ts, POSTGRES_ONLY).
import { describe, expect, it } from "vitest";
import { db } from "./db.server";

describe("the schema enforces the product's invariants (PostgreSQL)", () => {
  it("runs as an ordinary role that owns its database", async () => {
    const { rows } = await db().raw(
      "select r.rolsuper, pg_get_userbyid(d.datdba) = current_user as owner from pg_roles r, pg_database d where r.rolname = current_user and d.datname = current_database()",
    );
    // booleans read as 1/0, as SQLite's do (db/knexfile.mjs, docs/decisions/0046-typed-rows.md)
    expect(rows).toEqual([{ rolsuper: 0, owner: 1 }]);
  });

  it("answers booleans as 1/0, in the query layer's reads too", async () => {
    const { rows } = await db().raw("select true as yes, false as no, null::boolean as unknown");
    expect(rows).toEqual([{ yes: 1, no: 0, unknown: null }]);
    const { query } = await import("./query.server");
    const flags = query<Record<never, never>, { yes: 0 | 1; no: 0 | 1 }>((_p, k) =>
      k.queryBuilder().select(k.raw("true as yes"), k.raw("false as no")),
    );
    expect(await flags.all({})).toEqual([{ yes: 1, no: 0 }]);
  });

  it("answers 64-bit counts as numbers", async () => {
    const row = await db()("users").count({ n: "*" }).first();
    expect(row).toEqual({ n: expect.any(Number) });
    const { rows } = await db().raw("select count(*) as c, sum(2) as s, 9007199254740991::bigint as big");
    expect(rows).toEqual([{ c: 1, s: 2, big: Number.MAX_SAFE_INTEGER }]);
  });

  it("has the cursor index for a kid's moments newest first", async () => {
    const plan = await db().transaction(async (trx) => {
      // an empty table would be read whole: make the planner show what it does at scale
      await trx.raw("set local enable_seqscan = off");
      await trx.raw("set local enable_bitmapscan = off");
      const { rows } = await trx.raw(
        "explain select id from daily_logs where kid_id = 1 and (taken_on, created_at, id) < ('2030-01-01', '2030', 5) order by taken_on desc, created_at desc, id desc limit 21",
      );
      return rows.map((r: { "QUERY PLAN": string }) => r["QUERY PLAN"]).join(" | ");
    });
    expect(plan).toContain("daily_logs_kid_taken");
    expect(plan).not.toMatch(/\bSort\b/);
  });
});
