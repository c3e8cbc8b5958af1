// The build's client files as the server answers them (server/static-files.mjs, sirv with the copies
// precompressFiles writes at build time; docs/decisions/0047-static-files-with-sirv.md), over a real
// node:http server on a folder laid out like build/client: hashed assets kept a year, public/'s
// files an hour, brotli or gzip as the browser accepts, ETag and 304, HEAD without a body, nothing
// but the listed files (no folders, dotfiles or paths outside), and everything else left to the app.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { precompressFiles, staticFiles } from "../../server/static-files.mjs";
import { rawRequest, type RawResponse } from "./support/raw-http";

const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `word ${i}`))};\n`;
const SMALL_CSS = "body{margin:0}\n";
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<circle r="1"/>'.repeat(60)}</svg>`;
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

let dir: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-static-"));
  fs.mkdirSync(path.join(dir, "assets"));
  fs.mkdirSync(path.join(dir, ".vite"));
  fs.writeFileSync(path.join(dir, "assets", "entry-Ab12Cd.js"), SCRIPT);
  fs.writeFileSync(path.join(dir, "assets", "small-Ef34Gh.css"), SMALL_CSS);
  fs.writeFileSync(path.join(dir, "assets", "photo-Ij56Kl.png"), PNG);
  fs.writeFileSync(path.join(dir, "favicon.svg"), ICON);
  fs.writeFileSync(path.join(dir, ".vite", "manifest.json"), JSON.stringify({ secret: SCRIPT }));
  precompressFiles(dir);
  const serve = staticFiles(dir);
  // the path exactly as the client sent it (no URL parser in between), so the handler's own
  // refusals are what is tested; whatever it leaves is "the app"
  server = http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    if (serve(req, res, pathname)) return;
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("the app");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function get(target: string, headers: [string, string][] = [], method = "GET"): Promise<RawResponse> {
  return rawRequest(port, {
    method,
    target,
    headers: [["Host", "localhost"], ...headers],
    expectNoBody: method === "HEAD",
  });
}

describe("static files", () => {
  it("writes brotli and gzip copies of text files over 512 bytes, and of nothing else", () => {
    const names = fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
    expect(names.filter((n) => /\.(br|gz)$/.test(n))).toEqual([
      "assets/entry-Ab12Cd.js.br",
      "assets/entry-Ab12Cd.js.gz",
      "favicon.svg.br",
      "favicon.svg.gz",
    ]);
  });

  it("answers a hashed asset compressed as accepted, kept a year, with the security header", async () => {
    for (const [accept, encoding, decode] of [
      ["gzip, deflate, br", "br", zlib.brotliDecompressSync],
      ["gzip", "gzip", zlib.gunzipSync],
    ] as const) {
      const res = await get("/assets/entry-Ab12Cd.js", [["Accept-Encoding", accept]]);
      expect(res.status).toBe(200);
      expect(res.headers["content-encoding"]).toBe(encoding);
      expect(decode(res.body).toString()).toBe(SCRIPT);
      expect(Number(res.headers["content-length"])).toBe(res.body.length);
      expect(res.headers["content-type"]).toMatch(/^text\/javascript/);
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers.vary).toBe("Accept-Encoding");
    }
    const plain = await get("/assets/entry-Ab12Cd.js");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it("answers small and binary files as they are, and public/'s files for an hour", async () => {
    const css = await get("/assets/small-Ef34Gh.css", [["Accept-Encoding", "br"]]);
    expect(css.headers["content-encoding"]).toBeUndefined();
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    expect(css.body.toString()).toBe(SMALL_CSS);
    const png = await get("/assets/photo-Ij56Kl.png", [["Accept-Encoding", "br"]]);
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.body.equals(PNG)).toBe(true);
    const icon = await get("/favicon.svg", [["Accept-Encoding", "br"]]);
    expect(icon.headers["content-type"]).toBe("image/svg+xml");
    expect(icon.headers["cache-control"]).toBe("public, max-age=3600");
    expect(zlib.brotliDecompressSync(icon.body).toString()).toBe(ICON);
  });

  it("answers 304 to a matching If-None-Match, and the whole file to another", async () => {
    const first = await get("/favicon.svg");
    const etag = first.headers.etag!;
    expect(etag).toBeTruthy();
    const again = await get("/favicon.svg", [["If-None-Match", etag]]);
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const other = await get("/favicon.svg", [["If-None-Match", '"something else"']]);
    expect(other.status).toBe(200);
    expect(other.body.toString()).toBe(ICON);
  });

  it("answers HEAD with the headers and no body", async () => {
    const res = await get("/assets/entry-Ab12Cd.js", [], "HEAD");
    expect(res.status).toBe(200);
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(SCRIPT));
    expect(res.body.length).toBe(0);
  });

  it("leaves to the app other methods, unknown paths, folders, dotfiles and paths outside the folder", async () => {
    const outside = path.basename(dir);
    for (const [method, target] of [
      ["POST", "/favicon.svg"],
      ["GET", "/"],
      ["GET", "/nope.js"],
      ["GET", "/assets"],
      ["GET", "/assets/"],
      ["GET", "/.vite/manifest.json"],
      ["GET", "/.vite/manifest.json.br"],
      ["GET", "/assets/../favicon.svg/../../etc/passwd"],
      ["GET", `/../${outside}/favicon.svg`],
      ["GET", "/%2e%2e/%2e%2e/etc/passwd"],
      ["GET", "/..%2f..%2fetc%2fpasswd"],
      ["GET", "/favicon.svg%00.js"],
    ] as const) {
      const res = await get(target, [], method);
      expect({ target, method, status: res.status, body: res.body.toString() }).toEqual({
        target,
        method,
        status: 404,
        body: "the app",
      });
    }
  });
});
