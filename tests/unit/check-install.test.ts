// scripts/check-install.cjs, run by npm start, serve and dev before anything else loads: after a
// pull without `npm install` it stops with one line saying to run it (README "Upgrading").
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-check-install-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A project with package.json pinning `wanted` and node_modules holding `installed`. */
function project(wanted: Record<string, string>, installed: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(work, "p-"));
  fs.mkdirSync(path.join(dir, "scripts"));
  fs.copyFileSync(path.join(root, "scripts/check-install.cjs"), path.join(dir, "scripts/check-install.cjs"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "x", dependencies: wanted }));
  for (const [name, version] of Object.entries(installed)) {
    fs.mkdirSync(path.join(dir, "node_modules", name), { recursive: true });
    fs.writeFileSync(path.join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
  }
  return dir;
}

const check = (dir: string) =>
  spawnSync(process.execPath, [path.join(dir, "scripts/check-install.cjs")], { cwd: dir, encoding: "utf8" });

describe("check-install", () => {
  it("passes on this checkout: what package.json pins is installed", () => {
    const result = check(root);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("passes when every pinned package is there at its version", () => {
    expect(check(project({ a: "1.0.0", "@s/b": "2.0.0-rc.1" }, { a: "1.0.0", "@s/b": "2.0.0-rc.1" })).status).toBe(0);
  });

  it("stops with one line naming what differs and saying to run npm install", () => {
    const result = check(project({ a: "1.0.0", "@s/b": "2.1.0", c: "3.0.0" }, { a: "1.0.0", "@s/b": "2.0.0" }));
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("@s/b 2.1.0 (2.0.0 installed)");
    expect(result.stderr).toContain("c 3.0.0 (missing)");
    expect(result.stderr).toContain("Run npm install");
    expect(result.stderr).not.toContain("a 1.0.0");
  });

  it("runs before npm start, serve and dev", () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts;
    for (const name of ["start", "serve", "dev"]) {
      expect(scripts[name], name).toMatch(/^node scripts\/check-node\.cjs && node scripts\/check-install\.cjs && /);
    }
  });
});
