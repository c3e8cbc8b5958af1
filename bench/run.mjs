// @ts-check
// `npm run bench`: builds the app, seeds the scale dataset into a temp folder (or, with
// DATABASE_URL=postgres://…, into that empty PostgreSQL database), starts the production server on
// a loopback port (BENCH_WORKERS processes, default 1) and measures it. Prints a table and writes
// bench/results.json (or BENCH_RESULTS). It prints figures; it asserts nothing. bench/matrix.mjs
// runs the main cases on several engines and process counts in one run.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { passkeySignIn } from "./passkey.mjs";
import { seedScale } from "./seed-scale.mjs";
import { clipFigures } from "./clip.mjs";
import { draftsFigures } from "./drafts.mjs";
import {
  buildApp,
  CONNECTIONS,
  cookieOf,
  DURATION,
  SKIPPED,
  WARMUP,
  log,
  login,
  recorder,
  resetPeak,
  root,
  SERVER_NODE_FLAGS,
  serverEnv,
  startNode,
  startServer,
  stopServer,
  treeRssOf,
  waitFor,
  wanted,
  writeCases,
  writeResultsFile,
  CHROMIUM,
} from "./lib.mjs";

const results = [];
const { load, loadPair } = recorder(results);
// BENCH_WORKERS: server processes (WEB_CONCURRENCY of server/supervise.sh); 1 (the default) runs
// server/index.mjs alone, as the figures before the cluster were measured
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
// BENCH_ONLY=photos: only the photo case (pipeline timing, and the server's peak resident memory
// during 4 concurrent uploads plus a 10-photo moment), on an empty database without the scale
// dataset; figures go to bench/results-photos.json (or BENCH_RESULTS). BENCH_ONLY=clip: only the clip
// case (bench/clip.mjs: a 60-second 1080p clip prepared; bench/results-clip.json). BENCH_ONLY=drafts:
// one "Add photos" request of 50 photos of 4 MB (bench/drafts.mjs; bench/results-drafts.json)
const ONLY = process.env.BENCH_ONLY ?? "";
// the page cases again on a second server with one process per core (server/supervise.sh), after the
// one-worker run; BENCH_ALL_CORES=0 skips it (and it is skipped on one core)
const ALL_CORES = os.cpus().length;
const RUN_ALL_CORES = process.env.BENCH_ALL_CORES !== "0" && ALL_CORES > 1 && WORKERS !== ALL_CORES;

/**
 * The original app's SPA on the same slow link (measured once, side by side with ours; the original
 * is not part of this repository, so it cannot be rerun here; docs/decisions/0035-slow-networks.md).
 */
const ORIGINAL_SPA_FIRST_MOMENT_MS = 8600;

/** a / b to two places, or null when either is missing. @param {number | null | undefined} a @param {number | null | undefined} b */
const ratio = (a, b) => (a != null && b ? +(a / b).toFixed(2) : null);

/**
 * The page cases (the kid pages, the feed, the moment page, the lists, the revisit that answers 304),
 * named with `suffix` ("" for the main server, " (2 workers)" for the all-cores one).
 * @param {ReturnType<typeof recorder>["load"]} load0 @param {string} base @param {Record<string, string>} H @param {any} ids @param {string} suffix @param {number} cpuPid the server whose CPU time per request is recorded
 */
async function pageCases(load0, base, H, ids, suffix, cpuPid) {
  /** @type {typeof load0} */
  const load = (name, opts) => load0(name, { ...opts, cpuPid });
  const landing = await load(`landing page (reference)${suffix}`, { url: `${base}/`, headers: H });
  const m5 = await load(`moments page, 5-moment kid${suffix}`, {
    url: `${base}/kids/${ids.kid5}/dailyLogs`,
    headers: H,
  });
  const m20 = await load(`moments page, 20-moment kid${suffix}`, {
    url: `${base}/kids/${ids.kid20}/dailyLogs`,
    headers: H,
  });
  // a revisit of the unchanged 20-moment page (docs/decisions/0034-*): the few queries of its ETag,
  // no render
  const name304 = `moments page, If-None-Match (304)${suffix}`;
  let m304 = SKIPPED;
  if (wanted(name304)) {
    const etag = (await fetch(`${base}/kids/${ids.kid20}/dailyLogs`, { headers: H })).headers.get("etag") ?? "";
    m304 = await load(name304, {
      url: `${base}/kids/${ids.kid20}/dailyLogs`,
      headers: { ...H, "if-none-match": etag },
      expectStatus: 304,
    });
  }
  const m5000 = await load(`moments page, 5,000-moment kid${suffix}`, {
    url: `${base}/kids/${ids.kid5000}/dailyLogs`,
    headers: H,
  });
  // the home feed of the benchmark user: their own kids and their 50 friends' kids
  const feed = await load(`/feed, 50 friends' kids${suffix}`, { url: `${base}/feed`, headers: H });
  const moment = await load(`moment detail page${suffix}`, { url: `${base}/dailyLogs/${ids.moment}`, headers: H });
  await load(`/my-kids-list${suffix}`, { url: `${base}/my-kids-list`, headers: H });
  const friends = await load(`/current/friends${suffix}`, { url: `${base}/current/friends`, headers: H });
  // one friend's own page, where the list's forms went (docs/decisions/0058-friends-as-a-list.md)
  const friendName = `a friend's own page${suffix}`;
  let friend = SKIPPED;
  if (wanted(friendName)) {
    const lists = await (await fetch(`${base}/api/users/friends`, { headers: H })).json();
    friend = await load(friendName, { url: `${base}/current/friends/${lists.confirmed_friends[0].id}`, headers: H });
  }
  return { landing, m5, m20, m304, m5000, feed, friends, moment, friend };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sm-bench-"));
  // the build must sit inside the project so its imports resolve from node_modules
  const buildDir = path.join(root, "bench", "tmp", "build");
  const databaseFile = path.join(tmp, "bench.sqlite");
  // the server inherits DATABASE_URL from this process's environment
  const databaseUrl = process.env.DATABASE_URL || null;
  const engine = databaseUrl ? "postgresql" : "sqlite";
  const uploadsDir = path.join(tmp, "uploads");
  log(`Benchmark folder: ${tmp} (database: ${engine}, ${WORKERS} server process${WORKERS === 1 ? "" : "es"})`);
  results.push({ case: "setup", kind: "setup", engine, workers: WORKERS, loadavg: os.loadavg() });

  const buildSeconds = buildApp(buildDir);
  results.push({ case: "build", kind: "setup", seconds: buildSeconds });
  log(`Built in ${buildSeconds.toFixed(1)} s`);

  const seeded =
    ONLY === "photos" || ONLY === "clip" || ONLY === "drafts"
      ? null
      : await seedScale({ databaseFile, databaseUrl, uploadsDir });
  if (seeded) {
    results.push({ case: "seed", kind: "setup", engine, seconds: seeded.seconds, counts: seeded.counts });
    log(`Seeded in ${seeded.seconds.toFixed(1)} s: ${JSON.stringify(seeded.counts)}`);
  }
  const ids = seeded?.ids;

  const port = 3390 + Math.floor(Math.random() * 9);
  const base = `http://127.0.0.1:${port}`;
  const env = serverEnv({ port, buildDir, databaseFile, uploadsDir });
  const server = startServer(env, WORKERS);
  // A second server on the same database with the /api fast path off (server/api-fast-path.mjs):
  // each GET /api case runs against both, interleaved (loadPair), so the fast path's worth is
  // measured under the same machine load (docs/decisions/0010-api-fast-path.md). BENCH_FAST_PATH_OFF=0 skips it.
  const offPort = port + 10;
  const offBase = `http://127.0.0.1:${offPort}`;
  const offServer =
    process.env.BENCH_FAST_PATH_OFF === "0" || ONLY || !wanted("GET /api")
      ? null
      : startNode("server/index.mjs", { ...env, PORT: String(offPort), API_FAST_PATH: "off" }, SERVER_NODE_FLAGS);
  // BENCH_ONLY=photos leaves this block after the photo case (`break measure`)
  // biome-ignore lint/suspicious/noConfusingLabels: the label lets BENCH_ONLY leave the measuring block early
  measure: try {
    await waitFor(`${base}/favicon.svg`);
    if (offServer) await waitFor(`${offBase}/favicon.svg`);
    await new Promise((r) => setTimeout(r, 1500));
    const idle = treeRssOf(/** @type {number} */ (server.pid), true);
    results.push({
      case: "memory: idle server",
      kind: "memory",
      rssMB: +idle.rssMB.toFixed(1),
      pssMB: +idle.pssMB.toFixed(1),
      perProcessMB: idle.perProcessMB,
    });
    log(`Idle server: ${idle.rssMB.toFixed(1)} MB resident (${idle.pssMB.toFixed(1)} MB proportional)`);

    if (ONLY === "clip") {
      const clip = await clipFigures(
        base,
        /** @type {number} */ (server.pid),
        tmp,
        await signUpUploader(base, "bench-clip"),
      );
      results.push({ case: "clip: 60 s of 1080p", kind: "clip", ...clip });
      log(`Clip: ${JSON.stringify(clip)}`);
      break measure;
    }
    if (ONLY === "drafts") {
      const pid = /** @type {number} */ (server.pid);
      const drafts = await draftsFigures({
        base,
        pid,
        tmp,
        cookie: await signUpUploader(base, "bench-drafts"),
        peakDuring,
      });
      results.push({ case: "drafts: 50 photos of 4 MB in one request", kind: "drafts", ...drafts });
      log(`Drafts: ${JSON.stringify(drafts)}`);
      break measure;
    }
    if (ONLY === "photos") {
      const photo = await photoFigures(base, server.pid, tmp, await signUpUploader(base, "bench-photos"));
      results.push({ case: "photos", kind: "photos", ...photo });
      logPhotos(photo);
      break measure;
    }
    const cookie = await login(base);
    const H = { cookie };

    // a photo URL (320 px) that the bench user may see
    const kidsJson = await (await fetch(`${base}/api/kids/current`, { headers: H })).json().catch(() => ({}));
    const imageUrl = (kidsJson.kids ?? [])
      .find((k) => k.kid_image_url)
      ?.kid_image_url?.replace(/\/\d+\.webp$/, "/320.webp");

    log(`\nLoad: ${CONNECTIONS} connections, ${DURATION} s per case after ${WARMUP} s warm-up`);
    const { landing, m5, m20, m304, m5000, feed, friends, moment, friend } = await pageCases(
      load,
      base,
      H,
      ids,
      "",
      /** @type {number} */ (server.pid),
    );
    /** @type {Record<string, number | null>} */
    const paired = {};
    /** A GET /api case: against the server, paired (when there is one) with the fast-path-off server. */
    const apiCase = async (/** @type {string} */ name, /** @type {string} */ pathname) => {
      if (!offServer) return load(name, { url: `${base}${pathname}`, headers: H });
      const [on, off] = await loadPair(
        [name, `${name}, fast path off`],
        [`${base}${pathname}`, `${offBase}${pathname}`],
        H,
        [/** @type {number} */ (server.pid), /** @type {number} */ (offServer.pid)],
      );
      paired[`${name} req/s on vs off`] = off.reqPerSec ? +(on.reqPerSec / off.reqPerSec).toFixed(2) : null;
      // the figure least moved by other processes on the machine
      paired[`${name} server CPU per request off vs on`] = ratio(off.cpuMsPerRequest, on.cpuMsPerRequest);
      return on;
    };
    const api = await apiCase("GET /api/kids/{id}/daily_logs", `/api/kids/${ids.kid20}/daily_logs`);
    await apiCase("GET /api/likes/{id}", `/api/likes/${ids.moment}`);
    await apiCase("GET /api/comments/{id}/comments", `/api/comments/${ids.moment}/comments`);
    if (imageUrl) {
      await load("image 320 px", { url: `${base}${imageUrl}`, headers: H });
      const etag = (await fetch(`${base}${imageUrl}`, { headers: H })).headers.get("etag") ?? "";
      await load("image 320 px, If-None-Match (304)", {
        url: `${base}${imageUrl}`,
        headers: { ...H, "if-none-match": etag },
        expectStatus: 304,
      });
    }

    // ---- the page cases on every core: a second server, one process per core ----
    /** @type {Awaited<ReturnType<typeof pageCases>> | null} */
    let all = null;
    if (RUN_ALL_CORES) {
      const allPort = port + 30;
      const allServer = startServer({ ...env, PORT: String(allPort) }, ALL_CORES);
      try {
        await waitFor(`http://127.0.0.1:${allPort}/favicon.svg`);
        await new Promise((r) => setTimeout(r, 1500));
        // idle memory of the primary and all its workers, as `npm start` runs them, summed over
        // every process (docs/decisions/0036-*, 0057-*)
        const idleAll = treeRssOf(/** @type {number} */ (allServer.pid), true);
        results.push({
          case: `memory: idle server (${ALL_CORES} workers)`,
          kind: "memory",
          rssMB: +idleAll.rssMB.toFixed(1),
          pssMB: +idleAll.pssMB.toFixed(1),
          perProcessMB: idleAll.perProcessMB,
        });
        log(
          `\nIdle server with ${ALL_CORES} workers, every process: ${idleAll.rssMB.toFixed(1)} MB resident (primary + workers: ${idleAll.perProcessMB.join(" + ")}), ${idleAll.pssMB.toFixed(1)} MB proportional`,
        );
        log(`\nThe page cases again with ${ALL_CORES} server processes (one per core):`);
        all = await pageCases(
          load,
          `http://127.0.0.1:${allPort}`,
          H,
          ids,
          ` (${ALL_CORES} workers)`,
          /** @type {number} */ (allServer.pid),
        );
        const afterAll = treeRssOf(/** @type {number} */ (allServer.pid), true);
        results.push({
          case: `memory: after load (${ALL_CORES} workers)`,
          kind: "memory",
          rssMB: +afterAll.rssMB.toFixed(1),
          pssMB: +afterAll.pssMB.toFixed(1),
          perProcessMB: afterAll.perProcessMB,
        });
      } finally {
        await stopServer(allServer);
      }
    }

    // the writes last among the load cases: their comments land on the benchmark's moment, which
    // the page cases above (on one worker and on all cores) must see as seeded
    await writeCases(load, base, H, ids.moment);
    // a passkey sign-in, options + verify, one round trip after another (bench/passkey.mjs)
    if (wanted("passkey sign-in")) {
      const passkey = await passkeySignIn(base, `http://localhost:${port}`, cookie);
      results.push({ case: "passkey sign-in (options + verify)", kind: "latency", ...passkey });
      log(
        `  ${"passkey sign-in (options + verify)".padEnd(44)} p50 ${passkey.p50ms} ms  p99 ${passkey.p99ms} ms  (${passkey.rounds} one after another, ${passkey.failures} refused)`,
      );
    }
    const after = treeRssOf(/** @type {number} */ (server.pid), true);
    results.push({
      case: "memory: after load",
      kind: "memory",
      rssMB: +after.rssMB.toFixed(1),
      peakMB: +after.peakMB.toFixed(1),
      pssMB: +after.pssMB.toFixed(1),
    });

    // ---- the floor: a minimal node:http server answering the same JSON (its SQL is SQLite's) ----
    let floorRow = null;
    if (engine === "sqlite" && wanted("floor: node:http daily_logs JSON")) {
      const floorPort = port + 20;
      const floor = startNode("bench/floor.mjs", { ...env, PORT: String(floorPort) });
      try {
        await waitFor(`http://127.0.0.1:${floorPort}/health`);
        floorRow = await load("floor: node:http daily_logs JSON", {
          url: `http://127.0.0.1:${floorPort}/api/kids/${ids.kid20}/daily_logs`,
          headers: H,
        });
      } finally {
        floor.kill("SIGTERM");
      }
    }

    // ---- page weight of the 5,000-moment kid's page on a first visit ----
    const weighing = wanted("page weight");
    const weight = weighing ? await pageWeight(base, cookie, `/kids/${ids.kid5000}/dailyLogs`) : null;
    const weight20 = weighing ? await pageWeight(base, cookie, `/kids/${ids.kid20}/dailyLogs`) : null;
    if (weight) results.push({ case: "page weight: 5,000-moment kid", kind: "weight", ...weight });
    // the page-weight budgets (docs/design.md): HTML + CSS ≤ 20 KB brotli, first-screen phone
    // images ≤ 150 KB
    if (weight20)
      results.push({
        case: "page weight: 20-moment kid",
        kind: "weight",
        ...weight20,
        budgetHtmlCssBr: 20 * 1024,
        budgetPhoneImageBytes: 150 * 1024,
      });

    // ---- photos ----
    const photo = wanted("photos") ? await photoFigures(base, server.pid, tmp, cookie) : null;
    if (photo) results.push({ case: "photos", kind: "photos", ...photo });

    // ---- summary of the targets ----
    const ratios = {
      "5,000 vs 20-moment kid p50": ratio(m5000.p50ms, m20.p50ms),
      "5 vs 20-moment kid p50": ratio(m5.p50ms, m20.p50ms),
      "/api daily_logs vs floor req/s": ratio(api.reqPerSec, floorRow?.reqPerSec),
      "20-moment page vs landing req/s": ratio(m20.reqPerSec, landing.reqPerSec),
      "20-moment page p99 ms": m20.p99ms,
      "feed vs 20-moment kid p50": ratio(feed.p50ms, m20.p50ms),
      "feed vs 20-moment kid, server CPU per request": ratio(feed.cpuMsPerRequest, m20.cpuMsPerRequest),
      "20-moment page vs landing, server CPU per request": ratio(m20.cpuMsPerRequest, landing.cpuMsPerRequest),
      "304 revisit vs full 20-moment page, server CPU per request": ratio(m304.cpuMsPerRequest, m20.cpuMsPerRequest),
      "20-moment kid vs feed req/s (feed slowdown)": ratio(m20.reqPerSec, feed.reqPerSec),
      "/current/friends vs landing req/s": ratio(friends.reqPerSec, landing.reqPerSec),
      "a friend's own page vs the moment page req/s": ratio(friend.reqPerSec, moment.reqPerSec),
      "20-moment page: 304 revisit vs full page req/s": ratio(m304.reqPerSec, m20.reqPerSec),
      ...(all
        ? {
            [`20-moment page vs landing req/s (${ALL_CORES} workers)`]: ratio(all.m20.reqPerSec, all.landing.reqPerSec),
            [`20-moment page p99 ms (${ALL_CORES} workers)`]: all.m20.p99ms,
            [`20-moment page req/s, ${ALL_CORES} workers vs 1`]: ratio(all.m20.reqPerSec, m20.reqPerSec),
            [`feed vs 20-moment kid p50 (${ALL_CORES} workers)`]: ratio(all.feed.p50ms, all.m20.p50ms),
            [`/current/friends vs landing req/s (${ALL_CORES} workers)`]: ratio(
              all.friends.reqPerSec,
              all.landing.reqPerSec,
            ),
          }
        : {}),
    };
    results.push({ case: "ratios", kind: "summary", ...ratios });
    if (offServer)
      results.push({
        case: "api fast path",
        kind: "summary",
        ...paired,
      });

    log("\nPage weight (first visit, compressed as served):");
    for (const [label, w] of [
      ["5,000-moment kid", weight],
      ["20-moment kid", weight20],
    ]) {
      if (!w) continue;
      log(
        `  ${label}: HTML ${w.htmlRaw} B raw / ${w.htmlBr} B br / ${w.htmlGzip} B gzip; CSS ${w.cssBr} B br; JS ${w.jsBr} B br (${w.jsFiles} files); HTML+CSS ${w.htmlCssBr} B br; requests ${w.requests}; first-screen images (400 px, DPR 2) ${w.phoneImageBytes} B in ${w.phoneImages} images`,
      );
    }
    if (weight20)
      log(
        `  budgets (20-moment kid): HTML+CSS ${weight20.htmlCssBr} of ${20 * 1024} B br ${weight20.htmlCssBr <= 20 * 1024 ? "(within)" : "(OVER)"}; first-screen phone images ${weight20.phoneImageBytes} of ${150 * 1024} B ${weight20.phoneImageBytes <= 150 * 1024 ? "(within)" : "(OVER)"}`,
      );
    if (photo) logPhotos(photo);
    log(`\nMemory: idle ${idle.rssMB.toFixed(1)} MB, after the load cases ${after.rssMB.toFixed(1)} MB`);
    log("\nRatios:");
    for (const [k, v] of Object.entries(ratios)) log(`  ${k}: ${v}`);
    for (const [k, v] of Object.entries(paired)) log(`  ${k}: ${v}`);
  } finally {
    if (offServer) await stopServer(offServer);
    await stopServer(server);
  }

  // ---- the kid page's first visit on a slow link (bench/slow-network.mjs, Chromium) ----
  if (!ONLY && wanted("slow network")) {
    if (!fs.existsSync(CHROMIUM)) log(`\nSlow network: skipped (no Chromium at ${CHROMIUM})`);
    else {
      log("\nSlow network: the 20-moment kid page's first visit, 400 kbit/s and 400 ms (bench/slow-network.mjs):");
      const networkResults = process.env.BENCH_NETWORK_RESULTS ?? path.join(root, "bench", "results-network.json");
      execFileSync(process.execPath, ["bench/slow-network.mjs"], {
        cwd: root,
        env: { ...process.env, BUILD_DIR: buildDir, BENCH_NETWORK_RESULTS: networkResults },
        stdio: "inherit",
      });
      const net = JSON.parse(fs.readFileSync(networkResults, "utf8"));
      for (const s of net.summary) {
        results.push({
          case: `slow network: first moment, JavaScript ${s.js ? "on" : "off"}`,
          kind: "network",
          ...s,
          vsOriginalSpa: ratio(s.firstMomentMsMedian, ORIGINAL_SPA_FIRST_MOMENT_MS),
        });
        log(
          `  JavaScript ${s.js ? "on " : "off"}: ${s.firstMomentMsMedian} ms, ${ratio(s.firstMomentMsMedian, ORIGINAL_SPA_FIRST_MOMENT_MS)} of the original SPA's ${ORIGINAL_SPA_FIRST_MOMENT_MS} ms (target ≤ 0.2)`,
        );
      }
    }
  }

  log(`\nWrote ${writeResults()}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(path.join(root, "bench", "tmp"), { recursive: true, force: true });
}

/** Bytes a first visit costs: HTML, CSS, JS (raw and compressed), requests; phone images via Chromium. */
async function pageWeight(base, cookie, pathname) {
  const res = await fetch(base + pathname, { headers: { cookie, "accept-encoding": "identity" } });
  const html = await res.text();
  const htmlRaw = Buffer.byteLength(html);
  const br = (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }).length;
  const gz = (b) => zlib.gzipSync(b, { level: 6 }).length;
  const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]);
  // the scripts a first visit loads: module preloads and the entry's imports (not the route manifest)
  const js = [
    ...new Set([
      ...[...html.matchAll(/<link rel="modulepreload" href="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]),
      ...[...html.matchAll(/import (?:\* as \w+ from )?"(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]),
    ]),
  ];
  // fetch() decompresses transparently: the bytes on the wire are the Content-Length header
  const sizeOf = async (url, enc) => {
    const r = await fetch(base + url, { headers: { "accept-encoding": enc } });
    const body = Buffer.from(await r.arrayBuffer());
    return Number(r.headers.get("content-length") ?? body.length);
  };
  let cssBr = 0,
    cssRaw = 0,
    jsBr = 0,
    jsRaw = 0;
  for (const u of css) {
    cssBr += await sizeOf(u, "br");
    cssRaw += await sizeOf(u, "identity");
  }
  for (const u of js) {
    jsBr += await sizeOf(u, "br");
    jsRaw += await sizeOf(u, "identity");
  }
  const phone = await phoneImages(base, cookie, pathname);
  return {
    htmlRaw,
    htmlBr: br(Buffer.from(html)),
    htmlGzip: gz(Buffer.from(html)),
    cssRaw,
    cssBr,
    jsRaw,
    jsBr,
    jsFiles: js.length,
    htmlCssBr: br(Buffer.from(html)) + cssBr,
    requests: 1 + css.length + js.length + phone.images + 1 /* favicon */,
    phoneImageBytes: phone.bytes,
    phoneImages: phone.images,
  };
}

async function phoneImages(base, cookie, pathname) {
  let chromium;
  try {
    ({ chromium } = await import("@playwright/test"));
  } catch {
    return { bytes: null, images: null };
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    // a phone browser runs JavaScript (Chromium does not lazy-load images with JavaScript off)
    const ctx = await browser.newContext({
      viewport: { width: 400, height: 800 },
      deviceScaleFactor: 2,
      javaScriptEnabled: true,
    });
    const url = new URL(base);
    await ctx.addCookies(
      cookie.split("; ").map((c) => {
        const i = c.indexOf("=");
        return { name: c.slice(0, i), value: c.slice(i + 1), domain: url.hostname, path: "/" };
      }),
    );
    const page = await ctx.newPage();
    let bytes = 0,
      images = 0;
    page.on("response", async (r) => {
      if (r.request().resourceType() === "image" && r.url().includes("/images/")) {
        images += 1;
        bytes += Number(r.headers()["content-length"] ?? (await r.body().catch(() => Buffer.alloc(0))).length);
      }
    });
    await page.goto(base + pathname, { waitUntil: "networkidle" });
    await page.waitForTimeout(500);
    return { bytes, images };
  } finally {
    await browser.close();
  }
}

/** bench/results.json (or BENCH_RESULTS; bench/results-photos.json with BENCH_ONLY=photos). */
function writeResults() {
  fs.mkdirSync(path.join(root, "bench"), { recursive: true });
  const out =
    process.env.BENCH_RESULTS ??
    (ONLY === "photos"
      ? "bench/results-photos.json"
      : ONLY === "clip"
        ? "bench/results-clip.json"
        : ONLY === "drafts"
          ? "bench/results-drafts.json"
          : "bench/results.json");
  writeResultsFile(out, { results });
  return out;
}

function logPhotos(photo) {
  log("\nPhotos:");
  log(
    `  12-MP JPEG → all derivatives: ${photo.processMs} ms; sharp bare decode+resize: ${photo.bareMs} ms; ratio ${photo.ratio}`,
  );
  log(
    `  server peak resident memory during 4 concurrent uploads: ${photo.peakDuringUploadsMB} MB (uploads answered ${photo.uploadStatuses.join(", ")})`,
  );
  log(
    `  … with a 10-photo moment (10 × 12-MP JPEG, ${photo.tenPhotoMB} MB) posted alongside: ${photo.peakWithTenPhotosMB} MB (answered ${photo.tenPhotoStatus}, in ${photo.tenPhotoSeconds} s)`,
  );
}

/** A new account's session cookie. */
async function signUpUploader(base, name) {
  const r = await fetch(`${base}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, username: name, password: "secret123" }),
  });
  if (!r.ok) throw new Error(`sign-up failed: ${r.status} ${await r.text()}`);
  return cookieOf(r);
}

/** Peak resident memory of the server (and its children) while `work` runs. */
async function peakDuring(pid, work) {
  const peakReset = resetPeak(pid);
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, treeRssOf(pid).rssMB);
    } catch {}
  }, 20);
  const value = await work();
  clearInterval(sampler);
  const hwm = peakReset ? treeRssOf(pid).peakMB : peak;
  return { value, peakMB: +Math.max(peak, hwm).toFixed(1) };
}

async function photoFigures(base, pid, tmp, cookie) {
  // a 12-megapixel photo-like JPEG
  const file = path.join(tmp, "12mp.jpg");
  const w = 4000,
    h = 3000;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fde"/><stop offset="1" stop-color="#347"/></radialGradient></defs><rect width="${w}" height="${h}" fill="url(#g)"/><circle cx="1800" cy="1400" r="900" fill="#f90" opacity=".6"/></svg>`;
  const noise = await sharp({
    create: { width: w, height: h, channels: 3, noise: { type: "gaussian", mean: 128, sigma: 30 } },
  })
    .png()
    .toBuffer();
  await sharp(Buffer.from(svg))
    .composite([{ input: noise, blend: "soft-light" }])
    .jpeg({ quality: 90 })
    .toFile(file);

  // our pipeline, loaded from the source through Vite's module runner, vs sharp's bare decode+resize
  const { runnerImport } = await import("vite");
  const { module } = await runnerImport("/bench/process-image.ts", {
    configFile: false,
    root,
    resolve: { alias: { "~": path.join(root, "app") } },
    logLevel: "error",
  });
  const processImage = /** @type {any} */ (module).processImage;
  const time = async (fn, n = 5) => {
    await fn();
    const samples = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      await fn();
      samples.push(performance.now() - s);
    }
    samples.sort((a, b) => a - b);
    return Math.round(samples[Math.floor(n / 2)]);
  };
  const processMs = await time(() => processImage(file));
  const bareMs = await time(() => sharp(file).resize({ width: 1280 }).webp().toBuffer());
  const storage = await storagePerPhoto(processImage, file, time);

  // peak resident memory of the server during 4 concurrent uploads
  const bytes = fs.readFileSync(file);
  const cookies = [cookie];
  for (let i = 0; i < 3; i++) cookies.push(await signUpUploader(base, `uploader${i}`));
  const upload = async (/** @type {string} */ c) => {
    const form = new FormData();
    form.set("image", new Blob([bytes], { type: "image/jpeg" }), "photo.jpg");
    const r = await fetch(`${base}/api/users/upload-profile-picture`, {
      method: "POST",
      headers: { cookie: c },
      body: form,
    });
    return r.status;
  };
  const four = await peakDuring(pid, () => Promise.all(cookies.map(upload)));

  // the same 4 uploads with a moment of 10 photos (12 MP each, as a phone takes them) posted
  // alongside: the photos of one request go through the pipeline one after another
  // (docs/decisions/0030-several-photos-per-moment.md), so memory must not grow tenfold
  const phone = path.join(tmp, "12mp-phone.jpg");
  await sharp(file).jpeg({ quality: 80 }).toFile(phone);
  const phoneBytes = fs.readFileSync(phone);
  const tenCookie = await signUpUploader(base, "ten-photos");
  const kidRes = await fetch(`${base}/api/kids/new`, {
    method: "POST",
    headers: { cookie: tenCookie, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", birth_date: "2020-01-01", relationship: "Mom" }),
  });
  const kid = await kidRes.json();
  const tenPhotos = async () => {
    const form = new FormData();
    form.set("title", "Ten photos");
    form.set("content", "A day at the beach");
    for (let i = 1; i <= 10; i++) {
      form.append("image", new Blob([phoneBytes], { type: "image/jpeg" }), `photo${i}.jpg`);
      form.set(`alt_${i}`, `Photo ${i}`);
    }
    const started = performance.now();
    const r = await fetch(`${base}/api/kids/${kid.id}/daily_logs/new`, {
      method: "POST",
      headers: { cookie: tenCookie },
      body: form,
    });
    return { status: r.status, seconds: +((performance.now() - started) / 1000).toFixed(1) };
  };
  const withTen = await peakDuring(pid, () => Promise.all([tenPhotos(), ...cookies.map(upload)]));
  const [ten, ...rest] = withTen.value;
  return {
    processMs,
    bareMs,
    ratio: +(processMs / bareMs).toFixed(2),
    peakDuringUploadsMB: four.peakMB,
    uploadStatuses: four.value,
    peakWithTenPhotosMB: withTen.peakMB,
    tenPhotoMB: +((phoneBytes.length * 10) / 1024 / 1024).toFixed(1),
    tenPhotoStatus: ten.status,
    tenPhotoSeconds: ten.seconds,
    uploadStatusesWithTen: rest,
    ...storage,
  };
}

/**
 * Bytes a moment's photo keeps (docs/decisions/0063-full-size-originals.md): the sizes every photo
 * has (160–1280 px WebP), the full-size copy (JPEG) added, and the time that copy adds to an upload.
 */
async function storagePerPhoto(processImage, file, time) {
  const result = await processImage(file, { keepOriginal: true });
  const sizesBytes = result.image.derivatives.reduce((n, d) => n + d.data.length, 0);
  const originalBytes = result.image.original.data.length;
  return {
    uploadBytes: fs.statSync(file).size,
    sizesBytes,
    originalBytes,
    originalPixels: `${result.image.original.width}x${result.image.original.height}`,
    storageRatio: +((sizesBytes + originalBytes) / sizesBytes).toFixed(1),
    processWithOriginalMs: await time(() => processImage(file, { keepOriginal: true })),
  };
}

// `npm run bench -- --against <git ref>` (or BENCH_AGAINST=<ref>): this build side by side with
// another one instead (bench/against.mjs)
const againstAt = process.argv.indexOf("--against");
const against = againstAt > 0 ? process.argv[againstAt + 1] : process.env.BENCH_AGAINST;
if (againstAt > 0 && !against) throw new Error("--against needs a git ref: npm run bench -- --against <ref>");
if (against) await (await import("./against.mjs")).benchAgainst(against);
else await main();
process.exit(0);
