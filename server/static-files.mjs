// @ts-check
// The build's client files (build/client: hashed assets under /assets/, and public/'s files), served
// by sirv before the app (docs/decisions/0047-static-files-with-sirv.md). Compressed once, at build
// time: `precompressFiles` (run by vite.config.ts after the client build) writes a brotli and a gzip
// copy beside each text file, and sirv answers with the one the browser accepts.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import sirv from "sirv";

/** Hashed file names: a new name for new content, so a browser keeps them for a year and never asks. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** public/'s files keep their names across releases: an hour, then the browser asks again (ETag). */
const NOT_HASHED = "public, max-age=3600";
/** Text worth compressing; images are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|txt|webmanifest|xml|html)$/;
/** Below this, a compressed copy saves less than its headers cost. */
const MIN_SIZE = 512;

/**
 * The static file handler. `serve(req, res, pathname)` answers a GET or HEAD of a file of `clientDir`
 * and returns true; anything else (another method, no such file, a folder, a dotfile) returns false
 * with nothing written, for the app to answer. `pathname` is the request's path as the URL parser
 * left it (dot segments resolved, still percent-encoded). The files are listed once, at start: the
 * build does not change under a running server, and no path outside that list can be reached.
 * @param {string} clientDir
 */
export function staticFiles(clientDir) {
  const handler = sirv(clientDir, {
    dev: false,
    etag: true,
    brotli: true,
    gzip: true,
    // no "/about" → "/about.html" guessing: every other path is the app's
    extensions: [],
    setHeaders(res, pathname) {
      res.setHeader("Cache-Control", pathname.startsWith("/assets/") ? IMMUTABLE : NOT_HASHED);
      res.setHeader("X-Content-Type-Options", "nosniff");
    },
  });
  /** @param {import("node:http").IncomingMessage} req @param {import("node:http").ServerResponse} res @param {string} pathname */
  return function serve(req, res, pathname) {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    let passed = false;
    // sirv reads the path from `url` and these two headers; Range is left out (whole files only)
    const view = {
      url: pathname,
      headers: { "accept-encoding": req.headers["accept-encoding"], "if-none-match": req.headers["if-none-match"] },
    };
    // it answers or calls next() before it returns
    handler(/** @type {any} */ (view), res, () => {
      passed = true;
    });
    return !passed;
  };
}

/**
 * Writes `name.br` (brotli) and `name.gz` (gzip, best) beside every text file of `dir` over MIN_SIZE
 * bytes: the build's one-time cost, so no request ever waits on compressing a static file. Brotli's
 * best (11) for stylesheets, which hold back the first paint; 10 for scripts and the rest: 1.6 % more
 * bytes than 11 in a third of the time (measured on this app's 60 scripts: 188.8 against 185.7 KB,
 * docs/decisions/0047-static-files-with-sirv.md), and every build of the tests pays it.
 * @param {string} dir
 */
export function precompressFiles(dir) {
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, name);
    // dotfiles (the build's .vite/manifest.json) are never served
    if (!COMPRESSIBLE.test(name) || /(?:^|[\\/])\./.test(name) || !fs.statSync(file).isFile()) continue;
    const raw = fs.readFileSync(file);
    if (raw.length <= MIN_SIZE) continue;
    fs.writeFileSync(
      `${file}.br`,
      zlib.brotliCompressSync(raw, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: name.endsWith(".css") ? zlib.constants.BROTLI_MAX_QUALITY : 10,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
    );
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(raw, { level: zlib.constants.Z_BEST_COMPRESSION }));
  }
}
