// A wrong setting stops the start before anything loads (server/preflight.mjs, server/env.mjs):
// one line per problem naming the variable, what was given and what is accepted, exit code 1, no
// stack trace. Run as an operator would, through `npm run serve` (what `npm start` runs after the
// build); the checks come before the build is loaded, so none is needed here.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { misspeltSettings } from "../../server/preflight.mjs";
import { runNpmScript } from "./support/npm-script";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-start-settings-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
// a regular file: a folder cannot be made under it, whoever runs the test (root included)
const aFile = path.join(work, "a-file");
fs.writeFileSync(aFile, "");

/** `npm run serve` with `env` (on a fresh data folder unless given); its exit code and lines. */
async function serve(env: Record<string, string | undefined>) {
  const result = await runNpmScript("serve", [], {
    DATABASE_FILE: path.join(work, "data", "db.sqlite"),
    UPLOADS_DIR: path.join(work, "uploads"),
    SESSION_SECRET: undefined,
    // a free port unless the case is about the port: 3000 may be taken on a developer's machine
    PORT: "0",
    HOST: undefined,
    WEB_CONCURRENCY: undefined,
    STORAGE: undefined,
    ...env,
  });
  return { code: result.code, lines: result.out.trim().split("\n") };
}

const STOPPED = 'Sweet Moments did not start: fix what is named above (README, "Configuration").';

describe("a wrong setting stops npm start with one line", () => {
  it.each([
    [{ PORT: "abc" }, '[settings] PORT="abc": expected a whole number, from 0 to 65535 (unset: 3000)'],
    [{ PORT: "70000" }, '[settings] PORT="70000": expected a whole number, from 0 to 65535 (unset: 3000)'],
    [
      { WEB_CONCURRENCY: "0" },
      '[settings] WEB_CONCURRENCY="0": expected a whole number, at least 1 (unset: one per core)',
    ],
    [{ STORAGE: "minio" }, '[settings] STORAGE must be "disk" or "s3", not "minio".'],
    [
      { SESSION_SECRET: "too-short" },
      "[settings] SESSION_SECRET (9 bytes): in production it must be at least 32 bytes (e.g. the output of `openssl rand -base64 32`), or unset: one is then generated and kept beside the database",
    ],
    [
      { UPLOADS_DIR: path.join(aFile, "uploads") },
      `[settings] UPLOADS_DIR="${path.join(aFile, "uploads")}": the photos cannot be written in ${path.join(aFile, "uploads")} (ENOTDIR); give a folder this user may create and write.`,
    ],
    [
      { DATABASE_FILE: path.join(aFile, "data", "db.sqlite") },
      `[settings] DATABASE_FILE="${path.join(aFile, "data", "db.sqlite")}": the database cannot be written in ${path.join(aFile, "data")} (ENOTDIR); give a folder this user may create and write.`,
    ],
    [
      { DATABASE_URL: "postgres://sweet:secret@127.0.0.1:1/none", WEB_CONCURRENCY: "1" },
      "[db] PostgreSQL at postgres://sweet:***@127.0.0.1:1/none could not be reached (ECONNREFUSED): is it running, and is DATABASE_URL right?",
    ],
  ])("%j", async (env, line) => {
    const { code, lines } = await serve(env);
    expect(lines).toEqual([line, STOPPED]);
    expect(code).toBe(1);
  });

  it("names every wrong setting at once, a line each, and never shows the secret", async () => {
    const { code, lines } = await serve({ PORT: "x", LOGIN_WINDOW_MINUTES: "-1", SESSION_SECRET: "hunter2" });
    expect(code).toBe(1);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\[settings\] PORT="x": /);
    expect(lines[1]).toMatch(/^\[settings\] SESSION_SECRET \(7 bytes\): /);
    expect(lines[2]).toMatch(/^\[settings\] LOGIN_WINDOW_MINUTES="-1": expected a whole number, at least 0 /);
    expect(lines.join("\n")).not.toContain("hunter2");
    expect(lines.join("\n")).not.toMatch(/\n\s+at /);
  });

  it("names a port another program holds, without a stack trace", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const { code, lines } = await serve({ PORT: String(port), HOST: "127.0.0.1" });
      expect(lines).toEqual([
        `[settings] PORT=${port} on HOST=127.0.0.1 is in use by another program: stop it, or set PORT to a free port.`,
        STOPPED,
      ]);
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("warns about a misspelt setting, naming the one meant", async () => {
    const { lines } = await serve({ UPLOAD_DIR: "/srv/photos", PORT: "x" });
    expect(lines[0]).toBe(
      "[settings] UPLOAD_DIR is not a setting of Sweet Moments and is ignored: did you mean UPLOADS_DIR?",
    );
    // and leaves other software's variables alone
    expect(misspeltSettings(["HOME", "PATH", "HOSTNAME", "NODE_OPTIONS", "TIMEZONE", "SMTP_URLS"])).toEqual([
      "TIMEZONE is not a setting of Sweet Moments and is ignored: did you mean TIME_ZONE?",
      "SMTP_URLS is not a setting of Sweet Moments and is ignored: did you mean SMTP_URL?",
    ]);
  });
});
