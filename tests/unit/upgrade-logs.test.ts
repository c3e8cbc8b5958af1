// What an operator sees across an upgrade (README "Upgrading"): the version running (package.json's
// and the commit), and each migration applied, by `npm run db:migrate` as at every start.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appVersion } from "../../server/version.mjs";
import { runNpmScript } from "./support/npm-script";

const root = path.resolve(import.meta.dirname, "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-upgrade-logs-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("the version", () => {
  it("is package.json's version and the commit checked out", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    expect(appVersion()).toBe(`${version} (commit ${head.slice(0, 12)})`);
  });
});

describe("npm run db:migrate", () => {
  it("logs each migration it applies, then that the database is up to date", async () => {
    const env = { DATABASE_FILE: path.join(work, "data", "db.sqlite"), UPLOADS_DIR: path.join(work, "uploads") };
    const migrations = fs.readdirSync(path.join(root, "db/migrations")).filter((f) => f.endsWith(".mjs"));
    const first = await runNpmScript("db:migrate", [], env);
    expect(first.code).toBe(0);
    const applied = first.out.split("\n").filter((l) => l.startsWith("[db] applied migration "));
    expect(applied).toEqual(migrations.sort().map((m) => `[db] applied migration ${m}`));
    const again = await runNpmScript("db:migrate", [], env);
    expect(again.code).toBe(0);
    expect(again.out.trim()).toBe("Database is up to date.");
  });
});
