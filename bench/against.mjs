// @ts-check
// `npm run bench -- --against <git ref>` (or BENCH_AGAINST=<ref>): this build side by side with
// another one (docs/decisions/0057-bench-side-by-side.md). The ref is checked out in a temporary
// git worktree, its dependencies installed there (the current node_modules hard-linked when its
// package-lock.json is the same, else `npm ci`), and built; each build seeds its own SQLite
// database with its own bench/seed-scale.mjs and runs its own server (BENCH_WORKERS processes,
// default 1). Every page and API case of the main table then runs on both, interleaved: a warm-up on
// each, then BENCH_ROUNDS short rounds (BENCH_ROUND_SECONDS each side, the order alternating
// base-head, head-base), and each side's median is reported with the median of the rounds' ratios
// head/base. A case more than 10 % slower is flagged. Then the idle memory of a default start
// (as `npm start` runs it, every process of it) of each build, alternately, and
// the passkey sign-in round trip where the base has passkeys. It writes bench/results-against.json
// (or BENCH_RESULTS); it asserts nothing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { passkeySignIn } from "./passkey.mjs";
import {
  buildApp,
  CONNECTIONS,
  commentCreation,
  likeCycle,
  log,
  login,
  root,
  serverEnv,
  startServer,
  stopServer,
  treeCpuMs,
  treeRssOf,
  WARMUP,
  waitFor,
  wanted,
  writeResultsFile,
} from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
/** A case whose head/base ratio of requests per second is below this is flagged. */
const SLOWER = 0.9;
/** Loopback ports: BENCH_PORT and the next three (default 21120…21123). */
const PORT = Number(process.env.BENCH_PORT ?? 21120);

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** @param {string[]} args @param {string} cwd */
const git = (args, cwd = root) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/**
 * The other build's checkout with its dependencies, ready to build: a detached git worktree under
 * the temp folder, removed at the end (BENCH_AGAINST_KEEP=1 keeps it, and a kept one is reused).
 * @param {string} ref
 */
function checkout(ref) {
  const sha = git(["rev-parse", "--verify", `${ref}^{commit}`]);
  const dir = path.join(os.tmpdir(), `sm-bench-against-${sha.slice(0, 12)}`);
  const ready = path.join(dir, ".bench-ready");
  if (!fs.existsSync(ready)) {
    if (fs.existsSync(dir)) {
      git(["worktree", "remove", "--force", dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    git(["worktree", "add", "--detach", dir, sha]);
    const same =
      fs.readFileSync(path.join(root, "package-lock.json"), "utf8") ===
      fs.readFileSync(path.join(dir, "package-lock.json"), "utf8");
    const t = Date.now();
    if (same) execFileSync("cp", ["-al", path.join(root, "node_modules"), path.join(dir, "node_modules")]);
    else
      execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: dir,
        stdio: ["ignore", "ignore", "inherit"],
      });
    log(
      `${ref} (${sha.slice(0, 7)}): checked out in ${dir}, dependencies ${same ? "hard-linked (same package-lock.json)" : "installed with npm ci"} in ${((Date.now() - t) / 1000).toFixed(0)} s`,
    );
    fs.writeFileSync(ready, "");
  } else log(`${ref} (${sha.slice(0, 7)}): reusing ${dir}`);
  return {
    sha,
    dir,
    remove() {
      if (process.env.BENCH_AGAINST_KEEP === "1") return;
      git(["worktree", "remove", "--force", dir]);
    },
  };
}

/**
 * One build: its checkout, build, seeded database and server settings.
 * @param {string} label @param {string} cwd @param {string} tmp @param {number} port
 */
async function prepare(label, cwd, tmp, port) {
  const buildDir = path.join(cwd, "bench", "tmp", "build");
  const buildSeconds = buildApp(buildDir, cwd);
  const databaseFile = path.join(tmp, `${label}.sqlite`);
  const uploadsDir = path.join(tmp, `${label}-uploads`);
  // its own seeding script, with its own migrations and its own node_modules, in a process of its
  // own (two copies of the native modules in one process are asking for trouble)
  const seeder = pathToFileURL(path.join(cwd, "bench", "seed-scale.mjs")).href;
  const script = `const m = await import(${JSON.stringify(seeder)});
const seeded = await m.seedScale(${JSON.stringify({ databaseFile, databaseUrl: null, uploadsDir })});
process.stdout.write(JSON.stringify({ ...seeded, email: m.BENCH_EMAIL, password: m.BENCH_PASSWORD }));
process.exit(0);`;
  const seeded = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      encoding: "utf8",
      maxBuffer: 1 << 24,
    }),
  );
  log(`${label}: built in ${buildSeconds.toFixed(0)} s, seeded in ${seeded.seconds.toFixed(0)} s`);
  const env = serverEnv({ port, buildDir, databaseFile, uploadsDir });
  return {
    label,
    cwd,
    env,
    ids: seeded.ids,
    /** @type {string} */ email: seeded.email,
    /** @type {string} */ password: seeded.password,
    base: `http://127.0.0.1:${port}`,
    /** @type {string} */ cookie: "",
    /** @type {import("node:child_process").ChildProcess | null} */ server: null,
  };
}

/** @typedef {Awaited<ReturnType<typeof prepare>>} Side */

/** @param {Side} side */
async function logIn(side) {
  side.cookie = await login(side.base, side.email, side.password);
}

/**
 * The main table's page and API cases (bench/run.mjs names them the same), each as the autocannon
 * options on one side. `expectStatus` 304: the revisits.
 * @typedef {{ name: string, opts: (s: Side) => Promise<any>, expectStatus?: number }} Case
 * @returns {Case[]}
 */
function cases() {
  const get = (/** @type {(s: Side) => string} */ p) => async (/** @type {Side} */ s) => ({
    url: `${s.base}${p(s)}`,
    headers: { cookie: s.cookie },
  });
  const revisit = (/** @type {(s: Side) => Promise<string>} */ p) => async (/** @type {Side} */ s) => {
    const url = `${s.base}${await p(s)}`;
    const etag = (await fetch(url, { headers: { cookie: s.cookie } })).headers.get("etag") ?? "";
    return { url, headers: { cookie: s.cookie, "if-none-match": etag }, expectStatus: 304 };
  };
  const image = async (/** @type {Side} */ s) => {
    const kids = await (await fetch(`${s.base}/api/kids/current`, { headers: { cookie: s.cookie } })).json();
    const url = (kids.kids ?? []).find((/** @type {any} */ k) => k.kid_image_url)?.kid_image_url;
    return String(url).replace(/\/\d+\.webp$/, "/320.webp");
  };
  return [
    { name: "landing page (reference)", opts: get(() => "/") },
    { name: "moments page, 5-moment kid", opts: get((s) => `/kids/${s.ids.kid5}/dailyLogs`) },
    { name: "moments page, 20-moment kid", opts: get((s) => `/kids/${s.ids.kid20}/dailyLogs`) },
    {
      name: "moments page, If-None-Match (304)",
      opts: revisit(async (s) => `/kids/${s.ids.kid20}/dailyLogs`),
      expectStatus: 304,
    },
    { name: "moments page, 5,000-moment kid", opts: get((s) => `/kids/${s.ids.kid5000}/dailyLogs`) },
    { name: "/feed, 50 friends' kids", opts: get(() => "/feed") },
    { name: "moment detail page", opts: get((s) => `/dailyLogs/${s.ids.moment}`) },
    { name: "/my-kids-list", opts: get(() => "/my-kids-list") },
    { name: "/current/friends", opts: get(() => "/current/friends") },
    { name: "GET /api/kids/{id}/daily_logs", opts: get((s) => `/api/kids/${s.ids.kid20}/daily_logs`) },
    { name: "GET /api/likes/{id}", opts: get((s) => `/api/likes/${s.ids.moment}`) },
    { name: "GET /api/comments/{id}/comments", opts: get((s) => `/api/comments/${s.ids.moment}/comments`) },
    { name: "image 320 px", opts: async (s) => ({ url: `${s.base}${await image(s)}`, headers: { cookie: s.cookie } }) },
    { name: "image 320 px, If-None-Match (304)", opts: revisit(image), expectStatus: 304 },
    {
      name: "like + unlike cycle (writes)",
      opts: async (s) => ({ url: s.base, headers: { cookie: s.cookie }, ...likeCycle(s.base, { cookie: s.cookie }) }),
    },
    {
      name: "comment creation (writes)",
      opts: async (s) => commentCreation(s.base, { cookie: s.cookie }, s.ids.moment),
    },
  ];
}

/**
 * One case on both sides, interleaved. Answers each side's medians and the median of the rounds'
 * head/base ratios (of req/s, and of the server's CPU time per answer base/head).
 * @param {Case} c @param {[Side, Side]} sides base, head
 */
async function interleaved(c, sides) {
  const opts = await Promise.all(sides.map((s) => c.opts(s)));
  const runOnce = async (/** @type {number} */ i, /** @type {number} */ seconds) => {
    const { beforeRun, expectStatus, headers, ...rest } = opts[i];
    await beforeRun?.();
    const pid = /** @type {number} */ (sides[i].server?.pid);
    const cpu0 = treeCpuMs(pid);
    const r = await autocannon({
      connections: CONNECTIONS,
      headers: { "accept-encoding": "gzip, deflate, br", ...headers },
      ...rest,
      duration: seconds,
    });
    const expected = expectStatus === 304 ? (r["3xx"] ?? 0) : 0;
    return {
      reqPerSec: r.requests.average,
      p50ms: r.latency.p50,
      p99ms: r.latency.p99,
      cpuMsPerRequest: (treeCpuMs(pid) - cpu0) / (r.requests.total || 1),
      errors: r.errors + r.timeouts + r.non2xx - expected,
    };
  };
  if (WARMUP > 0) for (const i of [0, 1]) await runOnce(i, WARMUP);
  /** @type {[any[], any[]]} */
  const runs = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    for (const i of round % 2 ? [1, 0] : [0, 1]) runs[i].push(await runOnce(i, ROUND_SECONDS));
  }
  const side = (/** @type {any[]} */ rs) => ({
    reqPerSec: Math.round(/** @type {number} */ (median(rs.map((r) => r.reqPerSec)))),
    p50ms: median(rs.map((r) => r.p50ms)),
    p99ms: median(rs.map((r) => r.p99ms)),
    cpuMsPerRequest: +(/** @type {number} */ (median(rs.map((r) => r.cpuMsPerRequest))).toFixed(2)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
  });
  const ratios = runs[1].map((h, k) => h.reqPerSec / (runs[0][k].reqPerSec || 1));
  const cpuRatios = runs[1].map((h, k) => runs[0][k].cpuMsPerRequest / (h.cpuMsPerRequest || 1));
  const ratio = +(/** @type {number} */ (median(ratios)).toFixed(2));
  return {
    case: c.name,
    kind: "against",
    base: side(runs[0]),
    head: side(runs[1]),
    ratio,
    roundRatios: ratios.map((x) => +x.toFixed(2)),
    cpuRatio: +(/** @type {number} */ (median(cpuRatios)).toFixed(2)),
    slower: ratio < SLOWER,
    // the figure least moved by the machine's other work: the server's CPU time per answer
    moreCpu: /** @type {number} */ (median(cpuRatios)) < SLOWER,
  };
}

/**
 * Idle memory of a default start (server/supervise.sh, or server/cluster.mjs in builds from before
 * it; WEB_CONCURRENCY unset: one worker per core),
 * every process of it: right after the workers listen, then after each worker has answered a few
 * pages (the warm-up) and the server has been idle for 3 s.
 * @param {Side} s @param {number} port
 */
async function idleMemory(s, port) {
  const { WEB_CONCURRENCY: _, ...env } = { ...s.env, PORT: String(port) };
  const child = startServer(env, undefined, s.cwd);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/favicon.svg`);
    await new Promise((r) => setTimeout(r, 1500));
    const started = treeRssOf(/** @type {number} */ (child.pid), true);
    for (const p of ["/", `/kids/${s.ids.kid20}/dailyLogs`, "/feed", `/api/kids/${s.ids.kid20}/daily_logs`])
      await autocannon({ url: `${base}${p}`, connections: 4, amount: 40, headers: { cookie: s.cookie } });
    await new Promise((r) => setTimeout(r, 3000));
    const warm = treeRssOf(/** @type {number} */ (child.pid), true);
    const fig = (/** @type {ReturnType<typeof treeRssOf>} */ m) => ({
      rssMB: +m.rssMB.toFixed(1),
      pssMB: +m.pssMB.toFixed(1),
      perProcessMB: m.perProcessMB,
    });
    return { started: fig(started), warm: fig(warm) };
  } finally {
    await stopServer(child);
  }
}

/** @param {string} ref */
export async function benchAgainst(ref) {
  const results = [];
  results.push({ case: "setup", kind: "setup", against: ref, workers: WORKERS, loadavg: os.loadavg() });
  const other = checkout(ref);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sm-bench-against-data-"));
  const head = git(["rev-parse", "--short", "HEAD"]);
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]) !== "";
  try {
    /** @type {[Side, Side]} */
    const sides = [await prepare("base", other.dir, tmp, PORT + 1), await prepare("head", root, tmp, PORT)];
    log(
      `\nbase ${ref} (${other.sha.slice(0, 7)}) against head ${head}${dirty ? " + uncommitted changes" : ""}; ${WORKERS} server process${WORKERS === 1 ? "" : "es"} each; load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    for (const s of sides) s.server = startServer(s.env, WORKERS, s.cwd);
    try {
      for (const s of sides) await waitFor(`${s.base}/favicon.svg`);
      for (const s of sides) await logIn(s);
      log(
        `${CONNECTIONS} connections; per case ${WARMUP} s warm-up each, then ${ROUNDS} rounds of ${ROUND_SECONDS} s each side, alternating which goes first\n`,
      );
      log(
        `  ${"case".padEnd(40)} ${"base req/s".padStart(10)} ${"head req/s".padStart(10)} ${"head/base".padStart(9)}  ${"p99 base/head ms".padStart(17)}  ${"CPU/answer base/head".padStart(20)}`,
      );
      for (const c of cases()) {
        if (!wanted(c.name)) continue;
        const row = await interleaved(c, sides);
        results.push(row);
        log(
          `  ${c.name.padEnd(40)} ${String(row.base.reqPerSec).padStart(10)} ${String(row.head.reqPerSec).padStart(10)} ${row.ratio.toFixed(2).padStart(9)}  ${`${row.base.p99ms} / ${row.head.p99ms}`.padStart(17)}  ${`${row.base.cpuMsPerRequest} / ${row.head.cpuMsPerRequest} ms`.padStart(20)}${row.base.errors + row.head.errors ? `  errors ${row.base.errors}/${row.head.errors}` : ""}${row.slower ? "  SLOWER by more than 10 %" : ""}${row.moreCpu ? `  CPU per answer +${Math.round((1 / row.cpuRatio - 1) * 100)} %` : ""}`,
        );
      }
      if (wanted("passkey sign-in")) {
        /** @type {Record<string, any>} */
        const row = { case: "passkey sign-in (options + verify)", kind: "against" };
        for (const s of sides) {
          // the base may have no passkeys: then the case is new
          row[s.label] = await passkeySignIn(s.base, `http://localhost:${s.env.PORT}`, s.cookie).catch((e) => {
            if (/ 404 /.test(String(e))) return null;
            throw e;
          });
        }
        results.push(row);
        const fmt = (/** @type {any} */ f) =>
          f
            ? `p50 ${f.p50ms} ms, p99 ${f.p99ms} ms (${f.rounds} sign-ins, ${f.failures} refused)`
            : "new (not in base)";
        log(`\n  passkey sign-in, options + verify, one after another: base ${fmt(row.base)}; head ${fmt(row.head)}`);
      }
    } finally {
      for (const s of sides) if (s.server) await stopServer(s.server);
    }

    if (wanted("memory")) {
      log("\nIdle memory of a default start (one worker per core; every process, the supervisor first):");
      /** @type {Record<string, any[]>} */
      const memory = { base: [], head: [] };
      for (let round = 0; round < 2; round++) {
        for (const i of round % 2 ? [1, 0] : [0, 1]) {
          const s = sides[i];
          const m = await idleMemory(s, PORT + 2 + i);
          memory[s.label].push(m);
          log(
            `  ${s.label}: after start ${m.started.rssMB} MB (${m.started.perProcessMB.join(" + ")}), after warm-up ${m.warm.rssMB} MB (${m.warm.perProcessMB.join(" + ")}); proportional ${m.started.pssMB} / ${m.warm.pssMB} MB`,
          );
        }
      }
      results.push({ case: "memory: idle default start", kind: "against-memory", ...memory });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(path.join(root, "bench", "tmp"), { recursive: true, force: true });
    other.remove();
  }
  const out = process.env.BENCH_RESULTS ?? "bench/results-against.json";
  writeResultsFile(out, { base: { ref, sha: other.sha }, head: { sha: head, uncommitted: dirty }, results });
  log(`\nWrote ${out}`);
}
