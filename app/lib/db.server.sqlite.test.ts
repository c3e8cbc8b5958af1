// SQLite itself: pragmas and query plans. Not run on PostgreSQL (vitest.config.ts, SQLITE_ONLY).
import { describe, expect, it } from "vitest";
import { db } from "./db.server";

describe("the schema enforces the product's invariants (SQLite)", () => {
  it("runs SQLite with foreign keys, WAL and a busy timeout", async () => {
    const fk = await db().raw("PRAGMA foreign_keys");
    const wal = await db().raw("PRAGMA journal_mode");
    const busy = await db().raw("PRAGMA busy_timeout");
    expect(fk[0].foreign_keys).toBe(1);
    expect(wal[0].journal_mode).toBe("wal");
    expect(Object.values(busy[0])[0]).toBe(5000);
  });

  it("has the cursor index for a kid's moments newest first", async () => {
    const plan = await db().raw(
      "EXPLAIN QUERY PLAN SELECT id FROM daily_logs WHERE kid_id = 1 AND (taken_on, created_at, id) < ('2030-01-01', '2030', 5) ORDER BY taken_on DESC, created_at DESC, id DESC LIMIT 21",
    );
    const detail = plan.map((r: { detail: string }) => r.detail).join(" | ");
    expect(detail).toContain("daily_logs_kid_taken");
    expect(detail).not.toContain("TEMP B-TREE");
  });
});
