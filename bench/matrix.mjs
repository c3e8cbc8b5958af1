// @ts-check
// `npm run bench:matrix`: the main load cases of `npm run bench` on several configurations in ONE
// run, so they share the machine's state: by default SQLite with 1 server process, SQLite with one
// per core, PostgreSQL with one per core (README "Benchmark"). The same scale dataset is seeded
// once per engine (bench/seed-scale.mjs). PostgreSQL: a fresh database on the server of
// DATABASE_URL (the role needs CREATEDB), or else a throwaway local cluster (scripts/pg-cluster.sh,
// port BENCH_PG_PORT, default 54339). Prints one table, writes bench/results-matrix.json.
//   BENCH_MATRIX="sqlite:1,sqlite:all,postgresql:all"   engine:processes, "all" = the cores
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { seedScale } from "./seed-scale.mjs";
import {
  buildApp,
  CONNECTIONS,
  DURATION,
  WARMUP,
  log,
  login,
  recorder,
  root,
  serverEnv,
  startServer,
  stopServer,
  waitFor,
  writeCases,
  writeResultsFile,
} from "./lib.mjs";

const cores = os.availableParallelism();
const configs = (process.env.BENCH_MATRIX ?? "sqlite:1,sqlite:all,postgresql:all").split(",").map((c) => {
  const [engine, n] = c.trim().split(":");
  if (engine !== "sqlite" && engine !== "postgresql") throw new Error(`BENCH_MATRIX: unknown engine ${engine}`);
  const workers = n === "all" ? cores : Number(n);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`BENCH_MATRIX: bad process count ${n}`);
  return { engine, workers, label: `${engine === "sqlite" ? "SQLite" : "PostgreSQL"} ×${workers}` };
});

/** @param {string} file @param {string[]} args */
const run = (file, args) => execFileSync(file, args, { cwd: root, encoding: "utf8" }).trim();

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sm-bench-matrix-"));
  const buildDir = path.join(root, "bench", "tmp", "build");
  /** @type {any[]} */
  const setup = [];
  /** @type {Record<string, any[]>} */
  const byConfig = {};
  let cluster = null;
  let pgDatabase = null;
  try {
    log(
      `Matrix: ${configs.map((c) => c.label).join(", ")}; ${CONNECTIONS} connections, ${DURATION} s per case after ${WARMUP} s warm-up; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    buildApp(buildDir);

    /** @type {Record<string, { databaseFile: string, databaseUrl: string | null, uploadsDir: string, ids: any }>} */
    const seeded = {};
    for (const engine of new Set(configs.map((c) => c.engine))) {
      const uploadsDir = path.join(tmp, `uploads-${engine}`);
      const databaseFile = path.join(tmp, "bench.sqlite");
      let databaseUrl = null;
      if (engine === "postgresql") {
        let server = process.env.DATABASE_URL?.trim();
        if (!server) {
          cluster = path.join(tmp, "pg");
          server = run("scripts/pg-cluster.sh", ["start", cluster, process.env.BENCH_PG_PORT ?? "54339"]);
        }
        databaseUrl = pgDatabase = run(process.execPath, ["scripts/pg-database.mjs", "create", server, "sm_bench"]);
      }
      const s = await seedScale({ databaseFile, databaseUrl, uploadsDir });
      setup.push({ case: `seed ${engine}`, kind: "setup", seconds: s.seconds, counts: s.counts });
      log(`Seeded ${engine} in ${s.seconds.toFixed(1)} s`);
      seeded[engine] = { databaseFile, databaseUrl, uploadsDir, ids: s.ids };
    }

    for (const config of configs) {
      const { databaseFile, databaseUrl, uploadsDir, ids } = seeded[config.engine];
      const port = 3390 + Math.floor(Math.random() * 9);
      const base = `http://127.0.0.1:${port}`;
      const env = { ...serverEnv({ port, buildDir, databaseFile, uploadsDir }), DATABASE_URL: databaseUrl ?? "" };
      log(
        `\n${config.label} (load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")})`,
      );
      const results = (byConfig[config.label] = []);
      const { load } = recorder(results);
      const server = startServer(env, config.workers);
      try {
        await waitFor(`${base}/favicon.svg`);
        await new Promise((r) => setTimeout(r, 1500));
        const H = { cookie: await login(base) };
        const kidsJson = await (await fetch(`${base}/api/kids/current`, { headers: H })).json().catch(() => ({}));
        const imageUrl = (kidsJson.kids ?? [])
          .find((/** @type {any} */ k) => k.kid_image_url)
          ?.kid_image_url?.replace(/\/\d+\.webp$/, "/320.webp");
        await load("landing page (reference)", { url: `${base}/`, headers: H });
        await load("moments page, 20-moment kid", { url: `${base}/kids/${ids.kid20}/dailyLogs`, headers: H });
        await load("moments page, 5,000-moment kid", { url: `${base}/kids/${ids.kid5000}/dailyLogs`, headers: H });
        await load("moment detail page", { url: `${base}/dailyLogs/${ids.moment}`, headers: H });
        await load("/my-kids-list", { url: `${base}/my-kids-list`, headers: H });
        await load("GET /api/kids/{id}/daily_logs", { url: `${base}/api/kids/${ids.kid20}/daily_logs`, headers: H });
        await load("GET /api/comments/{id}/comments", {
          url: `${base}/api/comments/${ids.moment}/comments`,
          headers: H,
        });
        if (imageUrl) await load("image 320 px", { url: `${base}${imageUrl}`, headers: H });
        // comments go to a moment no read case shows, so each configuration reads what the seed made
        // (the SQLite configurations share one file)
        await writeCases(load, base, H, 1100);
        // let the last requests autocannon left in flight finish before the server stops
        await new Promise((r) => setTimeout(r, 1000));
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    if (pgDatabase) {
      try {
        run(process.execPath, ["scripts/pg-database.mjs", "drop", pgDatabase]);
      } catch {}
    }
    if (cluster) {
      try {
        run("scripts/pg-cluster.sh", ["stop", cluster]);
      } catch {}
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(path.join(root, "bench", "tmp"), { recursive: true, force: true });
  }

  // one table: a row per case, req/s and p99 per configuration
  const labels = Object.keys(byConfig);
  const cases = [
    ...new Set(
      Object.values(byConfig)
        .flat()
        .map((r) => r.case),
    ),
  ];
  const cell = (/** @type {string} */ label, /** @type {string} */ name) => {
    const r = byConfig[label].find((x) => x.case === name);
    return r ? `${r.reqPerSec} req/s, p99 ${r.p99ms} ms${r.errors ? `, ${r.errors} errors` : ""}` : "–";
  };
  const table = [
    `| case | ${labels.join(" | ")} |`,
    `|---|${labels.map(() => "---").join("|")}|`,
    ...cases.map((c) => `| ${c} | ${labels.map((l) => cell(l, c)).join(" | ")} |`),
  ];
  log(`\n${table.join("\n")}`);
  const out = process.env.BENCH_RESULTS ?? "bench/results-matrix.json";
  writeResultsFile(out, { configs, setup, results: byConfig, table });
  log(`\nWrote ${out}`);
}

await main();
process.exit(0);
