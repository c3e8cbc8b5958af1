// @ts-check
// What is running: package.json's version and, in a git checkout, the commit. Logged at start and
// answered by /healthz, so an operator sees what an upgrade put in place.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const root = new URL("..", import.meta.url);

/** @returns {string | null} the commit checked out (12 hex digits), or null outside a git checkout or without git */
function commit() {
  try {
    const out = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
    }).trim();
    return /^[0-9a-f]{12}$/.test(out) ? out : null;
  } catch {
    return null; // a release archive, a container image, no git installed
  }
}

/** @type {string | undefined} */
let cached;

/** "0.1.0" or "0.1.0 (commit 1a2b3c4d5e6f)". */
export function appVersion() {
  if (cached) return cached;
  const { version } = JSON.parse(fs.readFileSync(new URL("package.json", root), "utf8"));
  const at = commit();
  cached = at ? `${version} (commit ${at})` : String(version);
  return cached;
}
