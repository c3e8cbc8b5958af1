// @ts-check
// `npm start` / `npm run serve`: one server process per core on one port (node:cluster).
// WEB_CONCURRENCY sets the number of workers (default: the cores available); 1 runs a single
// process (server/index.mjs as is). The primary serves nothing and never loads the app, nor the
// settings' and checks' libraries (it stays near Node's own ~45 MB): a short-lived child checks the
// settings and the folders, answers the few settings the primary needs, runs the migrations and the
// demo seed (server/prepare.mjs), then the primary forks the workers, starts a new one when one dies (with
// back-off when they keep dying), and on SIGTERM/SIGINT stops them all. The periodic jobs run in
// the workers under a lease in the database (once per period across all of them).
// docs/decisions/0017-processes-and-write-transactions.md.
import { fork as forkChild } from "node:child_process";
import cluster from "node:cluster";
import { primaryLog } from "./primary-log.mjs";

/**
 * V8's young generation of a worker, in MB per semi-space: V8 grows it up to this under load and
 * keeps the pages afterwards; 4 MB keeps an idle worker about 9 MB smaller than 16 MB for the same CPU
 * per answer (docs/decisions/0036-lean-processes.md). A flag of the command line or of NODE_OPTIONS wins.
 */
const WORKER_SEMI_SPACE_MB = 4;

/** The primary's Node flags for its workers, with the young generation's cap unless one is given. @param {string[]} flags */
function workerNodeFlags(flags) {
  const given = [...flags, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((f) =>
    /^--max-semi-space-size\b/.test(f),
  );
  return given ? flags : [...flags, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

/** A worker that lived this long before dying resets the back-off. */
const HEALTHY_AFTER_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;

if (cluster.isWorker) {
  const { startServer } = await import("./index.mjs");
  await startServer({ worker: true, quiet: cluster.worker?.id !== 1 });
} else {
  // The primary imports only what supervising needs (docs/decisions/0057-bench-side-by-side.md): the
  // settings (zod), the checks (knex) and the app stay in the short-lived child, which answers the
  // few settings the primary uses before it prepares the database.
  const prepare = forkChild(new URL("./prepare.mjs", import.meta.url), { stdio: "inherit" });
  /** @type {{ workers: number, logFormat: "text" | "json", shutdownGraceSeconds: number } | null} */
  let settings = null;
  prepare.on("message", (m) => {
    settings = /** @type {any} */ (m);
  });
  const stopPreparing = () => {
    prepare.kill("SIGTERM");
    process.exit(1);
  };
  process.once("SIGTERM", stopPreparing);
  process.once("SIGINT", stopPreparing);
  /** @type {number | null} */
  const prepared = await new Promise((resolve) => prepare.once("exit", (code) => resolve(code)));
  process.off("SIGTERM", stopPreparing);
  process.off("SIGINT", stopPreparing);
  // the child printed the problem (a setting, a folder, the database) and exited 1
  if (prepared !== 0 || !settings) process.exit(1);
  await supervise(settings);
}

/**
 * One process (WEB_CONCURRENCY=1): the server itself; else the workers, replaced when one dies.
 * @param {{ workers: number, logFormat: "text" | "json", shutdownGraceSeconds: number }} settings
 */
async function supervise({ workers: count, logFormat, shutdownGraceSeconds }) {
  if (count === 1) {
    const { startServer } = await import("./index.mjs");
    const { startFailure } = await import("./preflight.mjs");
    try {
      await startServer();
    } catch (error) {
      console.error(startFailure(error));
      process.exit(1);
    }
    return;
  }
  // the primary's own lines in the workers' log format, without the log's library (server/primary-log.mjs)
  const log = primaryLog(logFormat);
  // the workers' memory settings, whatever command started the primary (docs/decisions/0036-*):
  // glibc's malloc with two arenas instead of eight per core and a fixed threshold above which it
  // maps (and on free returns) a block (its default rises to 32 MB after the first large free, after
  // which a photo's pixel buffers stay in the heap), and V8's young generation capped
  cluster.setupPrimary({ execArgv: workerNodeFlags(process.execArgv) });
  const workerEnv = {
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || "2",
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ || "131072",
  };
  let stopping = false;
  let crashes = 0;
  /** @type {Map<number, number>} worker id -> start time */
  const started = new Map();
  const fork = () => {
    const worker = cluster.fork(workerEnv);
    started.set(worker.id, Date.now());
    return worker;
  };
  cluster.on("exit", (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) return;
    crashes = lived >= HEALTHY_AFTER_MS ? 1 : crashes + 1;
    const delay = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (crashes - 1));
    log.error(`[cluster] worker ${worker.process.pid} exited (${signal ?? code}); a new one in ${delay} ms`);
    setTimeout(() => {
      if (stopping) return;
      const next = fork();
      next.once("listening", () =>
        log.info(`[cluster] worker ${next.process.pid} took the place of ${worker.process.pid}`),
      );
    }, delay).unref();
  });
  let listening = 0;
  for (let i = 0; i < count; i++) {
    fork().once("listening", () => {
      if (++listening === count) log.info(`[cluster] ${count} workers listening`);
    });
  }

  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    for (const worker of workers) worker?.process.kill("SIGTERM");
    // each worker lets its requests in flight finish (SHUTDOWN_GRACE_SECONDS), closes its database
    // and exits a second after that at the latest (server/index.mjs)
    setTimeout(() => process.exit(0), (shutdownGraceSeconds + 2) * 1000).unref();
    const left = () => Object.keys(cluster.workers ?? {}).length;
    if (left() === 0) process.exit(0);
    cluster.on("exit", () => {
      if (left() === 0) process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
