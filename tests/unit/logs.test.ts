// The server's log (server/log.mjs, docs/decisions/0056-logs.md): with LOG_REQUESTS on, one line per
// request, streamed answers (a photo) included; every line with its time; LOG_FORMAT=json one JSON
// object per line; a line at start and at shutdown. And on SIGTERM, a request in flight has
// SHUTDOWN_GRACE_SECONDS to finish. Against the production server on this file's database.
import { spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoUrl } from "~/images/photo";
import { cookieFor, makeUser } from "../helpers";
import { insertKid, storePhoto } from "./friends-fixtures";
import { buildApp, type BuiltServer, startBuiltServer } from "./support/built-server";

let buildDir = "";
let photoPath = "";
let cookie = "";
const started: BuiltServer[] = [];

beforeAll(async () => {
  buildDir = await buildApp();
  const parent = await makeUser();
  const photo = await storePhoto("kid", parent.id);
  await insertKid(parent, "Kid", photo.imageId);
  photoPath = photoUrl(photo, 320);
  cookie = await cookieFor(parent);
}, 600_000);

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

async function serve(env: Record<string, string>) {
  const server = await startBuiltServer(buildDir, env);
  started.push(server);
  return server;
}

/** Three requests: a page, a stored photo (streamed by the app), a static file. */
async function visit(server: BuiltServer) {
  const base = `http://127.0.0.1:${server.port}`;
  const photo = await fetch(`${base}${photoPath}`, { headers: { cookie } });
  expect(photo.status).toBe(200);
  expect((await photo.arrayBuffer()).byteLength).toBeGreaterThan(100);
  expect((await fetch(`${base}/login`)).status).toBe(200);
  expect((await fetch(`${base}/favicon.svg`)).status).toBe(200);
  // a line is written when the server has finished the answer, which for a static file is after
  // the client has its last byte (the file's end is read after its content): wait for all three
  // before the test stops the server, or a stop can overtake the last line
  await expect.poll(() => [photoPath, "/login", "/favicon.svg"].every((p) => logged(server, p))).toBe(true);
}

function logged(server: BuiltServer, url: string) {
  // both formats' message reads "GET <url> 200 <ms>ms"
  return server.outputLines().some((line) => line.includes(` ${url} 200 `));
}

describe("the server's log", () => {
  it("the supervisor's lines, written by the shell, read as the log's own in both formats", () => {
    for (const format of ["text", "json"]) {
      const pino = `import { createLogger } from "./server/log.mjs";
const log = createLogger("${format}");
log.info("[cluster] 2 workers listening"); log.error("[cluster] worker 1 exited (SIGKILL); a new one in 250 ms");`;
      const node = spawnSync(process.execPath, ["--input-type=module", "-e", pino], { encoding: "utf8" });
      const shell = spawnSync(
        "sh",
        [
          "-c",
          `log_format=${format}; . server/supervise-log.sh; say 30 INFO 1 "[cluster] 2 workers listening"; say 50 ERROR 2 "[cluster] worker 1 exited (SIGKILL); a new one in 250 ms"`,
        ],
        { encoding: "utf8" },
      );
      expect([node.status, shell.status]).toEqual([0, 0]);
      const line = (out: string, pid: number) =>
        out
          .trim()
          .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/, "<time>")
          .replace(/"time":\d{13}\b/, '"time":0')
          .replace(`"pid":${pid}`, '"pid":0');
      expect(line(shell.stdout, shell.pid)).toBe(line(node.stdout, node.pid));
      expect(line(shell.stderr, shell.pid)).toBe(line(node.stderr, node.pid));
      if (format === "text") expect(line(shell.stdout, shell.pid)).toBe("[<time>] INFO: [cluster] 2 workers listening");
      else
        expect(JSON.parse(shell.stdout)).toEqual({
          level: 30,
          time: expect.any(Number),
          pid: shell.pid,
          msg: "[cluster] 2 workers listening",
        });
    }
  });

  it("LOG_FORMAT=json: one JSON object per line with its time; every request, the streamed photo too; start and stop", async () => {
    // a grace longer than this test's own time limit: a kept-alive connection left open until the
    // grace ran out (instead of closed once idle) fails the test
    const server = await serve({ LOG_REQUESTS: "on", LOG_FORMAT: "json", SHUTDOWN_GRACE_SECONDS: "60" });
    await visit(server);
    expect(await server.stop()).toBe(0);
    const records = server.outputLines().map((line) => JSON.parse(line));
    for (const r of records) {
      expect(typeof r.time).toBe("number");
      expect(r.level).toBe(30);
      expect(typeof r.msg).toBe("string");
    }
    const messages = records.map((r) => r.msg as string);
    expect(messages[0]).toMatch(/^Sweet Moments \S+ \(commit [0-9a-f]{12}\) is running at http:\/\/localhost:\d+$/);
    for (const path of [photoPath, "/login", "/favicon.svg"]) {
      const line = records.find((r) => r.url === path);
      expect(line, path).toMatchObject({ method: "GET", status: 200, complete: true });
      expect(line.msg).toMatch(new RegExp(`^GET ${path.replace(/[.?]/g, "\\$&")} 200 \\d+\\.\\dms$`));
    }
    expect(messages.at(-2)).toBe("Sweet Moments is stopping: requests in flight have up to 60 s to finish");
    expect(messages.at(-1)).toBe("Sweet Moments stopped");
  }, 45_000);

  it("LOG_FORMAT=text (the default): each line starts with its time and level", async () => {
    const server = await serve({ LOG_REQUESTS: "on", SHUTDOWN_GRACE_SECONDS: "60" });
    await visit(server);
    expect(await server.stop()).toBe(0);
    const lines = server.outputLines();
    for (const line of lines) expect(line).toMatch(/^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] INFO: /);
    expect(
      lines.some((l) => l.endsWith(`INFO: GET ${photoPath} 200`) || l.includes(`INFO: GET ${photoPath} 200 `)),
    ).toBe(true);
  }, 45_000);

  it("Node's process warnings (an experimental API a library touches) are logged as warnings, errors as errors", () => {
    const script = `
      const { installLog } = await import(${JSON.stringify(path.resolve("server/log.mjs"))});
      installLog("json");
      process.emitWarning("The thing is an experimental feature", "ExperimentalWarning");
      setTimeout(() => console.error("a real error"), 50);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    const records = run.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(records.find((r) => r.msg.includes("ExperimentalWarning"))?.level).toBe(40);
    expect(records.find((r) => r.msg.includes("--trace-warnings"))?.level).toBe(40);
    expect(records.find((r) => r.msg === "a real error")?.level).toBe(50);
  });

  it("a SIGTERM the moment the server says it is running is its clean stop, not Node's default death", async () => {
    // a supervisor (or a test) acting on the "running" line: the signal is the server's from the start
    for (let i = 0; i < 3; i++) {
      const server = await serve({});
      expect(await server.stop()).toBe(0);
      expect(server.outputLines().at(-1)).toMatch(/Sweet Moments stopped$/);
    }
  }, 60_000);

  it("on SIGTERM a request in flight finishes within SHUTDOWN_GRACE_SECONDS (its body arriving over 4 s)", async () => {
    const server = await serve({ SHUTDOWN_GRACE_SECONDS: "15" });
    const body = "email=nobody%40example.org&password=wrong-password&intent=login&pad=".padEnd(400, "x");
    const socket = net.connect(server.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => (answer += d));
    // a reset shows in the answer (and fails the test there) rather than as an uncaught error
    socket.on("error", (error) => (answer += `[${error.message}]`));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(
      [
        "POST /login HTTP/1.1",
        `Host: 127.0.0.1:${server.port}`,
        `Origin: http://localhost:${server.port}`,
        "Sec-Fetch-Site: same-origin",
        "Content-Type: application/x-www-form-urlencoded",
        `Content-Length: ${body.length}`,
        "Connection: close",
        // the server's "100 Continue" says it has read the request's head: from then on the request
        // is in flight (before that, on a busy machine, the connection could still look idle)
        "Expect: 100-continue",
        "",
        "",
      ].join("\r\n"),
    );
    await expect.poll(() => answer, { timeout: 30_000 }).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    // the first part of the body, then SIGTERM, then the rest over 4 s
    socket.write(body.slice(0, 100));
    const stopping = server.stop();
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      socket.write(body.slice(100 + i * 75, 100 + (i + 1) * 75));
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 (200|302|303|400|401) /);
    expect(await stopping).toBe(0);
  }, 120_000);
});
