// @ts-check
// What `npm start` and `npm run serve` (server/supervise.sh, through server/prepare.mjs) check before anything else loads: the
// settings (server/env.mjs), variables that look like a misspelt setting, and the folders the data
// goes to. Each problem is one line naming the variable, what was given and what is accepted; then
// the start stops with exit code 1 and no stack trace. README "Configuration".
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import knexFactory from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { privateDir } from "../db/private-files.mjs";
import { env, SETTING_NAMES } from "./env.mjs";

/** Edit distance between two names (insertions, deletions, substitutions). @param {string} a @param {string} b */
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/**
 * A warning for each variable that is not a setting but is one or two letters away from one
 * (UPLOAD_DIR for UPLOADS_DIR). Short names (HOME, PWD) are left alone: too many are close to ours.
 * @param {string[]} [names] the environment's variable names
 * @returns {string[]}
 */
export function misspeltSettings(names = Object.keys(process.env)) {
  const known = new Set(SETTING_NAMES);
  /** @type {string[]} */
  const warnings = [];
  for (const name of names) {
    if (known.has(name) || name.length < 6 || !/^[A-Z0-9_]+$/.test(name)) continue;
    const meant = SETTING_NAMES.map((s) => ({ s, d: distance(name, s) }))
      .filter(({ d }) => d <= 2)
      .sort((x, y) => x.d - y.d)[0];
    if (meant) warnings.push(`${name} is not a setting of Sweet Moments and is ignored: did you mean ${meant.s}?`);
  }
  return warnings;
}

/**
 * Whether this user can make and write `dir`: null, or the problem as one line.
 * @param {string} variable @param {string} given @param {string} dir @param {string} what
 */
function folderProblem(variable, given, dir, what) {
  const probe = path.join(dir, `.write-test-${process.pid}`);
  try {
    privateDir(dir);
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
    return null;
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error);
    return `${variable}=${JSON.stringify(given)}: ${what} cannot be written in ${dir} (${code}); give a folder this user may create and write.`;
  }
}

/**
 * Whether PostgreSQL answers at DATABASE_URL: null, or the problem as one line (a closed port, a
 * wrong password, a missing database), before anything else is loaded.
 * @param {string} url
 */
async function databaseProblem(url) {
  const quiet = () => {}; // the failure becomes one line below, not knex's own trace
  const knex = knexFactory({
    ...knexConfig(url),
    acquireConnectionTimeout: 10_000,
    log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
  });
  try {
    await knex.raw("select 1");
    return null;
  } catch (error) {
    return startFailure(error);
  } finally {
    await knex.destroy().catch(() => {});
  }
}

/**
 * Whether HOST:PORT can be listened on: a port another program holds (or one below 1024 without the
 * right) is one line here rather than Node's EADDRINUSE stack from the server (PORT=0 takes a free
 * one and is never a problem). The port is let go at once, before the server takes it.
 * @param {number} port @param {string} host @returns {Promise<string | null>}
 */
export function portProblem(port, host) {
  if (port === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", (/** @type {NodeJS.ErrnoException} */ error) => {
      const why =
        error.code === "EADDRINUSE"
          ? "is in use by another program: stop it, or set PORT to a free port"
          : error.code === "EACCES"
            ? "may not be used by this user (ports below 1024 need privileges): set PORT to 1024 or above"
            : error.code === "EADDRNOTAVAIL"
              ? "cannot be listened on: HOST is not an address of this machine"
              : `cannot be listened on (${error.code ?? error.message})`;
      resolve(`PORT=${port} on HOST=${host} ${why}.`);
    });
    probe.listen(port, host, () => probe.close(() => resolve(null)));
  });
}

/**
 * The checks, without stopping: the problems that stop the start and the warnings that do not.
 * @returns {Promise<{ problems: string[], warnings: string[] }>}
 */
export async function preflight() {
  const warnings = misspeltSettings();
  let cfg;
  try {
    cfg = env();
  } catch (error) {
    return { problems: String(/** @type {Error} */ (error).message).split("\n"), warnings };
  }
  const problems = [];
  if (cfg.databaseUrl) problems.push(await databaseProblem(cfg.databaseUrl));
  else {
    const given = process.env.DATABASE_FILE || "data/sweet-moments.sqlite";
    problems.push(folderProblem("DATABASE_FILE", given, cfg.dataDir, "the database"));
  }
  if (cfg.storage.kind === "disk") {
    // the photos: a storage problem, reported as one before the database is prepared
    problems.push(folderProblem("UPLOADS_DIR", process.env.UPLOADS_DIR || "uploads", cfg.uploadsDir, "the photos"));
  }
  problems.push(await portProblem(cfg.port, cfg.host));
  return { problems: problems.filter((p) => p !== null), warnings };
}

/** Runs the checks: prints the warnings; on a problem prints each and exits with code 1. */
export async function preflightOrExit() {
  const { problems, warnings } = await preflight();
  for (const line of warnings) console.warn(`[settings] ${line}`);
  if (!problems.length) return;
  for (const line of problems) console.error(line.startsWith("[") ? line : `[settings] ${line}`);
  console.error('Sweet Moments did not start: fix what is named above (README, "Configuration").');
  process.exit(1);
}

/** DATABASE_URL without its password. @param {string} url */
function redacted(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "DATABASE_URL";
  }
}

/**
 * One line for an error that stopped the start after the checks (the database unreachable or
 * refusing, a failed migration), never a stack trace.
 * @param {unknown} error
 */
export function startFailure(error) {
  const e = /** @type {{ code?: string, message?: string }} */ (error ?? {});
  const code = e.code ?? "";
  const message = String(e.message ?? error).split("\n")[0];
  let url = null;
  try {
    url = env().databaseUrl;
  } catch {
    // the settings were checked before: nothing to add
  }
  if (url && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ECONNRESET)$/.test(code)) {
    return `[db] PostgreSQL at ${redacted(url)} could not be reached (${code}): is it running, and is DATABASE_URL right?`;
  }
  if (url && /^(28P01|28000|3D000|42501)$/.test(code)) {
    return `[db] PostgreSQL at ${redacted(url)} refused: ${message} (DATABASE_URL)`;
  }
  if (code === "EADDRINUSE")
    return `[settings] PORT: ${(message ?? "").replace(/^listen /, "")}: another program holds the port.`;
  if (/^SQLITE_/.test(code))
    return `[db] the SQLite database could not be opened or migrated: ${message} (DATABASE_FILE)`;
  return `the start failed: ${message || code}`;
}
