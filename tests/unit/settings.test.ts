// The settings (server/env.mjs, docs/decisions/0048-settings-with-zod.md): every variable of
// .env.example is read under its name with the default it shows, and wrong settings (numbers that
// are not, names a setting does not know) stop the start with one line each. The photo store's own
// settings are in storage-settings.test.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../server/env.mjs";

const root = path.resolve(import.meta.dirname, "../..");
// WEB_CONCURRENCY: its default is the machine's core count; SQLITE_BUSY_TIMEOUT_MS: read by db/knexfile.mjs;
// STORAGE and S3_*: storage-settings.test.ts
const READ_ELSEWHERE = /^(WEB_CONCURRENCY|SQLITE_BUSY_TIMEOUT_MS|STORAGE|S3_.*)$/;
/** `NAME=value` and `# NAME=value` lines: a variable shown with its default, or commented out with an example. */
const examples = [
  ...fs.readFileSync(path.join(root, ".env.example"), "utf8").matchAll(/^(# ?)?([A-Z][A-Z0-9_]*)=(.*)$/gm),
]
  .map(([, comment, name = "", value = ""]) => ({ name, value, shown: !comment }))
  .filter((e) => !READ_ELSEWHERE.test(e.name));

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** readEnv with only `values` set (and a session secret, so no secret file is written). */
function settingsWith(values: Record<string, string>): Record<string, unknown> {
  for (const { name } of examples) delete process.env[name];
  Object.assign(process.env, { SESSION_SECRET: "test-secret" }, values);
  return readEnv();
}

const field = (name: string) => name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A value of the setting other than `value`, as the setting reads it. */
function other(value: string): string {
  // a setting with a few named values: the other one
  if (value === "text" || value === "json") return value === "text" ? "json" : "text";
  if (/^\d+$/.test(value)) return String(Number(value) + 1);
  if (value === "true" || value === "false") return value === "true" ? "false" : "true";
  return /[a-z]/.test(value) ? value.replace(/[a-z]/, "q") : `${value}1`;
}

describe("the settings", () => {
  it(".env.example shows each variable's default, and each is read under its name", () => {
    expect(examples.length).toBeGreaterThan(30);
    const defaults = settingsWith({});
    for (const { name, value, shown } of examples.filter((e) => e.shown)) {
      const expected = /^\d+$/.test(value)
        ? Number(value)
        : value === "true" || value === "false"
          ? value === "true"
          : /_(FILE|DIR)$/.test(name)
            ? path.resolve(value)
            : value;
      expect({ name, shown, value: defaults[field(name)] }).toEqual({ name, shown, value: expected });
    }
    for (const { name, value, shown } of examples) {
      const changed = settingsWith({ [name]: shown ? other(value) : value });
      expect({ name, changed: changed[field(name)] }).not.toEqual({ name, changed: defaults[field(name)] });
    }
  });

  it("an empty number means the default, and so does 0 where 0 means nothing", () => {
    const s = settingsWith({
      SESSION_DAYS: "",
      INVITE_DAYS: "0",
      INVITES_PER_DAY: "0",
      LOGIN_WINDOW_MINUTES: " 12 ",
      DEMO: "off",
      LOG_REQUESTS: " yes ",
    });
    expect(s).toMatchObject({
      sessionDays: 30,
      inviteDays: 14,
      invitesPerDay: 0,
      loginWindowMinutes: 12,
      demo: false,
      logRequests: true,
    });
  });

  it("a number that is not one, negative or out of range stops the start, a line each", () => {
    let message = "";
    try {
      settingsWith({ PORT: "abc", LOGIN_WINDOW_MINUTES: "12abc", REQUEST_TIMEOUT_SECONDS: "-5", WEB_CONCURRENCY: "0" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split("\n")).toEqual([
      'PORT="abc": expected a whole number, from 0 to 65535 (unset: 3000)',
      'WEB_CONCURRENCY="0": expected a whole number, at least 1 (unset: one per core)',
      'REQUEST_TIMEOUT_SECONDS="-5": expected a whole number, at least 0 (unset: 120)',
      'LOGIN_WINDOW_MINUTES="12abc": expected a whole number, at least 0 (unset: 15)',
    ]);
  });

  it("a session secret is made beside the database only when first asked for", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-secret-"));
    try {
      const s = settingsWith({ DATABASE_FILE: path.join(dir, "data", "db.sqlite") });
      delete process.env.SESSION_SECRET;
      const lazy = readEnv();
      expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
      expect(lazy.sessionSecret).toMatch(/^[\w-]{43}$/);
      expect(fs.readFileSync(path.join(dir, "data", "session-secret"), "utf8").trim()).toBe(lazy.sessionSecret);
      expect(s.sessionSecret).toBe("test-secret");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("wrong settings stop the start with one line that names each of them", () => {
    let message = "";
    try {
      settingsWith({
        DATABASE_URL: "mysql://h/db",
        ORIGIN: "photos.example.org",
        ALLOWED_HOSTS: "*",
        TRUST_PROXY: "true",
        STORAGE: "minio",
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split("\n")).toHaveLength(5);
    for (const name of ["DATABASE_URL", "ORIGIN", "ALLOWED_HOSTS", "TRUST_PROXY", "STORAGE"]) {
      expect(message).toContain(name);
    }
    expect(message).toContain("ORIGIN must be the site's URL, scheme://host[:port].");
  });
});
