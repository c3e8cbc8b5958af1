import { describe, expect, it } from "vitest";
import { db, nowIso } from "./db.server";
import { closeReadDb, readAll, readDbPreparedCount, readFirst } from "./db-read.server";
import { limitParam, NO_LIMIT, query } from "./query.server";
import { makeUser, cookieFor, req } from "../../tests/helpers";
import { insertFriendship } from "../../tests/unit/friends-fixtures";
import { canSeeKidsOf, kidAccess } from "~/models/access.server";
import { getUser } from "~/web/auth.server";

async function insertKid(ownerId: number, name = "Kid"): Promise<number> {
  const [row] = await db()("kids")
    .insert({ user_id: ownerId, name, birth_date: "2020-01-01", relationship: "Mom", created_at: nowIso() })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

describe("the read connection", () => {
  it("answers the same rows as knex, and sees what knex committed", async () => {
    const owner = await makeUser();
    const kidId = await insertKid(owner.id, "Ada");
    const sql = "select id, user_id, name from kids where id = ?";
    expect(await readAll(sql, [kidId])).toEqual(await db()("kids").where("id", kidId).select("id", "user_id", "name"));
    expect(await readFirst(sql, [kidId])).toEqual({ id: kidId, user_id: owner.id, name: "Ada" });
    expect(await readFirst(sql, [kidId + 1000])).toBeUndefined();
    await db()("kids").where("id", kidId).update({ name: "Bo" });
    expect(await readFirst(sql, [kidId])).toMatchObject({ name: "Bo" });
  });

  it("is read-only", async () => {
    const owner = await makeUser();
    const kidId = await insertKid(owner.id);
    await expect(readAll("delete from kids where id = ?", [kidId])).rejects.toThrow(/readonly|read-only/i);
    expect(await db()("kids").where("id", kidId).first("id")).toBeTruthy();
  });

  it("prepares each SQL text once and reuses it, also under concurrency", async () => {
    const owner = await makeUser();
    const ids = await Promise.all([1, 2, 3].map((i) => insertKid(owner.id, `K${i}`)));
    const sql = "select name from kids where id = ? /* reuse test */";
    await readAll(sql, [ids[0]]);
    const before = readDbPreparedCount();
    for (let i = 0; i < 10; i++) expect(await readFirst(sql, [ids[i % 3]])).toEqual({ name: `K${(i % 3) + 1}` });
    expect(readDbPreparedCount()).toBe(before);
    // many at once: each gets its own answer (a few more statements may be prepared for the burst)
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => readFirst<{ name: string }>(sql, [ids[i % 3]])),
    );
    expect(answers.map((a) => a?.name)).toEqual(Array.from({ length: 30 }, (_, i) => `K${(i % 3) + 1}`));
  });

  it("reports SQL errors and keeps working", async () => {
    await expect(readAll("select nope from nowhere")).rejects.toThrow(/no such table/);
    await expect(readAll("select ? + ? as n", [1])).resolves.toEqual([{ n: null }]);
    expect(await readFirst("select 41 + 1 as n")).toEqual({ n: 42 });
  });

  it("announces each read as a knex query event, so query counts include it", async () => {
    const seen: { sql: string; bindings: unknown[]; readConnection?: boolean }[] = [];
    const listener = (q: (typeof seen)[number]) => seen.push(q);
    db().on("query", listener);
    try {
      await readAll("select ? as a", [7]);
    } finally {
      db().off("query", listener);
    }
    expect(seen).toEqual([expect.objectContaining({ sql: "select ? as a", bindings: [7], readConnection: true })]);
  });

  it("closes, and opens again on the next read", async () => {
    expect(await readFirst("select 1 as one")).toEqual({ one: 1 });
    await closeReadDb();
    await closeReadDb();
    expect(await readFirst("select 2 as two")).toEqual({ two: 2 });
  });

  it("does not see a write transaction's rows before the commit; the transaction itself does", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const trx = await db().transaction();
    try {
      const now = nowIso();
      await insertFriendship(a, b, "accepted", trx);
      const kidId = await trx("kids")
        .insert({ user_id: b.id, name: "New", birth_date: "2020-01-01", relationship: "Mom", created_at: now })
        .returning("id")
        .then(([row]) => Number(typeof row === "object" ? row.id : row));
      // inside the transaction: the checks read through it
      expect(await canSeeKidsOf(a.id, b.id, trx)).toBe(true);
      expect(await kidAccess(a.id, kidId, trx)).toEqual({
        kidId,
        ownerId: b.id,
        isOwner: false,
        isParent: false,
        visible: true,
      });
      // outside (the read connection): not committed yet, and no waiting for the writer
      expect(await canSeeKidsOf(a.id, b.id)).toBe(false);
      expect(await kidAccess(a.id, kidId)).toBeNull();
      await trx.commit();
      expect(await canSeeKidsOf(a.id, b.id)).toBe(true);
      expect(await kidAccess(a.id, kidId)).toEqual({
        kidId,
        ownerId: b.id,
        isOwner: false,
        isParent: false,
        visible: true,
      });
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });
});

describe("query", () => {
  it("writes the SQL once with knex and binds named parameters, lists as JSON", async () => {
    const owner = await makeUser();
    const ids = [await insertKid(owner.id, "A"), await insertKid(owner.id, "B"), await insertKid(owner.id, "C")];
    const q = query<{ ids: number[]; owner: number }>((p, k) =>
      k("kids")
        .whereRaw("id in (select value from json_each(?))", [p("ids")])
        .andWhere("user_id", p("owner"))
        .andWhere("relationship", "Mom")
        .orderBy("id")
        .select("name"),
    );
    expect(q.sql).not.toContain("\u0000");
    expect(q.bindings({ ids: [ids[0]!, ids[2]!], owner: owner.id })).toEqual([
      JSON.stringify([ids[0], ids[2]]),
      owner.id,
      "Mom",
    ]);
    expect(await q.all({ ids: [ids[0]!, ids[2]!], owner: owner.id })).toEqual([{ name: "A" }, { name: "C" }]);
    expect(await q.all({ ids: [], owner: owner.id })).toEqual([]);
    expect(await q.first({ ids, owner: owner.id })).toEqual({ name: "A" });
    expect(() => q.bindings({ ids } as never)).toThrow(/missing parameter owner/);
  });

  it("runs the same SQL inside a transaction with { conn }, seeing its uncommitted rows", async () => {
    const owner = await makeUser();
    const byOwner = query<{ owner: number; limit: number }>((p, k) =>
      limitParam(k, k("kids").where("user_id", p("owner")).orderBy("id").select("name"), p("limit")),
    );
    const seen: { sql: string; readConnection?: boolean }[] = [];
    const listener = (q: (typeof seen)[number]) => seen.push(q);
    await insertKid(owner.id, "Committed");
    const trx = await db().transaction();
    try {
      await trx("kids").insert({
        user_id: owner.id,
        name: "Pending",
        birth_date: "2020-01-01",
        relationship: "Mom",
        created_at: nowIso(),
      });
      db().on("query", listener);
      expect(await byOwner.all({ owner: owner.id, limit: NO_LIMIT }, { conn: trx })).toEqual([
        { name: "Committed" },
        { name: "Pending" },
      ]);
      expect(await byOwner.all({ owner: owner.id, limit: 1 }, { conn: trx })).toEqual([{ name: "Committed" }]);
      expect(await byOwner.all({ owner: owner.id, limit: NO_LIMIT })).toEqual([{ name: "Committed" }]);
      db().off("query", listener);
      await trx.rollback();
    } finally {
      db().off("query", listener);
      if (!trx.isCompleted()) await trx.rollback();
    }
    // the same SQL text both ways; every run counted as a query
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((q) => q.sql.replace(/\s+/g, " ")))).toEqual(new Set([byOwner.sql]));
    expect(seen.map((q) => Boolean(q.readConnection))).toEqual([false, false, true]);
  });
});

describe("the session cookie", () => {
  it("answers the same user for the same header, and nobody once the session is gone", async () => {
    const user = await makeUser();
    const cookie = await cookieFor(user);
    expect((await getUser(req("/", { cookie })))?.id).toBe(user.id);
    expect((await getUser(req("/", { cookie })))?.id).toBe(user.id);
    // a tampered signature never verifies, remembered header or not
    const [name, value] = cookie.split("=") as [string, string];
    const tampered = `${name}=${value.slice(0, -3)}${value.endsWith("AAA") ? "BBB" : "AAA"}`;
    expect(await getUser(req("/", { cookie: tampered }))).toBeNull();
    await db()("sessions").where("user_id", user.id).delete();
    expect(await getUser(req("/", { cookie }))).toBeNull();
  });
});
