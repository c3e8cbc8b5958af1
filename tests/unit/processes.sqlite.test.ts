// An outside process holding the SQLite write lock past the busy timeout
// (docs/decisions/0017-processes-and-write-transactions.md): the write path retries with back-off
// up to WRITE_RETRY_MS, then answers 503 with Retry-After (the API's envelope on /api, a page
// saying so elsewhere), never 500; once the lock is gone the same write goes through.
// Deterministic: a second connection holds the lock and lets go only after the assertions (and, for
// "retried then succeeded", only after the retries were seen). SQLite only (vitest.config.ts,
// SQLITE_ONLY).
import knexFactory, { type Knex } from "knex";
import sqlite3 from "sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knexConfig } from "../../db/knexfile.mjs";
import { resetEnvCache } from "../../server/env.mjs";
import { DatabaseBusyError, db, nowIso, writeTransaction } from "../../app/lib/db.server";
import { makeUser } from "../helpers";
import { buildApp, call, startBuiltServer, type BuiltServer } from "./support/built-server";

// this file's own database (tests/setup-db.ts) waits 30 ms for a lock, and writes retry for 300 ms
process.env.SQLITE_BUSY_TIMEOUT_MS = "30";
process.env.WRITE_RETRY_MS = "300";
resetEnvCache();

/** The outside process: a plain sqlite3 connection that takes the write lock and keeps it. */
class LockHolder {
  private readonly conn = new sqlite3.Database(process.env.DATABASE_FILE!);
  private run(sql: string) {
    return new Promise<void>((resolve, reject) => this.conn.exec(sql, (e) => (e ? reject(e) : resolve())));
  }
  lock() {
    return this.run("BEGIN IMMEDIATE");
  }
  async release() {
    await this.run("ROLLBACK");
    await new Promise<void>((resolve) => this.conn.close(() => resolve()));
  }
}

/** Resolves once `n` BEGIN IMMEDIATE statements of this process failed as busy. */
function busyBegins(n: number): { seen: Promise<void>; count: () => number; stop: () => void } {
  let count = 0;
  let done!: () => void;
  const seen = new Promise<void>((resolve) => (done = resolve));
  const listener = (error: { code?: string }, obj: { sql?: string }) => {
    if (error?.code === "SQLITE_BUSY" && /BEGIN IMMEDIATE/i.test(obj?.sql ?? "")) {
      count++;
      if (count === n) done();
    }
  };
  db().on("query-error", listener);
  return { seen, count: () => count, stop: () => db().off("query-error", listener) };
}

describe("writeTransaction while another connection holds the write lock", () => {
  it("retries with back-off, then throws DatabaseBusyError without having run the transaction", async () => {
    const user = await makeUser();
    const holder = new LockHolder();
    await holder.lock();
    const begins = busyBegins(2);
    let ran = false;
    try {
      const attempt = writeTransaction(async (trx) => {
        ran = true;
        await trx("users").where("id", user.id).update({ first_name: "Locked" });
      });
      const error = await attempt.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseBusyError);
      expect((error as DatabaseBusyError).retryAfterSeconds).toBe(1);
      expect(ran).toBe(false);
      expect(begins.count()).toBeGreaterThanOrEqual(2);
    } finally {
      begins.stop();
      await holder.release();
    }
    expect(await db()("users").where("id", user.id).first("first_name")).not.toEqual({ first_name: "Locked" });
  });

  it("goes through once the lock is released while it is still retrying", async () => {
    process.env.WRITE_RETRY_MS = "60000";
    resetEnvCache();
    const user = await makeUser();
    const holder = new LockHolder();
    await holder.lock();
    const begins = busyBegins(2);
    let released = false;
    try {
      const attempt = writeTransaction(async (trx) => {
        await trx("users").where("id", user.id).update({ first_name: "Waited" });
        return "committed";
      });
      await begins.seen; // it met the lock twice and is waiting to try again
      expect(await db()("users").where("id", user.id).first("first_name")).not.toEqual({ first_name: "Waited" });
      await holder.release();
      released = true;
      expect(await attempt).toBe("committed");
    } finally {
      begins.stop();
      if (!released) await holder.release();
      process.env.WRITE_RETRY_MS = "300";
      resetEnvCache();
    }
    expect(await db()("users").where("id", user.id).first("first_name")).toEqual({ first_name: "Waited" });
  });
});

describe("the server while an outside process holds the write lock", () => {
  let buildDir = "";
  let server: BuiltServer;
  let knex: Knex;

  beforeAll(async () => {
    buildDir = await buildApp();
    server = await startBuiltServer(buildDir, { SQLITE_BUSY_TIMEOUT_MS: "30", WRITE_RETRY_MS: "200" });
    knex = knexFactory(knexConfig(process.env.DATABASE_FILE!));
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await knex?.destroy();
  });

  async function signUp(base: string, name: string) {
    const res = await call(base, "/api/auth/signup", {
      json: { email: `${name}@example.com`, username: name, password: "secret12" },
    });
    expect(res.status).toBe(200);
    return { id: JSON.parse(res.text).id as number, cookie: res.cookie };
  }

  /** Asserts the 503 answer of a write that met the held lock; answers its body. */
  function expectBusy(res: { status: number; headers: Headers; text: string }, contentType: RegExp): string {
    expect(res.status, res.text + server.errorLines().join("\n")).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("content-type")).toMatch(contentType);
    return res.text;
  }

  it("an /api write answers 503 with Retry-After in the API's envelope, then succeeds once the lock is gone", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const owner = await signUp(base, "lockedapi");
    const now = nowIso();
    const [kidId] = await knex("kids").insert({
      user_id: owner.id,
      name: "Locked Kid",
      birth_date: "2020-01-02",
      relationship: "Dad",
      created_at: now,
    });
    const [momentId] = await knex("daily_logs").insert({
      kid_id: kidId,
      title: "Locked",
      content: "x",
      created_at: now,
      updated_at: now,
    });

    const remove = () => call(base, `/api/daily_logs/${momentId}`, { method: "DELETE", cookie: owner.cookie });
    const holder = new LockHolder();
    await holder.lock();
    try {
      const text = expectBusy(await remove(), /^application\/json/);
      expect(JSON.parse(text)).toEqual({ errors: { message: "The service is busy. Please try again in a moment." } });
    } finally {
      await holder.release();
    }
    // nothing was half-done, and the same request now goes through
    expect(await knex("daily_logs").where("id", momentId).first("id")).toEqual({ id: momentId });
    expect((await remove()).status).toBe(200);
    expect(await knex("daily_logs").where("id", momentId).first("id")).toBeUndefined();
    expect(server.errorLines().filter((l) => /\[server\]|\[app\]|\[api\]/.test(l))).toEqual([]);
  });

  it("a page's form post answers a 503 page that says so, with Retry-After, then succeeds once the lock is gone", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const user = await signUp(base, "lockedpage");
    const sessions = async () => (await knex("sessions").where("user_id", user.id).count({ n: "*" }).first())?.n;
    // Log In writes a session row
    const logIn = () =>
      call(base, "/login", {
        headers: { Origin: base },
        form: { email: "lockedpage@example.com", password: "secret12" },
      });
    expect(await sessions()).toBe(1);
    const holder = new LockHolder();
    await holder.lock();
    try {
      const html = expectBusy(await logIn(), /^text\/html/);
      expect(html).toContain("<h1>The service is busy. Please try again in a moment.</h1>");
    } finally {
      await holder.release();
    }
    expect(await sessions()).toBe(1);
    const after = await logIn();
    expect([after.status, after.headers.get("location")]).toEqual([302, "/my-kids-list"]);
    expect(await sessions()).toBe(2);
    expect(server.errorLines().filter((l) => /\[server\]|\[app\]|\[api\]/.test(l))).toEqual([]);
  });
});
