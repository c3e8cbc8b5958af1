// @ts-check
// The production server: one node:http process that serves the React Router build.
// Why our own instead of react-router-serve: no per-request logging by default, brotli/gzip with
// settings we choose, static assets compressed once and cached in memory, a client address for
// rate limiting, and a clean shutdown on the first SIGTERM.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import crypto from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { env, noteListeningPort, siteHostNames, siteOrigin } from "./env.mjs";
import { migrate } from "./migrate.mjs";
import { createApiFastPath } from "./api-fast-path.mjs";
import { clientAddress, forwardedHttps } from "./client-address.mjs";
import {
  BASE_SECURITY_HEADERS,
  createRejectionLog,
  decodeOrNull,
  inspectRequest,
  pathOfRawRequest,
  rawRefusal,
} from "./incoming.mjs";
import { limitedBody } from "./request-body.mjs";
import { MIN_COMPRESS, compress, pickEncoding } from "./compress.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildDir = path.resolve(root, process.env.BUILD_DIR || "build");
const clientDir = path.join(buildDir, "client");

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json)|image\/svg\+xml)/;
const MIME = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

// ---- static files: read, compressed and hashed once -------------------------------------
/** @type {Map<string, {type: string, raw: Buffer, br?: Buffer, gzip?: Buffer, etag: string, immutable: boolean} | null>} */
const staticCache = new Map();

/** @param {string} pathname */
function loadStatic(pathname) {
  if (staticCache.has(pathname)) return staticCache.get(pathname) ?? null;
  let entry = null;
  const file = path.join(clientDir, pathname);
  if (file.startsWith(clientDir + path.sep) && !pathname.includes("\0")) {
    try {
      const stat = fs.statSync(file);
      if (stat.isFile()) {
        const raw = fs.readFileSync(file);
        const type = MIME[/** @type {keyof typeof MIME} */ (path.extname(file))] ?? "application/octet-stream";
        entry = {
          type,
          raw,
          etag: `"${crypto.createHash("sha1").update(raw).digest("base64url")}"`,
          immutable: pathname.startsWith("/assets/"),
          ...(COMPRESSIBLE.test(type) && raw.length > 512
            ? {
                br: zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
                gzip: zlib.gzipSync(raw, { level: 9 }),
              }
            : {}),
        };
      }
    } catch {
      entry = null;
    }
  }
  if (staticCache.size < 2000) staticCache.set(pathname, entry);
  return entry;
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} pathname */
function serveStatic(req, res, pathname) {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (pathname === "/" || pathname.endsWith("/")) return false;
  const entry = loadStatic(pathname);
  if (!entry) return false;
  const encoding = pickEncoding(req.headers["accept-encoding"]);
  const body = (encoding === "br" && entry.br) || (encoding === "gzip" && entry.gzip) || entry.raw;
  /** @type {Record<string, string | number>} */
  const headers = {
    "Content-Type": entry.type,
    "Cache-Control": entry.immutable ? "public, max-age=31536000, immutable" : "public, max-age=3600",
    ETag: entry.etag,
    "X-Content-Type-Options": "nosniff",
    Vary: "Accept-Encoding",
  };
  if (body !== entry.raw) headers["Content-Encoding"] = /** @type {string} */ (encoding);
  if (req.headers["if-none-match"] === entry.etag) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  headers["Content-Length"] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}

// ---- the app ----------------------------------------------------------------------------

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
 * transactions.md): the migrations and the demo seed. The cluster's primary runs it in a
 * short-lived child (server/prepare.mjs), so the primary itself never loads the app; a single
 * process calls it itself.
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
 * @param {{ port?: number, host?: string, quiet?: boolean, worker?: boolean }} [options]
 * `worker`: a cluster worker, which leaves prepareDatabase to the primary (server/prepare.mjs).
 */
export async function startServer({ port = env().port, host = env().host, quiet = false, worker = false } = {}) {
  const build = await loadBuild();
  const { createRequestHandler, RouterContextProvider } = await import("react-router");
  const config = env();
  const entry = build.entry.module;
  if (!worker) await prepareDatabase(entry);
  const jobs = startJobTimer(entry);
  // The mail sender (docs/decisions/0025-mail-queue.md): every process runs it, cluster workers
  // included; its claims in the database are atomic. The digest scheduler starts once the port is
  // known (its links are on the site's address).
  const mailSender = entry.startMailSender();

  const handle = createRequestHandler(build, "production");
  const apiFastPath = config.apiFastPath ? createApiFastPath(build) : null;
  const logRejection = createRejectionLog();
  /** @type {{ text: number, multipart: number, drain: number }} */
  const limits = entry.BODY_LIMITS;

  // Before the app: the request line, Host, method and announced body size are checked here (with
  // the app's cross-site rule for form posts, which React Router would otherwise answer 400 before
  // any middleware); a request refused here reaches the app as a bodiless GET of the same path
  // carrying the rejection, and the root middleware answers it in the route's envelope with the
  // security headers. docs/decisions/0019-request-hardening.md.
  // The names requests may be addressed to and the site's origin (docs/decisions/0038-the-site-
  // address.md); without ORIGIN the origin has the port, known once listening (below).
  /** @type {import("./incoming.mjs").Site} */
  let site = { hostNames: siteHostNames(config), configuredOrigin: config.origin, siteOrigin: siteOrigin(config) };
  // connectionsCheckingInterval: how often Node looks for requests past their header or request
  // timeout (by default every 30 s, so a slow client held on up to 30 s longer)
  const server = http.createServer(
    { requireHostHeader: false, connectionsCheckingInterval: 1000 },
    async (req, res) => {
      const started = config.logRequests ? process.hrtime.bigint() : 0n;
      const state = entry.newRequestState();
      /** @type {import("./request-body.mjs").LimitedBody | null} */
      let body = null;
      try {
        const https = forwardedHttps(req.socket.remoteAddress, req.headers["x-forwarded-proto"], config.trustProxy);
        const { url, rejection } = inspectRequest(req, site, https);
        state.rejection = rejection;
        if (!rejection && (await answerHealth(req, res, url.pathname, entry))) return;
        const staticPath = rejection ? null : decodeOrNull(url.pathname);
        if (staticPath !== null && serveStatic(req, res, staticPath)) return;

        // a photo form's multipart body may be up to limits.multipart; any other body (a log-in
        // form's multipart included) up to limits.text
        const limit = entry.bodyLimit(url.pathname, req.headers["content-type"]);
        const photoBody = limit > limits.text;
        const announced = Number(req.headers["content-length"] ?? 0);
        // a photo form's body over its limit is still read up to the drain limit, so the form can
        // name the photo that is too big; other bodies over their limit are refused unread
        if (!state.rejection && announced > (photoBody ? limits.drain : limit)) {
          state.rejection = { status: 413, reason: `body of ${announced} bytes announced` };
        }
        if (announced > limits.drain)
          res.shouldKeepAlive = false; // never read that much
        else if (announced > 0 || req.headers["transfer-encoding"] !== undefined) {
          body = limitedBody(req, {
            limit,
            drainLimit: limits.drain,
            tooLarge: () => new entry.BodyTooLargeError(limit),
            onTooLarge: () => (state.bodyTooLarge = true),
          });
        }

        const controller = new AbortController();
        res.on("close", () => {
          if (!res.writableFinished) controller.abort();
          body?.discard();
        });
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
            signal: controller.signal,
            // @ts-expect-error Node's fetch needs this for streamed bodies
            duplex: stream ? "half" : undefined,
          });
        const method = req.method ?? "GET";
        if (!state.rejection && STATE_CHANGING.has(method) && entry.pathKind(url.pathname) === "page") {
          if (entry.isCrossSiteRequest(makeRequest(method, undefined)))
            state.rejection = { status: 403, reason: "cross-site form post" };
        }
        if (state.rejection) {
          // the app sees a bodiless GET (or HEAD) of the path, and answers with the rejection
          for (let i = headers.length - 1; i >= 0; i--)
            if (BODY_HEADERS.has(headers[i]?.[0].toLowerCase() ?? "")) headers.splice(i, 1);
        }
        const request = state.rejection
          ? makeRequest(method === "HEAD" ? "HEAD" : "GET", undefined)
          : makeRequest(method, method !== "GET" && method !== "HEAD" ? body?.stream : undefined);
        const context = new RouterContextProvider();
        context.set(
          entry.clientAddressContext,
          clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], config.trustProxy),
        );
        context.set(entry.requestStateContext, state);
        const response = (apiFastPath && (await apiFastPath(request, context))) ?? (await handle(request, context));
        await sendResponse(req, res, response);
      } catch (error) {
        // the browser went away mid-response (a cancelled navigation): nothing to report
        if (/** @type {any} */ (error)?.code === "ERR_STREAM_PREMATURE_CLOSE" || res.destroyed) return;
        console.error("[server]", req.method, req.url, error);
        if (!res.headersSent) {
          res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", ...BASE_SECURITY_HEADERS });
          res.end("Something went wrong. Please try again.");
        } else {
          res.destroy();
        }
      } finally {
        if (state.rejection) {
          const { reason } = state.rejection;
          res.once("finish", () =>
            logRejection({
              status: res.statusCode,
              method: req.method,
              target: req.url,
              reason,
              address: req.socket.remoteAddress,
            }),
          );
        }
        if (config.logRequests) {
          res.once("finish", () => {
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            console.log(`${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms`);
          });
        }
      }
    },
  );

  // Requests Node's parser refuses (an unknown method, a malformed header) and requests past their
  // header or request timeout: one answer, one line, and the connection closed. Closed, not only
  // ended: a client that keeps sending (a header line every few seconds) would otherwise hold the
  // half-closed connection for as long as it likes.
  server.on("clientError", (error, socket) => {
    const code = /** @type {any} */ (error).code;
    // a response already under way (a body past its time while the app answered): nothing more fits on this connection
    const answering = /** @type {any} */ (socket)._httpMessage?.headersSent;
    if (code === "ECONNRESET" || code === "EPIPE" || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const status = code === "HPE_HEADER_OVERFLOW" ? 431 : code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const path = pathOfRawRequest(/** @type {any} */ (error).rawPacket);
    if (status !== 408) {
      logRejection({
        status,
        method: undefined,
        target: path,
        reason: `unparsable request (${code})`,
        address: socket.remoteAddress,
      });
    }
    closeWith(socket, rawRefusal(status, entry.pathKind(path ?? "/")));
  });
  // CONNECT (a proxy's method) is never ours.
  server.on("connect", (req, socket) => {
    logRejection({
      status: 405,
      method: req.method,
      target: req.url,
      reason: "method CONNECT",
      address: socket.remoteAddress,
    });
    closeWith(socket, rawRefusal(405, entry.pathKind(req.url ?? "/")));
  });
  server.keepAliveTimeout = 65_000;
  // Slow clients (docs/decisions/0038-the-site-address.md): the request line and headers within
  // HEADERS_TIMEOUT_SECONDS of the request's first byte, the whole request (an upload's body)
  // within REQUEST_TIMEOUT_SECONDS; then 408 and the connection is closed.
  server.requestTimeout = config.requestTimeoutSeconds * 1000;
  server.headersTimeout = Math.min(config.headersTimeoutSeconds, config.requestTimeoutSeconds) * 1000;

  await new Promise((resolve) => server.listen(port, host, () => resolve(undefined)));
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  noteListeningPort(actualPort);
  entry.noteListeningPort(actualPort); // the app's own copy of server/env.mjs, bundled in the build
  site = { ...site, hostNames: siteHostNames(config), siteOrigin: siteOrigin(config) };
  const digests = entry.startDigestScheduler();
  if (!quiet) {
    // this process's own port first (several servers behind one ORIGIN each say where they listen)
    const publicUrl = config.origin ? ` (public URL ${config.origin})` : "";
    console.log(`Sweet Moments is running at http://localhost:${actualPort}${publicUrl}`);
    if (config.demo) console.log("Demo log-in: demo@aa.io / password (or the Demo User button)");
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // requests in flight finish before the database closes (at most 2 s; exit at 3 s whatever)
    const drained = new Promise((resolve) => server.close(() => resolve(undefined)));
    server.closeIdleConnections?.();
    setTimeout(() => process.exit(0), 3000).unref();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    server.closeAllConnections?.();
    try {
      // a periodic job under way finishes first (a job cut off by the closing pool would log a
      // failure); the exit at 3 s still stands
      await jobs.stop();
      await digests.stop();
      await mailSender.stop();
      // the read connection (app/lib/db-read.server.ts), then the knex pool
      const reader = /** @type {any} */ (globalThis).__sweetReadDb;
      if (reader) await reader.close().catch(() => {});
      const holder = /** @type {any} */ (globalThis).__sweetDb;
      if (holder) await holder.knex.destroy();
    } finally {
      process.exit(0);
    }
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return { server, port: actualPort, stop };
}

/**
 * Health endpoints for a load balancer, before React Router: GET/HEAD /healthz (the process
 * answers: 200) and /readyz (the database answers too: 200, else 503).
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} pathname @param {any} entry
 */
async function answerHealth(req, res, pathname, entry) {
  if (pathname !== "/healthz" && pathname !== "/readyz") return false;
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const ok = pathname === "/healthz" || (await entry.databaseReady());
  const text = ok ? "ok\n" : "database unavailable\n";
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

/**
 * Writes a last answer and closes the connection once it is out (a half-close would leave the
 * client free to go on sending).
 * @param {import("node:stream").Duplex} socket @param {string} answer
 */
function closeWith(socket, answer) {
  socket.end(answer, () => socket.destroy());
  // a client that reads nothing never lets the answer out: the connection goes anyway
  setTimeout(() => socket.destroy(), 5000).unref();
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {Response} response */
async function sendResponse(req, res, response) {
  /** @type {Record<string, string | string[] | number>} */
  const headers = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  // the few answers React Router gives before any middleware runs (its route manifest) get the
  // security headers too
  // (not a 304: its headers would replace the kept page's policy, docs/decisions/0034-conditional-pages.md)
  if (!response.headers.has("content-security-policy") && response.status !== 304) {
    for (const [key, value] of Object.entries(BASE_SECURITY_HEADERS))
      if (!response.headers.has(key)) headers[key.toLowerCase()] = value;
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;

  const type = response.headers.get("content-type") ?? "";
  const compressible =
    response.body && req.method !== "HEAD" && !response.headers.has("content-encoding") && COMPRESSIBLE.test(type);
  if (!compressible) {
    // photos (already compressed, streamed from disk), empty bodies, HEAD
    res.writeHead(response.status, response.statusText || undefined, headers);
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    await pipeline(Readable.fromWeb(/** @type {any} */ (response.body)), res);
    return;
  }
  // Pages and JSON are complete before their first byte is sent (entry.server renders with
  // onAllReady), so they are compressed in one call instead of through a stream per response;
  // larger bodies on libuv's thread pool, so the main thread goes on serving other requests.
  const raw = Buffer.from(await response.arrayBuffer());
  const encoding = raw.length >= MIN_COMPRESS ? pickEncoding(req.headers["accept-encoding"]) : null;
  const body = encoding ? await compress(raw, encoding) : raw;
  if (encoding) headers["content-encoding"] = encoding;
  headers["content-length"] = body.length;
  headers["vary"] = headers["vary"] ? `${headers["vary"]}, Accept-Encoding` : "Accept-Encoding";
  if (res.destroyed) return;
  res.writeHead(response.status, response.statusText || undefined, headers);
  res.end(body);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await startServer();
}
