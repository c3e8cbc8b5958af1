// @ts-check
// What the benchmark's runs share (bench/run.mjs, bench/matrix.mjs, bench/against.mjs): the build,
// starting the server, waiting for it, logging in, the autocannon cases with their figures, and
// the results file.
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { BENCH_EMAIL, BENCH_PASSWORD } from "./seed-scale.mjs";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
export const CONNECTIONS = 10;
export const log = (/** @type {unknown[]} */ ...a) => console.log(...a);
/**
 * The browser of the cases that load pages (the slow link, the phone's images): CHROMIUM (or
 * CHROMIUM_PATH, as for the tests), else Debian's chromium, else its headless shell (all CI
 * installs: docs/decisions/0070-headless-shell.md).
 */
export const CHROMIUM =
  process.env.CHROMIUM ??
  process.env.CHROMIUM_PATH ??
  (fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : "/usr/bin/chromium-headless-shell");

/**
 * BENCH_CASES: comma-separated parts of case names ("moments page,feed"): only the cases whose
 * name contains one of them run (with the set-up they need), so one change can be measured
 * without the whole bench. Unset: every case.
 */
const CASE_FILTER = (process.env.BENCH_CASES ?? "")
  .split(",")
  .map((s) => s.trim().toLowerCase())
  .filter(Boolean);
/** Does the case `name` run in this bench? @param {string} name */
export const wanted = (name) =>
  CASE_FILTER.length === 0 || CASE_FILTER.some((part) => name.toLowerCase().includes(part));
/** A case that did not run (BENCH_CASES): no figures, and the ratios that need it are null. */
export const SKIPPED = Object.freeze({
  reqPerSec: null,
  p50ms: null,
  p99ms: null,
  cpuMsPerRequest: null,
  skipped: true,
});

/** Resident memory of one process, in MB. @param {number} pid */
export function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const get = (/** @type {string} */ k) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) / 1024;
  return { rssMB: get("VmRSS"), peakMB: get("VmHWM") };
}

/** The pids of a process and all its descendants (the cluster's primary and its workers). @param {number} pid */
export function processTree(pid) {
  /** @type {number[]} */
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks = [];
    try {
      tasks = fs.readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of fs.readFileSync(`/proc/${out[i]}/task/${t}/children`, "utf8").trim().split(/\s+/))
          if (c) out.push(Number(c));
      } catch {}
    }
  }
  return out;
}

/** Resident memory of a process and its descendants, summed (with `withPss`, the proportional figure too). @param {number} pid @param {boolean} [withPss] */
export function treeRssOf(pid, withPss = false) {
  let rssMB = 0,
    peakMB = 0,
    pssMB = 0;
  /** @type {number[]} resident MB of each process, the primary first */
  const perProcessMB = [];
  for (const p of processTree(pid)) {
    try {
      const r = rssOf(p);
      rssMB += r.rssMB;
      peakMB += r.peakMB;
      if (withPss) pssMB += pssOf(p);
      perProcessMB.push(Math.round(r.rssMB));
    } catch {}
  }
  return { rssMB, peakMB, pssMB, perProcessMB };
}

/**
 * Proportional resident memory (Linux's Pss, MB): each shared page (the node binary, native
 * libraries) divided among the processes that map it. Summed over a cluster it counts the shared
 * pages once, which a sum of resident sizes counts once per process.
 * @param {number} pid
 */
export function pssOf(pid) {
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  return Number(rollup.match(/^Pss:\s+(\d+)/m)?.[1] ?? 0) / 1024;
}

/**
 * CPU time (user + system, ms) used so far by a process and its descendants: per-request CPU is
 * the figure that holds on a shared, busy machine, where req/s and latencies follow the neighbours.
 * @param {number} pid
 */
export function treeCpuMs(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      // fields after the command's closing parenthesis: utime is the 12th, stime the 13th
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** @param {number} pid */
export function resetPeak(pid) {
  try {
    for (const p of processTree(pid)) fs.writeFileSync(`/proc/${p}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** @param {string} url */
export async function waitFor(url, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not answer at ${url}`);
}

/**
 * The production server's settings for a benchmark: on `port` of the loopback, a fresh session
 * secret, no demo data, the per-address limits out of the way, and glibc's malloc settings as `npm
 * start` runs it (`MALLOC_ARENA_MAX=2`, `MALLOC_MMAP_THRESHOLD_=131072`: see README).
 * @param {{ port: number, buildDir: string, databaseFile: string, uploadsDir: string }} where
 * @returns {Record<string, string>}
 */
export function serverEnv({ port, buildDir, databaseFile, uploadsDir }) {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    ALLOWED_HOSTS: "127.0.0.1",
    BUILD_DIR: buildDir,
    DATABASE_FILE: databaseFile,
    UPLOADS_DIR: uploadsDir,
    SESSION_SECRET: crypto.randomBytes(16).toString("hex"),
    DEMO: "false",
    LOGIN_MAX_FAILURES_PER_ADDRESS: "100000",
    SIGNUP_MAX_PER_ADDRESS: "100000",
    PHOTO_UPLOADS_PER_HOUR: "1000000",
    // the passkey case asks for sign-in options 220 times from one address
    PASSKEY_OPTIONS_MAX_PER_ADDRESS: "100000",
    NODE_ENV: "production",
    MALLOC_ARENA_MAX: "2",
    MALLOC_MMAP_THRESHOLD_: "131072",
  };
}

/** The V8 flag of `npm start` (package.json; docs/decisions/0036-lean-processes.md). */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=4"];

/**
 * `script` (a path from `cwd`, the project by default: another build's checkout with --against).
 * @param {string} script @param {Record<string, string>} env @param {string[]} [nodeFlags] @param {string} [cwd]
 */
export function startNode(script, env, nodeFlags = /** @type {string[]} */ ([]), cwd = root) {
  const child = spawn(process.execPath, [...nodeFlags, script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.on("data", (d) => process.stderr.write(`[${path.basename(script)}] ${d}`));
  child.stdout.on("data", () => {});
  return child;
}

/**
 * The production server with `workers` processes as `npm start` runs it: server/supervise.sh with
 * WEB_CONCURRENCY (server/cluster.mjs in builds from before it), or server/index.mjs alone for one.
 * Unset `workers`: the default start (one worker per core).
 * @param {Record<string, string>} env @param {number | undefined} workers @param {string} [cwd] the checkout to run
 */
export function startServer(env, workers, cwd = root) {
  if (workers === 1) return startNode("server/index.mjs", { ...env, WEB_CONCURRENCY: "1" }, SERVER_NODE_FLAGS, cwd);
  const withWorkers = workers === undefined ? env : { ...env, WEB_CONCURRENCY: String(workers) };
  if (fs.existsSync(path.join(cwd, "server", "supervise.sh"))) {
    const child = spawn("sh", ["server/supervise.sh", ...SERVER_NODE_FLAGS], {
      cwd,
      env: { ...process.env, ...withWorkers, SM_NODE: process.execPath },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr.on("data", (d) => process.stderr.write(`[supervise.sh] ${d}`));
    child.stdout.on("data", () => {});
    return child;
  }
  if (!fs.existsSync(path.join(cwd, "server", "cluster.mjs")))
    throw new Error("more than one worker needs server/cluster.mjs");
  return startNode("server/cluster.mjs", withWorkers, SERVER_NODE_FLAGS, cwd);
}

/** Stops a server (SIGTERM, SIGKILL after 5 s) and waits for it to exit. @param {import("node:child_process").ChildProcess} child */
export async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * The production build of the checkout `cwd` in `buildDir` (inside that checkout, so that its
 * imports resolve from its own node_modules); answers the seconds it took.
 * @param {string} buildDir @param {string} [cwd]
 */
export function buildApp(buildDir, cwd = root) {
  const t = Date.now();
  execFileSync("npx", ["react-router", "build"], {
    cwd,
    env: { ...process.env, BUILD_DIR: buildDir },
    stdio: "ignore",
  });
  return (Date.now() - t) / 1000;
}

/** The session an answer set: each Set-Cookie's name=value, as a Cookie header. @param {Response} res */
export function cookieOf(res) {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/**
 * A session cookie of the bench user (or of `email`, for a build seeded by its own script).
 * @param {string} base @param {string} [email] @param {string} [password]
 */
export async function login(base, email = BENCH_EMAIL, password = BENCH_PASSWORD) {
  const res = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`bench log-in failed: ${res.status} ${await res.text()}`);
  return cookieOf(res);
}

/**
 * Writes a results file (`out`, from the project's folder): `fields` after when, on which Node and
 * how many cores, and the machine's load average at the end.
 * @param {string} out @param {Record<string, unknown>} fields
 */
export function writeResultsFile(out, fields) {
  fs.writeFileSync(
    path.resolve(root, out),
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadavgAtEnd: os.loadavg(),
        ...fields,
      },
      null,
      2,
    )}\n`,
  );
}

/**
 * Load cases whose figures go into `results`.
 * @param {any[]} results
 */
export function recorder(results) {
  /** A case's figures from its autocannon run(s): req/s and latencies averaged over the runs. @param {string} name @param {any[]} runs @param {number} [expectStatus] */
  function record(name, runs, expectStatus, cpuMs = null) {
    const sum = (/** @type {(r: any) => number} */ f) => runs.reduce((n, r) => n + f(r), 0);
    const mean = (/** @type {(r: any) => number} */ f) => sum(f) / runs.length;
    const row = {
      case: name,
      kind: "load",
      reqPerSec: Math.round(mean((r) => r.requests.average)),
      p50ms: +mean((r) => r.latency.p50).toFixed(1),
      p99ms: +mean((r) => r.latency.p99).toFixed(1),
      errors: sum((r) => r.errors + r.timeouts + r.non2xx - (expectStatus === 304 ? (r["3xx"] ?? 0) : 0)),
      non2xx: sum((r) => r.non2xx),
      bytesPerResponse: Math.round(sum((r) => r.throughput.total) / (sum((r) => r.requests.total) || 1)),
      /** the server's CPU time (all its processes) per answer during the measured run */
      cpuMsPerRequest: cpuMs === null ? null : +(cpuMs / (sum((r) => r.requests.total) || 1)).toFixed(2),
      /** @type {Record<string, number>} answers other than 2xx (and the expected 304), by status */
      statuses: {},
    };
    for (const r of runs) {
      for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) {
        if (!/^2/.test(code) && !(expectStatus === 304 && code === "304"))
          row.statuses[code] = (row.statuses[code] ?? 0) + count;
      }
    }
    results.push(row);
    const statuses = Object.entries(row.statuses)
      .map(([c, n]) => `${n}×${c}`)
      .join(" ");
    log(
      `  ${name.padEnd(44)} ${String(row.reqPerSec).padStart(6)} req/s  p50 ${String(row.p50ms).padStart(4)} ms  p99 ${String(row.p99ms).padStart(4)} ms  errors ${row.errors}${statuses ? ` (${statuses})` : ""}  ${row.bytesPerResponse} B${row.cpuMsPerRequest === null ? "" : `  cpu ${row.cpuMsPerRequest} ms/req`}`,
    );
    return row;
  }

  /** One autocannon run; returns the case's figures. @param {string} name @param {any} opts */
  async function load(name, opts) {
    if (!wanted(name)) return /** @type {any} */ (SKIPPED);
    const base = {
      connections: CONNECTIONS,
      headers: { "accept-encoding": "gzip, deflate, br", ...(opts.headers ?? {}) },
    };
    const { beforeRun, cpuPid, ...rest } = opts;
    opts = rest;
    if (WARMUP > 0) await autocannon({ ...base, ...opts, headers: base.headers, duration: WARMUP });
    // writes that toggle state start the measured run from a known state (a warm-up can stop mid-cycle)
    await beforeRun?.();
    const cpuBefore = cpuPid ? treeCpuMs(cpuPid) : 0;
    const r = await autocannon({ ...base, ...opts, headers: base.headers, duration: DURATION });
    return record(name, [r], opts.expectStatus, cpuPid ? treeCpuMs(cpuPid) - cpuBefore : null);
  }

  /**
   * Two servers on one case, A against B: a warm-up on each, then A, B, B, A for half the duration
   * each, so a change in machine load during the case falls on both alike. Returns both rows.
   * With `cpuPids` (each side's server), each row also has the server's CPU time per answer.
   * @param {[string, string]} names @param {[string, string]} urls @param {Record<string, string>} headers
   * @param {[number, number]} [cpuPids]
   */
  async function loadPair(names, urls, headers, cpuPids) {
    if (!wanted(names[0])) return /** @type {any} */ ([SKIPPED, SKIPPED]);
    const base = { connections: CONNECTIONS, headers: { "accept-encoding": "gzip, deflate, br", ...headers } };
    if (WARMUP > 0) for (const url of urls) await autocannon({ ...base, url, duration: WARMUP });
    /** @type {[any[], any[]]} */
    const runs = [[], []];
    const cpu = [0, 0];
    for (const side of [0, 1, 1, 0]) {
      const pid = cpuPids?.[side];
      const before = pid ? treeCpuMs(pid) : 0;
      runs[side].push(await autocannon({ ...base, url: urls[side], duration: DURATION / 2 }));
      if (pid) cpu[side] += treeCpuMs(pid) - before;
    }
    return [
      record(names[0], runs[0], undefined, cpuPids ? cpu[0] : null),
      record(names[1], runs[1], undefined, cpuPids ? cpu[1] : null),
    ];
  }

  return { load, loadPair, record };
}

/**
 * The write cases: a like + unlike cycle and comment creation on `commentMomentId`.
 * Likes: moments of the bench user's 5,000-moment kid (ids 1000…, not on the first page) in a pool;
 * a cycle takes one out with its like and puts it back once its unlike has answered, so no two
 * connections ever toggle the same moment (autocannon gives each cycle a fresh context, and a
 * round-robin pick collided under uneven latency: "already liked" / "Like not found" counted as
 * errors). The measured run starts from "none liked".
 * @param {ReturnType<typeof recorder>["load"]} load @param {string} base @param {Record<string, string>} H @param {number} commentMomentId
 */
export async function writeCases(load, base, H, commentMomentId) {
  if (!wanted("like + unlike cycle (writes)") && !wanted("comment creation (writes)"))
    return { likes: SKIPPED, comments: SKIPPED };
  const cycle = likeCycle(base, H);
  await cycle.beforeRun();
  const likes = await load("like + unlike cycle (writes)", { url: base, headers: H, ...cycle });
  const comments = await load("comment creation (writes)", commentCreation(base, H, commentMomentId));
  return { likes, comments };
}

/**
 * The like + unlike cycle's autocannon options on one server (see writeCases): `beforeRun` unlikes
 * the pool's moments, so a measured run starts from "none liked".
 * @param {string} base @param {Record<string, string>} H
 */
export function likeCycle(base, H) {
  const pool = Array.from({ length: 3 * CONNECTIONS }, (_, i) => 1000 + i);
  const all = [...pool];
  const beforeRun = async () => {
    for (const id of all) await fetch(`${base}/api/likes/${id}/unlike`, { method: "DELETE", headers: H });
    pool.splice(0, pool.length, ...all);
  };
  const requests = [
    {
      method: "POST",
      setupRequest: (/** @type {any} */ req, /** @type {any} */ ctx) => {
        ctx.logId = pool.shift() ?? all[0];
        return { ...req, path: `/api/likes/${ctx.logId}/like` };
      },
    },
    {
      method: "DELETE",
      setupRequest: (/** @type {any} */ req, /** @type {any} */ ctx) => ({
        ...req,
        path: `/api/likes/${ctx.logId}/unlike`,
      }),
      onResponse: (/** @type {number} */ _status, /** @type {unknown} */ _body, /** @type {any} */ ctx) => {
        pool.push(ctx.logId);
      },
    },
  ];
  return { beforeRun, requests };
}

/** Comment creation's autocannon options on one server. @param {string} base @param {Record<string, string>} H @param {number} momentId */
export function commentCreation(base, H, momentId) {
  return {
    url: `${base}/api/comments/${momentId}/new-comment`,
    method: "POST",
    headers: { ...H, "content-type": "application/json" },
    body: JSON.stringify({ comment: "Benchmark comment: what a lovely day!" }),
  };
}
