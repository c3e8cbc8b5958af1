import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";

// SQLite's own query plan for a moments page (the PostgreSQL plan: app/lib/db.server.postgres.test.ts).
describe("moments on SQLite", () => {
  it("uses the cursor index for a page, whatever its depth", async () => {
    const sql = db()("daily_logs")
      .where("kid_id", 1)
      .whereRaw("(daily_logs.taken_on, daily_logs.created_at, daily_logs.id) < (?, ?, ?)", ["2024-01-01", "2024-01-01T00:00:00.000Z", 5])
      .orderBy([{ column: "taken_on", order: "desc" }, { column: "created_at", order: "desc" }, { column: "id", order: "desc" }])
      .limit(21)
      .toSQL()
      .toNative();
    const plan = await db().raw(`EXPLAIN QUERY PLAN ${sql.sql}`, sql.bindings as never);
    const detail = (plan as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(detail).toMatch(/SEARCH daily_logs USING (COVERING )?INDEX daily_logs_kid_taken \(kid_id=\? AND \(taken_on,created_at\)<\(\?,\?\)\)/);
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });
});
