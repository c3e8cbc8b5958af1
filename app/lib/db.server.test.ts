import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db, nowIso } from "./db.server";
import { makeUser } from "../../tests/helpers";

async function kidWithLog(ownerId: number) {
  const now = nowIso();
  const [kid] = await db()("kids")
    .insert({ user_id: ownerId, name: "Kid", birth_date: "2020-01-01", relationship: "Mom", created_at: now })
    .returning("id");
  const kidId = Number(kid.id ?? kid);
  const [log] = await db()("daily_logs")
    .insert({ kid_id: kidId, title: "T", content: "C", taken_on: now.slice(0, 10), created_at: now, updated_at: now })
    .returning("id");
  return { kidId, logId: Number(log.id ?? log) };
}

describe("the schema enforces the product's invariants", () => {
  it("allows one friendship per pair of users in either direction", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const row = (from: number, to: number) => ({
      user_id: from,
      friend_id: to,
      status: "pending",
      created_at: nowIso(),
      updated_at: nowIso(),
    });
    await db()("friendships").insert(row(a.id, b.id));
    await expect(db()("friendships").insert(row(b.id, a.id))).rejects.toThrow(/UNIQUE/i);
    await expect(db()("friendships").insert(row(a.id, a.id))).rejects.toThrow(/CHECK/i);
    // the ordered pair is the database's to compute from who asked whom, never written
    const c = await makeUser();
    await expect(db()("friendships").insert({ ...row(a.id, c.id), user_low: a.id, user_high: c.id })).rejects.toThrow(
      /generated column|non-DEFAULT value/i,
    );
  });

  it("allows one like per user per moment", async () => {
    const a = await makeUser();
    const { logId } = await kidWithLog(a.id);
    await db()("likes").insert({ daily_log_id: logId, user_id: a.id, created_at: nowIso() });
    await expect(db()("likes").insert({ daily_log_id: logId, user_id: a.id, created_at: nowIso() })).rejects.toThrow(
      /UNIQUE/i,
    );
  });

  it("deleting a kid removes its moments, their likes and comments", async () => {
    const a = await makeUser();
    const { kidId, logId } = await kidWithLog(a.id);
    await db()("likes").insert({ daily_log_id: logId, user_id: a.id, created_at: nowIso() });
    await db()("comments").insert({
      daily_log_id: logId,
      user_id: a.id,
      comment: "hi",
      created_at: nowIso(),
      updated_at: nowIso(),
    });
    await db()("kids").where("id", kidId).delete();
    expect(await db()("daily_logs").where("id", logId).first()).toBeUndefined();
    expect(await db()("likes").where("daily_log_id", logId).first()).toBeUndefined();
    expect(await db()("comments").where("daily_log_id", logId).first()).toBeUndefined();
  });

  it("keeps emails and usernames unique case-insensitively", async () => {
    const { createUser } = await import("~/models/users.server");
    await makeUser({ email: "Case@Example.com", username: "CaseName" });
    const again = await createUser({ email: "case@EXAMPLE.com", username: "casename", password: "secret1" });
    expect(again).toEqual({
      ok: false,
      kind: "conflict",
      fieldErrors: { email: ["Email address is already in use."], username: ["Username is already in use."] },
    });
  });
});

describe("every write goes through writeTransaction (docs/decisions/0017-processes-and-write-transactions.md)", () => {
  const root = path.resolve(import.meta.dirname, "..", "..");
  const sources = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(rel);
      // tests and their fixtures set up rows directly
      if (!/\.(ts|tsx|mjs)$/.test(entry.name) || /\.test\.|test-fixtures|test-helpers/.test(entry.name)) return [];
      return [rel];
    });
  const files = [...sources("app"), ...sources("db")];

  it("finds the sources it checks", () => {
    expect(files).toContain(path.join("app", "models", "comments.server.ts"));
    expect(files).toContain(path.join("db", "seed", "demo.server.ts"));
  });

  it("has no transaction begun elsewhere than writeTransaction", () => {
    // knex's own transactions (on db(), a knex instance, a connection); not a helper such as
    // the submission's once.transaction, which runs writeTransaction
    const knexTransaction = /(\bdb\(\)|\bknex|\btrx|\bconn|\bk)\.transaction\(/;
    const offenders = files.filter(
      (f) =>
        f !== path.join("app", "lib", "db.server.ts") &&
        knexTransaction.test(fs.readFileSync(path.join(root, f), "utf8")),
    );
    expect(offenders).toEqual([]);
    // the check itself can fail
    expect(knexTransaction.test("await db().transaction(async (trx) => {")).toBe(true);
    expect(knexTransaction.test("await once.transaction((conn) => insertKid(conn))")).toBe(false);
  });

  it("has no insert, update or delete on db() outside a transaction", () => {
    const statement = /db\(\)\(\s*"[a-z_]+"\s*\)[^;]*?\.(insert|update|del|delete|onConflict)\(/s;
    const offenders = files.filter((f) => statement.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(offenders).toEqual([]);
    // the check itself can fail
    expect(statement.test('await db()("likes")\n  .where("id", 1)\n  .del();')).toBe(true);
  });
});
