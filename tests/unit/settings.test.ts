// The settings (server/env.mjs, docs/decisions/0048-settings-with-zod.md): every variable of
// .env.example is read under its name with the default it shows, numbers that are not fall back to
// the default, and wrong settings stop the start with one line naming each. The photo store's own
// settings are in storage-settings.test.ts.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../server/env.mjs";

const root = path.resolve(import.meta.dirname, "../..");
// read by server/cluster.mjs and db/knexfile.mjs themselves; STORAGE and S3_*: storage-settings.test.ts
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

  it("a number that is not one, or is negative, means the default; where 0 means nothing, so does 0", () => {
    const s = settingsWith({
      PORT: "abc",
      LOGIN_WINDOW_MINUTES: "12abc",
      REQUEST_TIMEOUT_SECONDS: "-5",
      SESSION_DAYS: "",
      INVITE_DAYS: "0",
      INVITES_PER_DAY: "0",
      DEMO: "off",
      LOG_REQUESTS: " yes ",
    });
    expect(s).toMatchObject({
      port: 3000,
      loginWindowMinutes: 12,
      requestTimeoutSeconds: 120,
      sessionDays: 30,
      inviteDays: 14,
      invitesPerDay: 0,
      demo: false,
      logRequests: true,
    });
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
    expect(message).not.toContain("\n");
    for (const name of ["DATABASE_URL", "ORIGIN", "ALLOWED_HOSTS", "TRUST_PROXY", "STORAGE"]) {
      expect(message).toContain(name);
    }
    expect(message).toContain("ORIGIN must be the site's URL, scheme://host[:port].");
  });
});
