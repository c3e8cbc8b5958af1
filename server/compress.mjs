// @ts-check
// How the server writes the app's answers and compresses pages and JSON (server/index.mjs), in a
// module of its own so the benchmark's node:http floor (bench/floor.mjs) compresses its answers
// exactly the same way.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { promisify } from "node:util";
import { BASE_SECURITY_HEADERS } from "./incoming.mjs";

/** @param {string | undefined} accept */
export function pickEncoding(accept) {
  if (!accept) return null;
  if (/\bbr\b/.test(accept)) return "br";
  if (/\bgzip\b/.test(accept)) return "gzip";
  return null;
}

const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);
/** Below this, compression saves less than it costs (headers alone are a few hundred bytes). */
export const MIN_COMPRESS = 1024;
/** Up to this, one synchronous call costs less than handing the work to the thread pool. */
const MAX_SYNC_COMPRESS = 16 * 1024;

/**
 * Brotli at quality 3 with a window no larger than the body: about half the time of quality 4 for
 * 1–8 % more bytes (measured on a 117 KB page and a 7 KB JSON answer), and little memory per call.
 * @param {Buffer} raw @param {"br" | "gzip"} encoding @returns {Promise<Buffer> | Buffer}
 */
export function compress(raw, encoding) {
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

/** Answers compressed on the way out (pages, JSON); photos and other binary answers are not. */
const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json)|image\/svg\+xml)/;

/** @param {import("node:http").IncomingMessage} req @param {import("node:http").ServerResponse} res @param {Response} response */
export async function sendResponse(req, res, response) {
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
