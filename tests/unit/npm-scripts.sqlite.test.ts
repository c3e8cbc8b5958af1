// The npm scripts README tells an operator or a developer to run, run as they would run them, for
// those that no other test runs already (backup, restore, db:seed, db:migrate, serve and
// move-to-postgres have their own tests; start is run by .ci/install-and-start; lint, typecheck,
// build and the tests themselves by `npm test`).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commandEnv } from "./support/server-script";
import { runNpmScript } from "./support/npm-script";

const root = path.resolve(import.meta.dirname, "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-npm-scripts-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("npm run check:layers", () => {
  it("passes on the tree and prints no offence", async () => {
    const result = await runNpmScript("check:layers", [], {});
    expect(result.out).not.toMatch(/error /);
    expect(result.code).toBe(0);
  }, 120_000);
});

describe("npm run dev", () => {
  it("migrates, then serves the log-in page with hot reload's client", async () => {
    const port = 34000 + (process.pid % 500);
    const child = spawn("npm", ["run", "--silent", "dev"], {
      cwd: root,
      env: commandEnv({
        PORT: String(port),
        DATABASE_FILE: path.join(work, "data", "dev.sqlite"),
        UPLOADS_DIR: path.join(work, "uploads"),
        DEMO: "false",
        NODE_ENV: undefined,
      }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    try {
      let page = "";
      for (let i = 0; i < 240 && !page; i++) {
        await new Promise((r) => setTimeout(r, 500));
        if (child.exitCode !== null) break;
        page = await fetch(`http://localhost:${port}/login`)
          .then((r) => (r.ok ? r.text() : ""))
          .catch(() => "");
      }
      expect(page, out).toContain("<h1>Log In</h1>");
      // served by Vite's dev server: the modules by their source paths, not the build's hashed assets
      expect(page).toContain('href="/app/routes/login.tsx"');
      expect(fs.existsSync(path.join(work, "data", "dev.sqlite"))).toBe(true);
    } finally {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => child.once("close", r));
    }
  }, 180_000);
});
