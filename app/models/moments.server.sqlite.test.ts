import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { feedQueries } from "./feed.server";
import { whereKidParentIs } from "./access.server";

// SQLite's own query plan for a moments page (the PostgreSQL plan: app/lib/db.server.postgres.test.ts).
describe("moments on SQLite", () => {
  it("uses the cursor index for a page, whatever its depth", async () => {
    const sql = db()("daily_logs")
      .where("kid_id", 1)
      .whereRaw("(daily_logs.taken_on, daily_logs.created_at, daily_logs.id) < (?, ?, ?)", [
        "2024-01-01",
        "2024-01-01T00:00:00.000Z",
        5,
      ])
      .orderBy([
        { column: "taken_on", order: "desc" },
        { column: "created_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(21)
      .toSQL()
      .toNative();
    const plan = await db().raw(`EXPLAIN QUERY PLAN ${sql.sql}`, sql.bindings as never);
    const detail = (plan as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(detail).toMatch(
      /SEARCH daily_logs USING (COVERING )?INDEX daily_logs_kid_taken \(kid_id=\? AND \(taken_on,created_at\)<\(\?,\?\)\)/,
    );
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });

  it("reads the feed from the visible kids' ranges of the kid index, never the whole table (docs/decisions/0028-*)", async () => {
    // and the viewer's friends from both sides of the ordered pair by index (docs/decisions/0012-*)
    const plans: string[] = [];
    const cases = [
      [feedQueries.first, { viewer: 1, limit: 21 }],
      [
        feedQueries.after,
        { viewer: 1, limit: 21, takenOn: "2024-01-01", createdAt: "2024-01-01T00:00:00.000Z", id: 5 },
      ],
    ] as const;
    for (const [q, params] of cases) {
      const plan = await db().raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings(params as never) as never);
      plans.push((plan as { detail: string }[]).map((r) => r.detail).join(" | "));
    }
    for (const detail of plans) {
      expect(detail).toMatch(/SEARCH daily_logs USING (COVERING )?INDEX daily_logs_kid_taken \(kid_id=\?/);
      expect(detail).not.toMatch(/SCAN daily_logs/);
      expect(detail).toMatch(
        /SEARCH friendships USING (COVERING )?INDEX friendships_user_low_user_high_unique \(user_low=\?\)/,
      );
      expect(detail).toMatch(/SEARCH friendships USING (COVERING )?INDEX friendships_user_high_status \(user_high=\?/);
      expect(detail).not.toMatch(/SCAN friendships/);
    }
  });

  it("finds 'on this day' by the month-day index, each visible kid's moments of that day only", async () => {
    const q = feedQueries.onThisDay;
    const params = { viewer: 1, monthDay: "06-14", today: "2026-06-14", limit: 10 };
    const plan = await db().raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings(params) as never);
    const detail = (plan as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(detail).toMatch(
      /SEARCH daily_logs USING (COVERING )?INDEX daily_logs_month_day_kid \(<expr>=\? AND kid_id=\?\)/,
    );
    expect(detail).not.toMatch(/SCAN daily_logs/);
  });

  it("lists a parent's kids (My Kids) from their own and their co-parented kids' rows, never every kid", async () => {
    const sql = whereKidParentIs(db()("kids"), 1).select("kids.id").toSQL().toNative();
    const plan = await db().raw(`EXPLAIN QUERY PLAN ${sql.sql}`, sql.bindings as never);
    const detail = (plan as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(detail).toMatch(/SEARCH kids USING (COVERING )?INDEX kids_user_id_id_index \(user_id=\?\)/);
    expect(detail).toMatch(/SEARCH co_parents USING (COVERING )?INDEX co_parents_user_id_status_index/);
    expect(detail).not.toMatch(/SCAN kids/);
  });
});
