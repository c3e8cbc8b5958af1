// Several server processes on one database (docs/decisions/0017-processes-and-write-
// transactions.md): two real servers (server/index.mjs on a fresh build) take concurrent moment
// deletes and comment creates and never answer 5xx: on one SQLite file (the default), and on
// PostgreSQL with TEST_DATABASE_URL; limits and the client's address shared by the processes; the
// workers of npm start (server/supervise.sh: workers replaced, SIGTERM). The write lock held from outside:
// processes.sqlite.test.ts.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { databaseTarget, isPostgresUrl, knexConfig } from "../../db/knexfile.mjs";
import { appVersion } from "../../server/version.mjs";
import { buildApp, call, startBuiltServer, type BuiltServer } from "./support/built-server";

let buildDir = "";
const servers: BuiltServer[] = [];
let knex: Knex;

type Account = { id: number; cookie: string };

async function signUp(base: string, prefix: string): Promise<Account> {
  const tag = crypto.randomBytes(4).toString("hex");
  const res = await call(base, "/api/auth/signup", {
    json: {
      email: `${prefix}${tag}@example.com`,
      username: `${prefix}${tag}`,
      password: "secret12",
      first_name: "Two",
      last_name: prefix,
    },
  });
  expect(res.status).toBe(200);
  return { id: JSON.parse(res.text).id, cookie: res.cookie };
}

/** `items` through `fn`, `limit` at a time. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

beforeAll(async () => {
  buildDir = await buildApp();
  servers.push(await startBuiltServer(buildDir), await startBuiltServer(buildDir));
  knex = knexFactory(knexConfig(databaseTarget()));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await knex?.destroy();
});

describe("health endpoints", () => {
  it("GET /healthz answers 200 while the process runs, /readyz 200 while the database answers", async () => {
    const base = `http://127.0.0.1:${servers[0]!.port}`;
    const health = await call(base, "/healthz");
    expect([health.status, health.text, health.headers.get("cache-control")]).toEqual([
      200,
      `ok ${appVersion()}\n`,
      "no-store",
    ]);
    expect(health.text).toMatch(/^ok \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)\n$/);
    const ready = await call(base, "/readyz");
    expect([ready.status, ready.text]).toEqual([200, "ok\n"]);
  });
});

describe("two server processes on one database", () => {
  it("answer concurrent deletes and comments without a 5xx, and the data stays consistent", async () => {
    const [a, b] = servers.map((s) => `http://127.0.0.1:${s.port}`) as [string, string];
    const owner = await signUp(a, "owner");
    const friend = await signUp(b, "friend");
    const kid = JSON.parse(
      (
        await call(a, "/api/kids/new", {
          cookie: owner.cookie,
          form: { name: "Two Kid", birth_date: "2020-01-02", relationship: "Mom" },
        })
      ).text,
    );
    const friendship = JSON.parse(
      (await call(a, "/api/friendships/new", { cookie: owner.cookie, json: { friend_id: friend.id } })).text,
    );
    await call(b, `/api/friendships/${friendship.id}/update`, {
      method: "PUT",
      cookie: friend.cookie,
      json: { status: "accepted" },
    });

    const MOMENTS = 80;
    const now = new Date().toISOString();
    const rows = Array.from({ length: MOMENTS }, (_, i) => ({
      kid_id: kid.id,
      title: `M${i}`,
      content: "two processes",
      created_at: now,
      updated_at: now,
    }));
    await knex("daily_logs").insert(rows);
    const momentIds: number[] = await knex("daily_logs").where("kid_id", kid.id).pluck("id");

    // per moment: three comments and one delete, spread over both servers, all interleaved
    type Job = { kind: "comment" | "delete"; id: number; base: string };
    const jobs: Job[] = [];
    momentIds.forEach((id, i) => {
      jobs.push({ kind: "comment", id, base: i % 2 ? a : b });
      jobs.push({ kind: "comment", id, base: i % 2 ? b : a });
      jobs.push({ kind: "delete", id, base: i % 2 ? a : b });
      jobs.push({ kind: "comment", id, base: i % 3 ? a : b });
    });
    const statuses = await mapLimit(jobs, 24, async (job) =>
      job.kind === "delete"
        ? (await call(job.base, `/api/daily_logs/${job.id}`, { method: "DELETE", cookie: owner.cookie })).status
        : (
            await call(job.base, `/api/comments/${job.id}/new-comment`, {
              cookie: friend.cookie,
              json: { comment: "Lovely" },
            })
          ).status,
    );
    const byStatus: Record<number, number> = {};
    for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
    console.log(`[processes] ${jobs.length} requests over 2 processes:`, JSON.stringify(byStatus));

    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // every delete succeeded (each moment is deleted once); comments succeeded or met a deleted moment
    for (const [i, s] of statuses.entries()) expect(jobs[i]!.kind === "delete" ? [200] : [201, 404]).toContain(s);
    expect(await knex("daily_logs").where("kid_id", kid.id).count({ n: "*" }).first()).toEqual({ n: 0 });
    expect(await knex("comments").whereIn("daily_log_id", momentIds).count({ n: "*" }).first()).toEqual({ n: 0 });
    if (!isPostgresUrl(databaseTarget())) {
      expect(await knex.raw("PRAGMA foreign_key_check")).toEqual([]);
      expect(await knex.raw("PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
    }
    for (const s of servers)
      expect(s.errorLines().filter((l) => /SQLITE_BUSY|\[server\]|\[app\]|\[api\]/.test(l))).toEqual([]);
  }, 120_000);
});

describe("limits shared by the processes (docs/decisions/0018-shared-limits-and-job-leases.md)", () => {
  const logIn = (base: string, email: string, password: string, forwardedFor?: string) =>
    call(base, "/api/auth/login", {
      json: { email, password },
      headers: forwardedFor ? { "X-Forwarded-For": forwardedFor } : {},
    });

  it("count log-in failures once for both servers: the 11th attempt is refused by either", async () => {
    const [a, b] = servers.map((s) => `http://127.0.0.1:${s.port}`) as [string, string];
    await call(a, "/api/auth/signup", {
      json: { email: "shared-count@example.com", username: "sharedcount", password: "secret12" },
    });
    // 5 on each: in-memory counters (one per process) would never reach the limit of 10
    for (let i = 0; i < 10; i++)
      expect((await logIn(i % 2 ? a : b, "shared-count@example.com", "wrong123")).status).toBe(401);
    for (const base of [a, b]) {
      const refused = await logIn(base, "shared-count@example.com", "secret12");
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text).email[0]).toMatch(/^Too many attempts/);
    }
  });

  it("take the client's address from X-Forwarded-For only through a trusted proxy (TRUST_PROXY)", async () => {
    const proxied = await startBuiltServer(buildDir, { TRUST_PROXY: "1", LOGIN_MAX_FAILURES_PER_ADDRESS: "2" });
    servers.push(proxied);
    const p = `http://127.0.0.1:${proxied.port}`;
    await call(p, "/api/auth/signup", {
      json: { email: "behind-proxy@example.com", username: "behindproxy", password: "secret12" },
    });
    for (let i = 0; i < 2; i++)
      expect((await logIn(p, `nobody-proxied${i}@example.com`, "wrong123", "203.0.113.5")).status).toBe(401);
    // the failing client is refused, another client behind the same proxy is not
    expect((await logIn(p, "behind-proxy@example.com", "secret12", "6.6.6.6, 203.0.113.5")).status).toBe(429);
    expect((await logIn(p, "behind-proxy@example.com", "secret12", "203.0.113.9")).status).toBe(200);
    // rotating the forwarded address buys no more guesses on one account (docs/decisions/0039-*)
    for (let i = 0; i < 10; i++)
      expect((await logIn(p, "behind-proxy@example.com", "wrong123", `198.51.100.${i}`)).status).toBe(401);
    expect((await logIn(p, "behind-proxy@example.com", "secret12", "198.51.100.200")).status).toBe(429);

    // without TRUST_PROXY the header is the client's own word: every attempt is the socket's address
    const direct = await startBuiltServer(buildDir, { LOGIN_MAX_FAILURES_PER_ADDRESS: "2" });
    servers.push(direct);
    const a = `http://127.0.0.1:${direct.port}`;
    await call(a, "/api/auth/signup", {
      json: { email: "no-proxy@example.com", username: "noproxy", password: "secret12" },
    });
    // (earlier tests here failed from this socket address too: its count is past 2 either way)
    for (let i = 0; i < 2; i++)
      expect([401, 429]).toContain(
        (await logIn(a, `nobody-direct${i}@example.com`, "wrong123", `203.0.113.${i}`)).status,
      );
    expect((await logIn(a, "no-proxy@example.com", "secret12", "198.51.100.77")).status).toBe(429);
  }, 120_000);
});

/** The processes whose parent is `pid` (Linux: /proc/<pid>/stat, field 4 is the parent). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")"
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out.sort((x, y) => x - y);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm start's workers (server/supervise.sh, docs/decisions/0017-processes-and-write-transactions.md)", () => {
  it("runs WEB_CONCURRENCY workers on one port from a shell without Node, replaces one that dies, and stops them all on SIGTERM", async () => {
    const supervisor = await startBuiltServer(buildDir, { WEB_CONCURRENCY: "2" }, "supervise.sh");
    // a failed expectation leaves no server behind (its whole process group)
    onTestFinished(() => supervisor.crash());
    const base = `http://127.0.0.1:${supervisor.port}`;
    // both share the port (SO_REUSEPORT): a worker that dies leaves it open for the other
    await supervisor.waitForOutput(/\[cluster\] 2 workers listening/);
    const workers = workersOf(supervisor.pid);
    expect(workers).toHaveLength(2);
    expect((await call(base, "/readyz")).status).toBe(200);
    // the supervisor is a shell, not Node: the migrations ran in a Node child that has exited, and it
    // holds a few MB where Node alone is over 40 (docs/decisions/0036-lean-processes.md)
    expect(fs.readFileSync(`/proc/${supervisor.pid}/maps`, "utf8")).not.toMatch(/\.node$|\/node$/m);
    expect(residentKB(supervisor.pid)).toBeLessThan(8 * 1024);
    // each worker runs with the memory settings the supervisor gives it, whatever started it
    for (const worker of workers) {
      const environ = fs.readFileSync(`/proc/${worker}/environ`, "utf8").split("\0");
      expect(environ).toContain(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX || "2"}`);
      expect(environ).toContain(`MALLOC_MMAP_THRESHOLD_=${process.env.MALLOC_MMAP_THRESHOLD_ || "131072"}`);
      expect(fs.readFileSync(`/proc/${worker}/cmdline`, "utf8").split("\0")).toContain("--max-semi-space-size=4");
    }

    const victim = workers[0]!;
    process.kill(victim, "SIGKILL");
    // once the killed worker is gone (its place has reaped it: its last thread has closed its
    // listening socket; a connection that reached that socket before is reset, see
    // docs/decisions/0036-lean-processes.md), the other worker answers every new connection on the
    // port while it is replaced (a kept-alive connection to the killed worker died with it, as under
    // node:cluster)
    await expect.poll(() => fs.existsSync(`/proc/${victim}`), { timeout: 30_000, interval: 5 }).toBe(false);
    for (let i = 0; i < 5; i++) expect(await statusOnNewConnection(supervisor.port, "/healthz")).toBe(200);
    const replaced = await supervisor.waitForOutput(
      new RegExp(`\\[cluster\\] worker (\\d+) took the place of ${victim}\\b`),
    );
    const replacement = Number(replaced[1]);
    expect(workersOf(supervisor.pid)).toEqual([workers[1]!, replacement].sort((x, y) => x - y));
    expect((await call(base, "/healthz")).status).toBe(200);

    // a service manager's stop signals the whole group: each worker gets it from there and from the
    // supervisor, and still finishes its shutdown (a second SIGTERM is not Node's default death)
    process.kill(-supervisor.pid, "SIGTERM");
    expect(await supervisor.stop()).toBe(0);
    expect([workers[1]!, replacement].filter(alive)).toEqual([]);
    expect(supervisor.outputLines().filter((l) => l.endsWith("INFO: Sweet Moments stopped"))).toHaveLength(2);
    expect(supervisor.errorLines()).toEqual([
      expect.stringMatching(
        new RegExp(`ERROR: \\[cluster\\] worker ${victim} exited \\(SIGKILL\\); a new one in 250 ms$`),
      ),
    ]);
  }, 120_000);
});

describe("npm start with WEB_CONCURRENCY=1 (server/supervise.sh)", () => {
  it("becomes the one server process itself: no supervisor stays beside it", async () => {
    const server = await startBuiltServer(buildDir, { WEB_CONCURRENCY: "1" }, "supervise.sh");
    onTestFinished(() => server.crash());
    expect((await call(`http://127.0.0.1:${server.port}`, "/readyz")).status).toBe(200);
    // the shell replaced itself with Node (exec): the process it started as serves, alone
    expect(fs.readFileSync(`/proc/${server.pid}/cmdline`, "utf8").split("\0")).toContain(
      path.join("server", "index.mjs"),
    );
    expect(childrenOf(server.pid)).toEqual([]);
    expect(await server.stop()).toBe(0);
  }, 60_000);
});

/** The workers of the supervisor `pid`: the Node processes among its children's children. */
function workersOf(pid: number): number[] {
  return childrenOf(pid)
    .flatMap((place) => childrenOf(place))
    .sort((x, y) => x - y);
}

/** The status of a GET on a connection of its own (no pooled connection is reused). */
function statusOnNewConnection(port: number, target: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: target, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
  });
}

/** Resident memory of a process in KB (Linux: /proc/<pid>/status). */
function residentKB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

describe("lean processes (docs/decisions/0036-lean-processes.md)", () => {
  it("the server build imports sharp, libheif, the AWS SDK, nodemailer and the WebAuthn library on first use only, never at start", () => {
    const dir = path.join(buildDir, "server");
    const files = fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    const code = files.map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("\n");
    for (const name of ["sharp", "heic-decode", "@aws-sdk/client-s3", "nodemailer", "@simplewebauthn/server"]) {
      expect(code, name).toContain(`import("${name}")`);
      expect(code, name).not.toMatch(new RegExp(`^import\\b[^;]*?from "${name}";`, "m"));
      expect(code, name).not.toMatch(new RegExp(`\\brequire\\("${name}"\\)`));
    }
  });
});
