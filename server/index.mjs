// @ts-check
// The production server: one node:http process that serves the React Router build.
// Why our own instead of react-router-serve: no per-request logging by default, brotli/gzip with
// settings we choose, a client address for rate limiting, and a clean shutdown on the first SIGTERM
// (docs/decisions/0002-own-production-server.md). Static files: sirv (server/static-files.mjs).
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { env, noteListeningPort, siteHostNames, siteOrigin } from "./env.mjs";
import { migrate } from "./migrate.mjs";
import { createApiFastPath } from "./api-fast-path.mjs";
import { clientAddress, forwardedHttps } from "./client-address.mjs";
import { BASE_SECURITY_HEADERS, createRejectionLog, inspectRequest, refuseUnparsable } from "./incoming.mjs";
import { limitedBody } from "./request-body.mjs";
import { sendResponse } from "./compress.mjs";
import { staticFiles } from "./static-files.mjs";
import { appVersion } from "./version.mjs";
import { installLog, log } from "./log.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildDir = path.resolve(root, process.env.BUILD_DIR || "build");
const clientDir = path.join(buildDir, "client");

/** The server build (its entry module carries what this file needs of the app). */
export async function loadBuild() {
  // React and React Router pick their production builds from NODE_ENV when first imported
  process.env.NODE_ENV ??= "production";
  return import(pathToFileURL(path.join(buildDir, "server", "index.js")).href);
}

/**
 * How often this machine asks whether a periodic job is due. Each job runs once per its period
 * (an hour) across every process and machine, whoever asks first (a lease in the database:
 * app/jobs/maintenance.server.ts, docs/decisions/0018-shared-limits-and-job-leases.md).
 */
const JOBS_TICK_MS = 60 * 1000;

/**
 * What runs once per machine before any process serves (docs/decisions/0017-processes-and-write-
 * transactions.md): the migrations and the demo seed. npm start runs it in a short-lived child
 * (server/prepare.mjs) before its workers start; a single process calls it itself.
 * @param {any} entry the build's entry module
 */
export async function prepareDatabase(entry) {
  const { knex } = await migrate();
  await knex.destroy();
  if (env().demo) await entry.seedIfEmpty();
}

/**
 * The timer of the periodic jobs (expired sessions, ended limit windows, leftovers of interrupted
 * uploads), in every serving process: each job runs once per period across all of them, whoever
 * asks first takes its lease (app/jobs/maintenance.server.ts).
 * @param {any} entry the build's entry module
 */
function startJobTimer(entry) {
  // in the background: the jobs must not delay the start; runScheduledJobs never throws
  /** @type {Promise<unknown>} */
  let running = entry.runScheduledJobs();
  const timer = setInterval(() => {
    running = entry.runScheduledJobs();
  }, JOBS_TICK_MS);
  timer.unref();
  return {
    /** No more runs; resolves when the one under way (if any) has finished, before the database closes. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * @param {{ port?: number, host?: string, quiet?: boolean, worker?: boolean, reusePort?: boolean }} [options]
 * `worker`: one of several server processes, which leaves prepareDatabase to server/prepare.mjs;
 * `reusePort`: listens with SO_REUSEPORT, beside the other workers on the same port (server/supervise.sh).
 */
export async function startServer({
  port = env().port,
  host = env().host,
  quiet = false,
  worker = false,
  reusePort = false,
} = {}) {
  const config = env();
  installLog(config.logFormat);
  // The signals are ours from the first moment: a SIGTERM while the server starts (a supervisor, a
  // test that saw the "running" line) is the clean shutdown once it has started, never Node's
  // default of dying on the spot with a request half answered.
  /** @type {(() => Promise<void>) | null} */
  let stop = null;
  let stopAsked = false;
  const onSignal = () => {
    if (stop) void stop();
    else stopAsked = true;
  };
  // on, not once: a service manager's stop signals the whole process group and the supervisor
  // passes it on too, and a second SIGTERM must not be Node's default death mid-shutdown
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const build = await loadBuild();
  const entry = build.entry.module;
  if (!worker) await prepareDatabase(entry);
  const jobs = startJobTimer(entry);
  // The mail sender (docs/decisions/0025-mail-queue.md): every process runs it, each worker of npm
  // start included; its claims in the database are atomic. The digest scheduler starts once the port is
  // known (its links are on the site's address).
  const mailSender = entry.startMailSender();
  // Clips are prepared in the background by whichever process holds its machine's lease, one at a
  // time per machine (docs/decisions/0064-video-clips.md); without ffmpeg it does nothing.
  const clipPreparer = entry.startClipPreparer();

  // The names requests may be addressed to and the site's origin (docs/decisions/0038-the-site-
  // address.md); without ORIGIN the origin has the port, known once listening (below).
  /** @type {import("./incoming.mjs").Site} */
  let site = { hostNames: siteHostNames(config), configuredOrigin: config.origin, siteOrigin: siteOrigin(config) };
  const logRejection = createRejectionLog();
  const answer = await createAnswer(build, config, logRejection, () => site);
  // connectionsCheckingInterval: how often Node looks for requests past their header or request
  // timeout (by default every 30 s, so a slow client held on up to 30 s longer)
  const server = http.createServer({ requireHostHeader: false, connectionsCheckingInterval: 1000 }, answer);
  refuseUnparsable(server, entry.pathKind, logRejection);
  server.keepAliveTimeout = 65_000;
  // Slow clients (docs/decisions/0038-the-site-address.md): the request line and headers within
  // HEADERS_TIMEOUT_SECONDS of the request's first byte, the whole request (an upload's body)
  // within REQUEST_TIMEOUT_SECONDS; then 408 and the connection is closed.
  server.requestTimeout = config.requestTimeoutSeconds * 1000;
  server.headersTimeout = Math.min(config.headersTimeoutSeconds, config.requestTimeoutSeconds) * 1000;

  // a port taken between the start's check (server/preflight.mjs) and here fails the start with
  // one line (startFailure), not an unhandled 'error' event
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, reusePort }, () => {
      server.off("error", reject);
      resolve(undefined);
    });
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  noteListeningPort(actualPort);
  entry.noteListeningPort(actualPort); // the app's own copy of server/env.mjs, bundled in the build
  site = { ...site, hostNames: siteHostNames(config), siteOrigin: siteOrigin(config) };
  const digests = entry.startDigestScheduler();
  if (!quiet) {
    // this process's own port first (several servers behind one ORIGIN each say where they listen)
    const publicUrl = config.origin ? ` (public URL ${config.origin})` : "";
    console.log(`Sweet Moments ${appVersion()} is running at http://localhost:${actualPort}${publicUrl}`);
    if (config.demo) console.log("Demo log-in: demo@aa.io / password (or the Demo User button)");
  }

  const stopping = stopOnce(server, [jobs, digests, mailSender, clipPreparer], config.shutdownGraceSeconds * 1000);
  stop = stopping;
  if (stopAsked) void stopping();
  return { server, port: actualPort, stop: stopping };
}

/**
 * The request listener: the checks before the app (docs/decisions/0019-request-hardening.md), the
 * health endpoints, the static files, then the app through React Router.
 * @param {any} build the server build
 * @param {ReturnType<typeof env>} config
 * @param {ReturnType<typeof createRejectionLog>} logRejection
 * @param {() => import("./incoming.mjs").Site} currentSite
 * @returns {Promise<(req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>>}
 */
async function createAnswer(build, config, logRejection, currentSite) {
  const { createRequestHandler, RouterContextProvider } = await import("react-router");
  const entry = build.entry.module;
  const handle = createRequestHandler(build, "production");
  const apiFastPath = config.apiFastPath ? createApiFastPath(build) : null;
  const serveStatic = staticFiles(clientDir);

  return async (req, res) => {
    // every answer's line once it is over, streamed ones (a photo, an export) included
    if (config.logRequests) logRequest(req, res);
    const state = entry.newRequestState();
    /** @type {import("./request-body.mjs").LimitedBody | null} */
    let body = null;
    try {
      // Before the app: the request line, Host, method and announced body size are checked here
      // (with the app's cross-site rule for form posts, which React Router would otherwise answer
      // 400 before any middleware); a request refused here reaches the app as a bodiless GET of the
      // same path carrying the rejection, and the root middleware answers it in the route's
      // envelope with the security headers.
      const https = forwardedHttps(req.socket.remoteAddress, req.headers["x-forwarded-proto"], config.trustProxy);
      const { url, rejection } = inspectRequest(req, currentSite(), https);
      state.rejection = rejection;
      if (!rejection && (await answerHealth(req, res, url.pathname, entry))) return;
      if (!rejection && serveStatic(req, res, url.pathname)) return;

      body = openBody(req, res, url, entry, state);
      const controller = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) controller.abort();
        body?.discard();
      });
      const request = appRequest(req, url, entry, state, body, controller.signal);
      const context = new RouterContextProvider();
      context.set(
        entry.clientAddressContext,
        clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], config.trustProxy),
      );
      context.set(entry.requestStateContext, state);
      const response = (apiFastPath && (await apiFastPath(request, context))) ?? (await handle(request, context));
      await sendResponse(req, res, response);
    } catch (error) {
      answerFailure(req, res, error);
    } finally {
      logRejected(res, state.rejection, logRejection, req);
    }
  };
}

/**
 * The body as the app may read it, or null when there is none to read. A photo form's multipart
 * body may be up to limits.multipart; any other body (a log-in form's multipart included) up to
 * limits.text. A photo form's body over its limit is still read up to the drain limit, so the form
 * can name the photo that is too big; other bodies over their limit are refused unread.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {URL} url @param {any} entry @param {any} state
 * @returns {import("./request-body.mjs").LimitedBody | null}
 */
function openBody(req, res, url, entry, state) {
  /** @type {{ text: number, multipart: number, drain: number }} */
  const limits = entry.BODY_LIMITS;
  const limit = entry.bodyLimit(url.pathname, req.headers["content-type"]);
  const photoBody = limit > limits.text;
  // a moment's form may carry a clip larger than the photos' drain limit
  const drain = Math.max(limits.drain, limit);
  const announced = Number(req.headers["content-length"] ?? 0);
  if (!state.rejection && announced > (photoBody ? drain : limit)) {
    state.rejection = { status: 413, reason: `body of ${announced} bytes announced` };
  }
  if (announced > drain) {
    res.shouldKeepAlive = false; // never read that much
    return null;
  }
  if (announced === 0 && req.headers["transfer-encoding"] === undefined) return null;
  return limitedBody(req, {
    limit,
    drainLimit: drain,
    tooLarge: () => new entry.BodyTooLargeError(limit),
    onTooLarge: () => (state.bodyTooLarge = true),
  });
}

/**
 * The fetch Request the app sees. A cross-site form post to a page is refused here; a refused
 * request becomes a bodiless GET (or HEAD) of the path, without the headers that describe a body.
 * @param {http.IncomingMessage} req @param {URL} url @param {any} entry @param {any} state
 * @param {import("./request-body.mjs").LimitedBody | null} body @param {AbortSignal} signal
 */
function appRequest(req, url, entry, state, body, signal) {
  /** @type {[string, string][]} */
  const headers = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.push([req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? ""]);
  /** @param {string} method @param {ReadableStream<Uint8Array> | undefined} stream */
  const makeRequest = (method, stream) =>
    new Request(url.href, {
      method,
      headers,
      body: stream,
      signal,
      // @ts-expect-error Node's fetch needs this for streamed bodies
      duplex: stream ? "half" : undefined,
    });
  const method = req.method ?? "GET";
  if (!state.rejection && STATE_CHANGING.has(method) && entry.pathKind(url.pathname) === "page") {
    if (entry.isCrossSiteRequest(makeRequest(method, undefined)))
      state.rejection = { status: 403, reason: "cross-site form post" };
  }
  if (!state.rejection) return makeRequest(method, method !== "GET" && method !== "HEAD" ? body?.stream : undefined);
  for (let i = headers.length - 1; i >= 0; i--)
    if (BODY_HEADERS.has(headers[i]?.[0].toLowerCase() ?? "")) headers.splice(i, 1);
  return makeRequest(method === "HEAD" ? "HEAD" : "GET", undefined);
}

/** A request that failed past the app's own error handling. @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {unknown} error */
function answerFailure(req, res, error) {
  // the browser went away mid-response (a cancelled navigation): nothing to report
  if (/** @type {any} */ (error)?.code === "ERR_STREAM_PREMATURE_CLOSE" || res.destroyed) return;
  console.error("[server]", req.method, req.url, error);
  if (!res.headersSent) {
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", ...BASE_SECURITY_HEADERS });
    res.end("Something went wrong. Please try again.");
  } else {
    res.destroy();
  }
}

/**
 * Once the answer is out, one line for a refused request (rate-limited by the rejection log).
 * @param {http.ServerResponse} res @param {{ reason: string } | null} rejection
 * @param {ReturnType<typeof createRejectionLog>} logRejection @param {http.IncomingMessage} req
 */
function logRejected(res, rejection, logRejection, req) {
  if (!rejection) return;
  const { reason } = rejection;
  const line = () =>
    logRejection({
      status: res.statusCode,
      method: req.method,
      target: req.url,
      reason,
      address: req.socket.remoteAddress,
    });
  if (res.writableFinished) line();
  else res.once("finish", line);
}

/**
 * LOG_REQUESTS: one line per request when its answer is over (sent whole, or cut off), with its
 * status and time; listened for from the start, so a streamed answer is counted when it ends.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res
 */
function logRequest(req, res) {
  const started = process.hrtime.bigint();
  res.once("close", () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const cut = res.writableFinished ? "" : " (cut off)";
    log().info(
      { method: req.method, url: req.url, status: res.statusCode, ms: +ms.toFixed(1), complete: !cut },
      `${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms${cut}`,
    );
  });
}

/**
 * The shutdown, run once whoever asks (SIGTERM, SIGINT, a test): requests in flight (an upload)
 * have `graceMs` (SHUTDOWN_GRACE_SECONDS) to finish before the database closes; the process exits
 * a second after that whatever.
 * @param {http.Server} server @param {{ stop(): Promise<unknown> }[]} background the job timer, the digest scheduler, the mail sender
 * @param {number} graceMs
 */
function stopOnce(server, background, graceMs) {
  let stopping = false;
  return async () => {
    if (stopping) return;
    stopping = true;
    console.log(`Sweet Moments is stopping: requests in flight have up to ${graceMs / 1000} s to finish`);
    const drained = new Promise((resolve) => server.close(() => resolve(undefined)));
    // a kept-alive connection whose answer was still going out when the signal came turns idle
    // later: closed then, not at the end of the grace period
    server.closeIdleConnections?.();
    const idleCloser = setInterval(() => server.closeIdleConnections?.(), 100);
    idleCloser.unref();
    void drained.then(() => clearInterval(idleCloser));
    setTimeout(() => process.exit(0), graceMs + 1000).unref();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    server.closeAllConnections?.();
    try {
      // a periodic job under way finishes first (a job cut off by the closing pool would log a
      // failure); the exit a second after the grace period still stands
      for (const part of background) await part.stop();
      // the read connection (app/lib/db-read.server.ts), then the knex pool
      const reader = /** @type {any} */ (globalThis).__sweetReadDb;
      if (reader) await reader.close().catch(() => {});
      const holder = /** @type {any} */ (globalThis).__sweetDb;
      if (holder) await holder.knex.destroy();
    } finally {
      console.log("Sweet Moments stopped");
      process.exit(0);
    }
  };
}

/**
 * Health endpoints for a load balancer, before React Router: GET/HEAD /healthz (the process
 * answers: 200, with the version running) and /readyz (the database answers too: 200, else 503).
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} pathname @param {any} entry
 */
async function answerHealth(req, res, pathname, entry) {
  if (pathname !== "/healthz" && pathname !== "/readyz") return false;
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const ok = pathname === "/healthz" || (await entry.databaseReady());
  // /healthz names the version running, so an operator sees what an upgrade put in place
  const text = !ok ? "database unavailable\n" : pathname === "/healthz" ? `ok ${appVersion()}\n` : "ok\n";
  res.writeHead(ok ? 200 : 503, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(text),
    ...BASE_SECURITY_HEADERS,
  });
  res.end(req.method === "HEAD" ? undefined : text);
  return true;
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Headers that describe a body: dropped when a refused request reaches the app as a bodiless GET. */
const BODY_HEADERS = new Set(["content-length", "transfer-encoding", "content-type", "content-encoding"]);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await startServer();
}
