// @ts-check
// What the server checks about a request before the app sees it, and the few answers it gives on
// its own (for requests Node's parser refuses, and CONNECT). See
// docs/decisions/0019-request-hardening.md.
import { hostName } from "./env.mjs";

/**
 * `message`: what the client is told instead of the envelope's usual words for the status.
 * @typedef {{ status: 400 | 403 | 404 | 405 | 413 | 415, reason: string, message?: string }} Rejection
 */

/** Methods the app answers; anything else (TRACE, CONNECT, PROPFIND, OPTIONS, …) gets a 405. */
export const APP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

const HOST =
  /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)(?::(\d{1,5}))?$/;

/** A Host header value we can build an origin from: a name or address, and a port up to 65535. */
export function isValidHost(/** @type {string} */ value) {
  const m = HOST.exec(value);
  if (!m || (m[1] !== undefined && Number(m[1]) > 65535)) return false;
  try {
    new URL(`http://${value}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path and query of a request-target, or null when it is neither origin-form ("/…") nor
 * absolute-form ("http://host/…"). Only the path is kept: the origin of the URL the app sees is
 * ours (ORIGIN, or the Host header), never one named by the request-target: "//evil.example/x" is
 * the path "//evil.example/x" on this server, not a URL of evil.example.
 * @param {string} target
 */
export function targetPath(target) {
  if (target.startsWith("/")) return target;
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      return url.pathname + url.search;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * A path whose segments all decode: in a segment with malformed %-encoding ("%ZZ", "%E0%A4%A"),
 * every "%" is taken literally ("%25"), as React Router would after warning on every request.
 * @param {string} pathAndQuery
 */
export function decodablePath(pathAndQuery) {
  const q = pathAndQuery.indexOf("?");
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? "" : pathAndQuery.slice(q);
  const segments = path.split("/").map((segment) => {
    try {
      decodeURIComponent(segment);
      return segment;
    } catch {
      return segment.replace(/%/g, "%25");
    }
  });
  return segments.join("/") + query;
}

/**
 * Where a request may be addressed (server/env.mjs): the host names the site answers for, ORIGIN
 * when set, and the site's origin (ORIGIN, or this server on localhost).
 * @typedef {{ hostNames: Set<string>, configuredOrigin: string | null, siteOrigin: string }} Site
 */

/** Paths answered whatever the Host (a load balancer's checks often name the machine by its address). */
const HEALTH_PATHS = new Set(["/healthz", "/readyz"]);

/**
 * The URL the app sees, and what is wrong with the request line and Host, if anything. A Host that
 * is not one of the site's names is refused (400, naming the settings that would allow it), except
 * for the health checks; the URL of a refused request is on the site's origin, never on the Host.
 * The URL's origin is the one the request was addressed to (ORIGIN for ORIGIN's host, so its
 * scheme), `https` when it came over https (a trusted proxy's X-Forwarded-Proto); it is for telling
 * same-origin requests and the cookie's Secure flag, never the start of a URL the server writes
 * (`siteOrigin` is: docs/decisions/0038-the-site-address.md).
 * @param {import("node:http").IncomingMessage} req
 * @param {Site} site
 * @param {boolean} [https] the request came over https
 * @returns {{ url: URL, rejection: Rejection | null }}
 */
export function inspectRequest(req, site, https = false) {
  /** @type {Rejection | null} */
  let rejection = null;
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === "host") hosts += 1;
  const host = req.headers.host;
  if (hosts > 1) rejection = { status: 400, reason: "more than one Host header" };
  else if (host === undefined && req.httpVersion !== "1.0") rejection = { status: 400, reason: "no Host header" };
  else if (host !== undefined && !isValidHost(host)) rejection = { status: 400, reason: "malformed Host header" };

  const path = targetPath(req.url ?? "");
  if (path === null) rejection ??= { status: 400, reason: "malformed request-target" };
  const name = host === undefined || rejection ? null : hostName(new URL(`http://${host}`).hostname);
  const health = (req.method === "GET" || req.method === "HEAD") && HEALTH_PATHS.has(path?.split("?")[0] ?? "");
  if (name !== null && !site.hostNames.has(name) && !health) {
    rejection = {
      status: 400,
      reason: `Host ${JSON.stringify(host)} is not one of the site's names (ALLOWED_HOSTS)`,
      message: unknownHostMessage(name),
    };
  }
  const origin =
    name === null || rejection
      ? site.siteOrigin
      : site.configuredOrigin && name === hostName(new URL(site.configuredOrigin).hostname)
        ? site.configuredOrigin
        : `${https ? "https" : "http"}://${host}`;
  let url;
  try {
    url = new URL(origin + decodablePath(path ?? "/"));
  } catch {
    rejection ??= { status: 400, reason: "malformed request-target" };
    url = new URL(origin + "/");
  }
  if (!APP_METHODS.has(req.method ?? "")) rejection ??= { status: 405, reason: `method ${req.method}` };
  return { url, rejection };
}

/** What a request to a name the site does not answer for is told: which settings would allow it. @param {string} name */
function unknownHostMessage(name) {
  return (
    `This server does not answer for the address ${name}. If that is this site's address, its operator adds ${name} to ` +
    "ALLOWED_HOSTS (or sets ORIGIN to the site's public URL) and restarts the server."
  );
}

// ---- answers written straight to the socket --------------------------------------------------

/** The security headers of anything the app did not answer itself (app/web/security.server.ts has the app's). */
export const BASE_SECURITY_HEADERS = Object.freeze({
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
});

const REASONS = /** @type {Record<number, string>} */ ({
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
});

/**
 * A complete HTTP/1.1 answer for a request the app never sees (unparsable, CONNECT), in the
 * envelope of the path it named (`kind`, from the app's pathKind): JSON on /api, plain text on the
 * image route, a small page elsewhere.
 * @param {number} status
 * @param {"api" | "image" | "page"} kind
 */
export function rawRefusal(status, kind) {
  const text = REASONS[status] ?? "Bad Request";
  const body =
    kind === "api"
      ? JSON.stringify({ errors: { message: status === 405 ? "Not found" : "The request could not be read." } })
      : kind === "image"
        ? "That request could not be read."
        : `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${text} – Sweet Moments</title></head>` +
          `<body><h1>That request could not be handled.</h1><p><a href="/">Go to the home page</a>.</p></body></html>`;
  const type = { api: "application/json", image: "text/plain", page: "text/html" }[kind];
  const headers = {
    "Content-Type": `${type}; charset=utf-8`,
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    ...BASE_SECURITY_HEADERS,
    ...(status === 405 ? { Allow: kind === "image" ? "GET, HEAD" : "GET, HEAD, POST" } : {}),
    Connection: "close",
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${status} ${text}\r\n${head.join("\r\n")}\r\n\r\n${body}`;
}

/** The path of a raw request's first line ("GET /x HTTP/1.1"), for choosing an envelope. @param {Buffer | undefined} packet */
export function pathOfRawRequest(packet) {
  if (!packet) return undefined;
  const line = packet.subarray(0, 2048).toString("latin1").split("\r\n")[0] ?? "";
  return /^\S+\s+(\/\S*)/.exec(line)?.[1];
}

/**
 * Requests Node's parser refuses (an unknown method, a malformed header) and requests past their
 * header or request timeout: one answer, one line, and the connection closed. Closed, not only
 * ended: a client that keeps sending (a header line every few seconds) would otherwise hold the
 * half-closed connection for as long as it likes. CONNECT (a proxy's method) is never ours.
 * @param {import("node:http").Server} server @param {(path: string) => "api" | "image" | "page"} pathKind the app's
 * @param {ReturnType<typeof createRejectionLog>} logRejection
 */
export function refuseUnparsable(server, pathKind, logRejection) {
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
        address: /** @type {import("node:net").Socket} */ (socket).remoteAddress,
      });
    }
    closeWith(socket, rawRefusal(status, pathKind(path ?? "/")));
  });
  server.on("connect", (req, socket) => {
    logRejection({
      status: 405,
      method: req.method,
      target: req.url,
      reason: "method CONNECT",
      address: /** @type {import("node:net").Socket} */ (socket).remoteAddress,
    });
    closeWith(socket, rawRefusal(405, pathKind(req.url ?? "/")));
  });
}

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

// ---- the log of refused requests ---------------------------------------------------------

/**
 * One line per refused request, at most `perMinute` lines a minute; what is left out is counted
 * and said on the next line written. Never a stack: a refused request is the client's doing.
 * @param {{ perMinute?: number, write?: (line: string) => void, now?: () => number }} [options]
 */
export function createRejectionLog({ perMinute = 30, write = (line) => console.warn(line), now = Date.now } = {}) {
  let windowStart = -Infinity;
  let written = 0;
  let skipped = 0;
  /** @param {{ status: number, method: string | undefined, target: string | undefined, reason: string, address: string | undefined }} entry */
  return function logRejection({ status, method, target, reason, address }) {
    const t = now();
    if (t - windowStart >= 60_000) {
      windowStart = t;
      written = 0;
    }
    if (written >= perMinute) {
      skipped += 1;
      return;
    }
    written += 1;
    const shownTarget = JSON.stringify((target ?? "").slice(0, 200));
    const shownMethod = (method ?? "-").replace(/[^A-Za-z-]/g, "?").slice(0, 20);
    const more = skipped ? ` (${skipped} more refused requests not logged)` : "";
    skipped = 0;
    write(`[refused] ${status} ${shownMethod} ${shownTarget}: ${reason} from ${address ?? "unknown"}${more}`);
  };
}
