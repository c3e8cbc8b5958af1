// @ts-check
// A kid's page (20 moments with photos) on a slow link: 400 kbit/s down and up, 400 ms latency,
// cache disabled (Chromium's network emulation over CDP), first visit with JavaScript on and off
// (docs/decisions/0035-slow-networks.md). Not a test: it prints figures.
//   node bench/slow-network.mjs [runs]   (npm run bench:network; needs a production build in build/)
// Per run and mode: time to first moment (the first moment's photo and title painted, from the
// browser's Element Timing entries, relative to navigation start), bytes and requests finished
// before it, and the page's total transfer once the network is idle. Writes
// bench/results-network.json (or BENCH_NETWORK_RESULTS). BENCH_DEBUG=1 prints each visit's waterfall; BUILD_DIR=… serves
// another build (a before/after comparison). BENCH_NETWORK_DEFER_AB=1 measures the deferred scripts
// (app/web/deferred-scripts.server.ts) instead: JavaScript on only, against this server and a second
// one on the same database with DEFER_SCRIPTS=off, alternating, into bench/results-network-defer-ab.json.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import sharp from "sharp";
import { CHROMIUM, root, startNode, stopServer, waitFor, log } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? process.env.BENCH_NETWORK_RUNS ?? 3);
const MOMENTS = 20;
const LINK = { offline: false, latency: 400, downloadThroughput: (400 * 1000) / 8, uploadThroughput: (400 * 1000) / 8 };
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-slow-network-"));
const port = 4300 + Math.floor(Math.random() * 90);
const base = `http://127.0.0.1:${port}`;
const AB = process.env.BENCH_NETWORK_DEFER_AB === "1";
const serverEnv = {
  PORT: String(port),
  HOST: "127.0.0.1",
  ALLOWED_HOSTS: "127.0.0.1", // reached at that address (the site itself is http://localhost:<port>)
  DATABASE_FILE: path.join(dir, "db.sqlite"),
  DATABASE_URL: "",
  UPLOADS_DIR: path.join(dir, "uploads"),
  SESSION_SECRET: crypto.randomBytes(32).toString("hex"),
  DEMO: "false",
  NODE_ENV: "production",
  MALLOC_ARENA_MAX: "2",
};
const server = startNode("server/index.mjs", serverEnv);
/** The same site with its scripts as React Router writes them (started once the first has migrated). */
const notDeferredBase = `http://127.0.0.1:${port + 1}`;
/** @type {import("node:child_process").ChildProcess | null} */
let notDeferred = null;
/**
 * What is measured: JavaScript on and off on this server; or (AB) JavaScript on, scripts deferred
 * or not. `label` names the mode in the output.
 * @type {{ js: boolean, deferred: boolean, label: string }[]}
 */
const MODES = AB
  ? [
      { js: true, deferred: true, label: "deferred" },
      { js: true, deferred: false, label: "not deferred" },
    ]
  : [
      { js: true, deferred: true, label: "JS on" },
      { js: false, deferred: true, label: "JS off" },
    ];

/** A photo-like JPEG (smooth gradient, a little grain) so its WebP widths have photo sizes. @param {number} i */
async function photo(i) {
  const w = 1600,
    h = 1200;
  const grain = await sharp({
    create: {
      width: w,
      height: h,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 30 },
    },
  })
    .blur(1.2)
    .raw()
    .toBuffer();
  const px = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 3;
      const g = grain[o] - 128;
      px[o] = Math.max(0, Math.min(255, ((x * 255) / w + i * 37 + g * 0.3) % 256));
      px[o + 1] = Math.max(0, Math.min(255, (y * 255) / h + g * 0.3));
      px[o + 2] = Math.max(0, Math.min(255, 160 + Math.sin((x + y + i * 50) / 90) * 60 + g * 0.3));
    }
  }
  return sharp(px, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Signs a user up, adds a kid and 20 moments with photos through the JSON API. */
async function seed() {
  const signup = await fetch(`${base}/api/auth/signup`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "slow@example.com", username: "slowlink", password: "secret1" }),
  });
  if (!signup.ok) throw new Error(`sign-up failed: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  /** @param {string} p @param {FormData} form */
  const post = async (p, form) => {
    const res = await fetch(base + p, { method: "POST", headers: { Cookie: cookie }, body: form });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const kidForm = new FormData();
  kidForm.set("name", "Elsa");
  kidForm.set("birth_date", "2020-01-02");
  kidForm.set("relationship", "Mom");
  const kid = await post("/api/kids/new", kidForm);
  for (let i = 0; i < MOMENTS; i++) {
    const form = new FormData();
    form.set("title", `Moment ${i + 1}`);
    form.set("content", `Day ${i + 1}: a walk in the park, a nap, and a new word.`);
    form.set("image", new Blob([new Uint8Array(await photo(i))], { type: "image/jpeg" }), `p${i}.jpg`);
    await post(`/api/kids/${kid.id}/daily_logs/new`, form);
  }
  return { cookie, kidId: kid.id };
}

/**
 * One first visit of `url` on the slow link.
 * @param {import("@playwright/test").Browser} browser @param {string} cookie @param {string} url @param {boolean} js
 */
async function visit(browser, cookie, url, js) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies(
    cookie.split("; ").map((c) => ({
      name: c.slice(0, c.indexOf("=")),
      value: c.slice(c.indexOf("=") + 1),
      domain: "127.0.0.1",
      path: "/",
    })),
  );
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", LINK);
  // JavaScript off through this CDP session (not Playwright's option), so that it can be turned on
  // again below to read the timings
  if (!js) await cdp.send("Emulation.setScriptExecutionDisabled", { value: true });
  /** @type {Map<string, {url: string, type: string, start: number, end?: number, bytes?: number}>} */
  const requests = new Map();
  cdp.on("Network.requestWillBeSent", (e) => {
    if (e.request.url.startsWith("data:")) return; // the inline placeholders: no network
    requests.set(e.requestId, { url: e.request.url, type: e.type ?? "", start: e.timestamp });
  });
  cdp.on("Network.loadingFinished", (e) => {
    const r = requests.get(e.requestId);
    if (r) Object.assign(r, { end: e.timestamp, bytes: e.encodedDataLength });
  });
  cdp.on("Network.loadingFailed", (e) => {
    const r = requests.get(e.requestId);
    if (r) Object.assign(r, { end: e.timestamp, bytes: 0 });
  });
  const t = Date.now();
  await page.goto(url, { waitUntil: "load", timeout: 120_000 });
  if (process.env.BENCH_DEBUG) log(`    loaded in ${Date.now() - t} ms`);
  // JavaScript off: the page ran none of its scripts; turning them back on now lets this script
  // read the browser's buffered Element Timing entries (nothing of the page's runs or loads again)
  if (!js) await cdp.send("Emulation.setScriptExecutionDisabled", { value: false });
  // the first moment's photo and title carry elementtiming="first-moment" (app/routes/kid-moments.tsx)
  const entries = await page.evaluate(
    () =>
      new Promise((resolve) => {
        /** @type {any[]} */
        const seen = [];
        const done = () =>
          resolve(
            seen.map((e) => ({
              id: e.identifier,
              tag: e.element?.tagName ?? "",
              url: String(e.url ?? "").slice(0, 60),
              render: e.renderTime || e.loadTime,
            })),
          );
        // the photo's own paint, not its blurred placeholder (a data: background image)
        const photo = (/** @type {any} */ e) =>
          e.identifier === "first-moment" && e.element?.tagName === "IMG" && e.url && !e.url.startsWith("data:");
        const title = (/** @type {any} */ e) => e.identifier === "first-moment" && e.element?.tagName !== "IMG";
        new PerformanceObserver((list) => {
          seen.push(...list.getEntries());
          if (seen.some(photo) && seen.some(title)) done();
        }).observe({ type: "element", buffered: true });
        setTimeout(done, 30_000);
      }),
  );
  if (process.env.BENCH_DEBUG) log(`    entries ${JSON.stringify(entries)}`);
  // network idle: nothing in flight for 1.5 s
  for (let quiet = 0; quiet < 15; ) {
    await new Promise((r) => setTimeout(r, 100));
    quiet = [...requests.values()].some((r) => r.end === undefined) ? 0 : quiet + 1;
  }
  const first = /** @type {any[]} */ (entries).filter((e) => e.id === "first-moment" && !e.url.startsWith("data:"));
  if (first.length < 2)
    throw new Error(`the first moment's photo and title were not both painted (${JSON.stringify(entries)})`);
  const firstMomentMs = Math.max(...first.map((e) => e.render));
  const all = [...requests.values()];
  const t0 = Math.min(...all.map((r) => r.start));
  const before = all.filter((r) => r.end !== undefined && (r.end - t0) * 1000 <= firstMomentMs);
  const sum = (/** @type {typeof all} */ rs) => rs.reduce((n, r) => n + (r.bytes ?? 0), 0);
  const kinds = (/** @type {typeof all} */ rs) => {
    /** @type {Record<string, number>} */
    const k = {};
    for (const r of rs) k[r.type] = (k[r.type] ?? 0) + 1;
    return k;
  };
  if (process.env.BENCH_DEBUG) {
    for (const r of [...all].sort((a, b) => a.start - b.start)) {
      log(
        `      ${r.type.padEnd(10)} ${String(Math.round((r.start - t0) * 1000)).padStart(5)} → ${r.end === undefined ? "  -  " : String(Math.round((r.end - t0) * 1000)).padStart(5)} ms ${String(r.bytes ?? "").padStart(7)} B ${r.url.replace(base, "").slice(0, 70)}`,
      );
    }
  }
  const row = {
    js,
    firstMomentMs: Math.round(firstMomentMs),
    requestsBefore: before.length,
    bytesBefore: sum(before),
    requestsStartedBefore: all.filter((r) => (r.start - t0) * 1000 <= firstMomentMs).length,
    requestsTotal: all.length,
    bytesTotal: sum(all),
    scripts: all.filter((r) => r.type === "Script").length,
    scriptBytes: sum(all.filter((r) => r.type === "Script")),
    beforeByType: kinds(before),
  };
  await context.close();
  return row;
}

const results = [];
try {
  await waitFor(`${base}/favicon.svg`);
  log("seeding a kid with 20 moments with photos ...");
  const { cookie, kidId } = await seed();
  log("seeded");
  if (AB) {
    notDeferred = startNode("server/index.mjs", { ...serverEnv, PORT: String(port + 1), DEFER_SCRIPTS: "off" });
    await waitFor(`${notDeferredBase}/favicon.svg`);
  }
  const urlOf = (/** @type {{ deferred: boolean }} */ mode) =>
    `${mode.deferred ? base : notDeferredBase}/kids/${kidId}/dailyLogs`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    // one unmeasured visit of each kind warms the server (compressed assets, prepared queries)
    for (const mode of MODES) await visit(browser, cookie, urlOf(mode), mode.js);
    log("warmed up");
    for (let run = 0; run < RUNS; run++) {
      for (const mode of run % 2 ? [...MODES].reverse() : MODES) {
        const row = { run, mode: mode.label, ...(await visit(browser, cookie, urlOf(mode), mode.js)) };
        log(`  run ${run} ${mode.label}: first moment ${row.firstMomentMs} ms`);
        results.push(row);
      }
    }
  } finally {
    await browser.close();
  }
} finally {
  if (notDeferred) await stopServer(notDeferred);
  await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
}

const kb = (/** @type {number} */ b) => (b / 1024).toFixed(1);
log(
  `\nKid page, ${MOMENTS} moments, first visit on 400 kbit/s both ways, 400 ms latency, cache off (${RUNS} runs each)`,
);
log(
  `${"mode".padEnd(12)} ${"run".padStart(3)} ${"first moment".padStart(13)} ${"req before".padStart(10)} ${"KB before".padStart(10)} ${"scripts".padStart(8)} ${"script KB".padStart(10)} ${"requests".padStart(9)} ${"total KB".padStart(9)}`,
);
for (const r of results) {
  log(
    `${r.mode.padEnd(12)} ${String(r.run).padStart(3)} ${`${r.firstMomentMs} ms`.padStart(13)} ${String(r.requestsBefore).padStart(10)} ${kb(r.bytesBefore).padStart(10)} ${String(r.scripts).padStart(8)} ${kb(r.scriptBytes).padStart(10)} ${String(r.requestsTotal).padStart(9)} ${kb(r.bytesTotal).padStart(9)}`,
  );
}
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = MODES.map(({ js, label }) => {
  const rs = results.filter((r) => r.mode === label);
  return {
    mode: label,
    js,
    firstMomentMsMedian: median(rs.map((r) => r.firstMomentMs)),
    firstMomentMsMin: Math.min(...rs.map((r) => r.firstMomentMs)),
    firstMomentMsMax: Math.max(...rs.map((r) => r.firstMomentMs)),
    bytesBeforeMedian: median(rs.map((r) => r.bytesBefore)),
    requestsBeforeMedian: median(rs.map((r) => r.requestsBefore)),
    bytesTotalMedian: median(rs.map((r) => r.bytesTotal)),
    requestsTotalMedian: median(rs.map((r) => r.requestsTotal)),
  };
});
for (const s of summary) {
  log(
    `median ${s.mode}: first moment ${s.firstMomentMsMedian} ms (${s.firstMomentMsMin}–${s.firstMomentMsMax}), ${s.requestsBeforeMedian} requests / ${kb(s.bytesBeforeMedian)} KB before it, ${s.requestsTotalMedian} requests / ${kb(s.bytesTotalMedian)} KB in all`,
  );
}
const out =
  process.env.BENCH_NETWORK_RESULTS ??
  path.join(root, "bench", AB ? "results-network-defer-ab.json" : "results-network.json");
fs.writeFileSync(
  out,
  JSON.stringify(
    { date: new Date().toISOString(), link: LINK, moments: MOMENTS, runs: RUNS, summary, results },
    null,
    2,
  ) + "\n",
);
log(`written: ${out}`);
