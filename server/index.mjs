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
import { promisify } from "node:util";
import { env } from "./env.mjs";
import { migrate } from "./migrate.mjs";
import { createApiFastPath } from "./api-fast-path.mjs";

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

/** @param {string | undefined} accept */
function pickEncoding(accept) {
  if (!accept) return null;
  if (/\bbr\b/.test(accept)) return "br";
  if (/\bgzip\b/.test(accept)) return "gzip";
  return null;
}

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

export async function startServer({ port = env().port, host = env().host, quiet = false } = {}) {
  // React and React Router pick their production builds from NODE_ENV when first imported
  process.env.NODE_ENV ??= "production";
  const { createReadableStreamFromReadable } = await import("@react-router/node");
  const { createRequestHandler, RouterContextProvider } = await import("react-router");
  const config = env();
  const { knex } = await migrate();
  await knex.destroy();

  const build = await import(pathToFileURL(path.join(buildDir, "server", "index.js")).href);
  const entry = build.entry.module;
  if (config.demo) await entry.seedIfEmpty();
  // Leftovers of uploads interrupted by a crash or restart (temp files, unreferenced photo folders
  // older than an hour). In the background: it never throws and must not delay the start.
  void entry.sweepUploads?.();

  const handle = createRequestHandler(build, "production");
  const apiFastPath = config.apiFastPath ? createApiFastPath(build) : null;

  const server = http.createServer(async (req, res) => {
    const started = config.logRequests ? process.hrtime.bigint() : 0n;
    try {
      const base = config.origin ?? `http://${req.headers.host ?? "localhost"}`;
      const url = new URL(req.url ?? "/", base);
      if (serveStatic(req, res, decodeURIComponent(url.pathname))) return;

      const controller = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) controller.abort();
      });
      /** @type {[string, string][]} */
      const headers = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? ""]);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(url.href, {
        method: req.method,
        headers,
        body: hasBody ? createReadableStreamFromReadable(req) : undefined,
        signal: controller.signal,
        // @ts-expect-error Node's fetch needs this for streamed bodies
        duplex: hasBody ? "half" : undefined,
      });
      const context = new RouterContextProvider();
      context.set(entry.clientAddressContext, req.socket.remoteAddress ?? "unknown");
      const response = (apiFastPath && (await apiFastPath(request, context))) ?? (await handle(request, context));
      await sendResponse(req, res, response);
    } catch (error) {
      // the browser went away mid-response (a cancelled navigation): nothing to report
      if (/** @type {any} */ (error)?.code === "ERR_STREAM_PREMATURE_CLOSE" || res.destroyed) return;
      console.error("[server]", req.method, req.url, error);
      if (!res.headersSent) {
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("Something went wrong. Please try again.");
      } else {
        res.destroy();
      }
    } finally {
      if (config.logRequests) {
        res.once("finish", () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          console.log(`${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms`);
        });
      }
    }
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;

  await new Promise((resolve) => server.listen(port, host, () => resolve(undefined)));
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  if (!quiet) {
    const shown = config.origin ?? `http://localhost:${actualPort}`;
    console.log(`Sweet Moments is running at ${shown}`);
    if (config.demo) console.log("Demo log-in: demo@aa.io / password (or the Demo User button)");
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeIdleConnections?.();
    setTimeout(() => process.exit(0), 3000).unref();
    try {
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

const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);
/** Below this, compression saves less than it costs (headers alone are a few hundred bytes). */
const MIN_COMPRESS = 1024;
/** Up to this, one synchronous call costs less than handing the work to the thread pool. */
const MAX_SYNC_COMPRESS = 16 * 1024;

/**
 * Brotli at quality 3 with a window no larger than the body: about half the time of quality 4 for
 * 1–8 % more bytes (measured on a 117 KB page and a 7 KB JSON answer), and little memory per call.
 * @param {Buffer} raw @param {"br" | "gzip"} encoding @returns {Promise<Buffer> | Buffer}
 */
function compress(raw, encoding) {
  const windowBits = Math.max(10, Math.min(18, Math.ceil(Math.log2(raw.length))));
  const sync = raw.length <= MAX_SYNC_COMPRESS;
  if (encoding === "gzip") {
    const options = { level: 6, windowBits: Math.max(9, Math.min(15, windowBits)) };
    return sync ? zlib.gzipSync(raw, options) : gzipAsync(raw, options);
  }
  const options = {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 3,
      [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  };
  return sync ? zlib.brotliCompressSync(raw, options) : brotliAsync(raw, options);
}

/** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {Response} response */
async function sendResponse(req, res, response) {
  /** @type {Record<string, string | string[] | number>} */
  const headers = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
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
