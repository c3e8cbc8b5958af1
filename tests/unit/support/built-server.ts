// The real production server (server/index.mjs) on a fresh build of the app, as a child process,
// for tests that must see exactly what a client sees: raw request-targets, bodies, headers, logs.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { bodyOf } from "../../helpers";

const root = path.resolve(import.meta.dirname, "..", "..", "..");

/**
 * The app's production build, made once per test run and shared by every file that starts the real
 * server (docs/decisions/0051-test-kit-and-a-faster-suite.md): the first file to ask builds it into
 * the folder the global setup named (tests/global-setup-db.ts: inside the project, build-test-*,
 * ignored by git, so the build finds the project's node_modules) while the others wait for it; the
 * global setup removes it at the end. Files only read it. A build the run was given (TEST_BUILD_DIR)
 * is there from the start.
 */
export async function buildApp(): Promise<string> {
  const buildDir = inject("appBuildDir");
  if (fs.existsSync(buildDir)) return buildDir;
  const failed = `${buildDir}.failed`;
  let mine = true;
  try {
    fs.mkdirSync(`${buildDir}.lock`);
  } catch {
    mine = false;
  }
  if (mine) {
    const partial = `${buildDir}.partial`;
    try {
      execFileSync(process.execPath, [path.join(root, "node_modules", "@react-router", "dev", "bin.cjs"), "build"], {
        cwd: root,
        env: { ...process.env, BUILD_DIR: partial, NODE_ENV: "production" },
        stdio: "pipe",
      });
      // whole or not at all: the waiting files see the folder only once it is complete
      fs.renameSync(partial, buildDir);
    } catch (error) {
      fs.writeFileSync(failed, String(error));
      throw error;
    }
    return buildDir;
  }
  while (!fs.existsSync(buildDir)) {
    if (fs.existsSync(failed)) throw new Error(`the run's build failed: ${fs.readFileSync(failed, "utf8")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return buildDir;
}

export type BuiltServer = {
  port: number;
  /** The process started (with server/cluster.mjs: the primary). */
  pid: number;
  /** Everything the server wrote to stderr so far, as lines. */
  errorLines(): string[];
  /** Everything the server wrote to stdout so far, as lines. */
  outputLines(): string[];
  /** Resolves with the match once the server's standard output matches `pattern`. */
  waitForOutput(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGTERM, and the exit code once it has exited. */
  stop(): Promise<number | null>;
  /** kill -9: no shutdown of any kind; resolves when the process has exited. */
  crash(): Promise<void>;
};

/**
 * Starts `node server/index.mjs` (or `entry`, e.g. supervise.sh) on a free port, on the database and
 * uploads folder of the current test file (tests/setup-db.ts), and waits for its "running at" line.
 */
export async function startBuiltServer(
  buildDir: string,
  env: Record<string, string> = {},
  entry = "index.mjs",
): Promise<BuiltServer> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) childEnv[k] = v;
  delete childEnv.ORIGIN;
  delete childEnv.VITEST;
  delete childEnv.LOG_REQUESTS;
  Object.assign(childEnv, {
    NODE_ENV: "production",
    BUILD_DIR: buildDir,
    PORT: "0",
    HOST: "127.0.0.1",
    // tests reach it at 127.0.0.1 (its site is http://localhost:<port>, ORIGIN being unset)
    ALLOWED_HOSTS: "127.0.0.1",
    DEMO: "false",
    LOGIN_MAX_FAILURES_PER_ADDRESS: "1000000",
    SIGNUP_MAX_PER_ADDRESS: "1000000",
    // the crash and bad-input tests upload many photos from one account
    PHOTO_UPLOADS_PER_HOUR: "1000000",
    ...env,
  });
  // its own process group: a cluster's workers are stopped and awaited with their primary, so no
  // process of the test is left holding the database when the test file drops it
  // a shell script (server/supervise.sh) runs this Node for its processes
  const [command, args] = entry.endsWith(".sh")
    ? ["sh", [path.join(root, "server", entry)]]
    : [process.execPath, [path.join(root, "server", entry)]];
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    env: { ...childEnv, SM_NODE: process.execPath },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  let stdout = "";
  const waiting = new Set<() => void>();
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    stdout += chunk;
    for (const check of waiting) check();
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(stdout);
        if (!m) return;
        waiting.delete(check);
        resolve(m);
      };
      waiting.add(check);
      check();
      void exited.then((code) => {
        if (waiting.delete(check)) reject(new Error(`server exited (${code}) before printing ${pattern}:\n${stderr}`));
      });
    });

  const port = Number((await waitForOutput(/running at https?:\/\/[^:\s]+:(\d+)/))[1]);

  return {
    port,
    pid: child.pid!,
    errorLines: () => stderr.split("\n").filter((line) => line.length > 0),
    outputLines: () => stdout.split("\n").filter((line) => line.length > 0),
    waitForOutput,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const code = await exited;
      await groupGone(child.pid!);
      return code;
    },
    async crash() {
      signalGroup(child.pid!, "SIGKILL");
      await exited;
      await groupGone(child.pid!);
    },
  };
}

/** Sends `signal` to every process of the group `pgid`; false when none is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once no process of the group `pgid` is left (a cluster primary that exited before a
 * worker did). After 10 s the rest is killed: a teardown must not wait on a stuck process.
 */
async function groupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (signalGroup(pgid, 0)) {
    if (Date.now() > deadline) signalGroup(pgid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export type CallInit = {
  method?: string;
  cookie?: string;
  json?: unknown;
  form?: FormData | Record<string, string>;
  headers?: Record<string, string>;
};
export type CallAnswer = { status: number; headers: Headers; text: string; cookie: string };

/** One request to a started server: a JSON or form body, a session cookie; the whole answer read. */
export async function call(base: string, path: string, init: CallInit = {}): Promise<CallAnswer> {
  const headers = new Headers(init.headers);
  const body = bodyOf(init, headers);
  const res = await fetch(base + path, {
    method: init.method ?? (body ? "POST" : "GET"),
    headers,
    body,
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, cookie: res.headers.getSetCookie()[0]?.split(";")[0] ?? "" };
}
