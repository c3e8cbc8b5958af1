// @ts-check
// The one place configuration is read. Used by the server, the migration/seed script and the app
// (through app/lib/config.server.ts), so every entry point sees the same defaults.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isPostgresUrl } from "../db/knexfile.mjs";
import { parseTrustProxy } from "./client-address.mjs";
import { privateDir, privateFile } from "../db/private-files.mjs";
import { z } from "zod";

/**
 * The session secret signs the session cookie. When SESSION_SECRET is unset, one is generated on
 * first use and kept in a file beside the database (mode 0600), so sessions survive restarts.
 * Made only when asked for: a command that never signs a cookie (backup, restore) leaves none behind.
 * @param {string | null} fromEnv @param {string} dataDir
 */
function sessionSecret(fromEnv, dataDir) {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, "session-secret");
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (existing) {
      // one made by an older version under a lax umask
      privateFile(file);
      return existing;
    }
  } catch {
    // not there yet
  }
  privateDir(dataDir);
  const secret = crypto.randomBytes(32).toString("base64url");
  try {
    fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    privateFile(file);
    return secret;
  } catch {
    // another process won the race: use what it wrote
    return fs.readFileSync(file, "utf8").trim();
  }
}

// ---- the settings' vocabulary (zod, docs/decisions/0048-settings-with-zod.md) ------------------
// Every setting is optional; unset or empty means the default. A wrong value (a number that is not
// one, a name the setting does not know) stops the start with one line per wrong setting, naming
// it, what was given and what is accepted. An issue with `params.given` is printed after
// `NAME="given": `; the others name their setting themselves.

const unset = z.string().optional();
/** Text, or `dflt` when unset or empty. @param {string} dflt */
const text = (dflt) => unset.transform((v) => v || dflt);
/** Trimmed text, or null when blank. */
const optionalText = unset.transform((v) => v?.trim() || null);
/**
 * A whole number from `min` to `max`, or `dflt` when unset or empty.
 * @param {number} dflt @param {{ min?: number, max?: number, unsetMeans?: string }} [range]
 */
const count = (dflt, { min = 0, max = Number.MAX_SAFE_INTEGER, unsetMeans = String(dflt) } = {}) =>
  unset.transform((v, ctx) => {
    if (v === undefined || v.trim() === "") return dflt;
    const n = /^\d+$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    ctx.addIssue({
      code: "custom",
      message: `expected a whole number, ${range} (unset: ${unsetMeans})`,
      params: { given: true },
    });
    return z.NEVER;
  });
/** A whole number ≥ 0 where 0 means the default too. @param {number} dflt */
const positive = (dflt) => count(dflt).transform((n) => n || dflt);
/** On unless 0, false, off or no; `dflt` when unset or empty. @param {boolean} dflt */
const flag = (dflt) =>
  unset.transform((v) => (v === undefined || v === "" ? dflt : !/^(0|false|off|no)$/i.test(v.trim())));
/**
 * A setting read by a parser that throws on a wrong value: its message (which names the setting),
 * or `message`, becomes the zod issue.
 * @template T @param {(value: string | undefined) => T} parse @param {string} [message]
 */
const parsedBy = (parse, message) =>
  unset.transform((v, ctx) => {
    try {
      return parse(v);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: message ?? /** @type {Error} */ (error).message });
      return z.NEVER;
    }
  });
/** @param {string} url */
const isHttpUrl = (url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);

/** The photo store's variables, each under its name (see storageSchema). */
const storageShape = {
  STORAGE: unset,
  S3_BUCKET: optionalText,
  S3_ENDPOINT: optionalText,
  S3_REGION: optionalText.transform((v) => v ?? "us-east-1"),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: flag(false),
  // an optional folder-like prefix inside the bucket, always ending with "/" when set
  S3_PREFIX: text("")
    .transform((v) => v.trim().replace(/^\/+|\/+$/g, ""))
    .transform((v) => (v ? `${v}/` : "")),
};

/**
 * Where photos are kept (docs/decisions/0015-photo-store.md): the local disk under UPLOADS_DIR
 * (the default), or an S3 bucket. Misconfiguration stops the start with a message that says what
 * to set; the secret is never part of a message.
 */
const storageSchema = z
  .object(storageShape)
  .superRefine((s, ctx) => {
    const problem = (/** @type {string} */ message) => ctx.addIssue({ code: "custom", message });
    const kind = storageKind(s.STORAGE);
    if (kind === "disk") return;
    if (kind !== "s3") return problem(`STORAGE must be "disk" or "s3", not ${JSON.stringify(s.STORAGE)}.`);
    if (!s.S3_BUCKET) problem("STORAGE=s3 needs S3_BUCKET: the name of the bucket that holds the photos.");
    if (Boolean(s.S3_ACCESS_KEY_ID) !== Boolean(s.S3_SECRET_ACCESS_KEY)) {
      problem(
        "STORAGE=s3: set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (then the AWS SDK's own credential chain is used).",
      );
    }
    if (s.S3_ENDPOINT && !isHttpUrl(s.S3_ENDPOINT)) {
      problem(`S3_ENDPOINT must be an http(s) URL, not ${JSON.stringify(s.S3_ENDPOINT)}.`);
    }
  })
  .transform((s) =>
    storageKind(s.STORAGE) === "disk"
      ? /** @type {const} */ ({ kind: "disk" })
      : /** @type {const} */ ({
          kind: "s3",
          bucket: s.S3_BUCKET ?? "",
          prefix: s.S3_PREFIX,
          endpoint: s.S3_ENDPOINT,
          region: s.S3_REGION,
          accessKeyId: s.S3_ACCESS_KEY_ID,
          secretAccessKey: s.S3_SECRET_ACCESS_KEY,
          forcePathStyle: s.S3_FORCE_PATH_STYLE,
        }),
  );

/** @param {string | undefined} value */
function storageKind(value) {
  return (value || "disk").trim().toLowerCase();
}

/**
 * What stops the start: one line per wrong setting, naming it (our messages name it; the others
 * get `NAME="given": ` in front). A secret's value is never shown.
 * @param {{ error?: z.ZodError }[]} results @param {Record<string, string | undefined>} [given] values by key
 */
function settingsError(results, given = {}) {
  const issues = results.flatMap((r) => r.error?.issues ?? []);
  const lines = issues.map((i) => {
    const key = String(i.path[0] ?? "");
    const name = key === key.toUpperCase() ? key : variable(key);
    const params = i.code === "custom" ? (i.params ?? {}) : { given: true };
    if (!params.given && !params.secret) return i.message;
    if (params.secret) return `${name} (${Buffer.byteLength(given[key] ?? "")} bytes): ${i.message}`;
    return `${name}=${JSON.stringify(given[key] ?? "")}: ${i.message}`;
  });
  return new Error(lines.join("\n"));
}

/** The photo store's settings (see storageSchema). */
export function readStorageSettings() {
  const result = storageSchema.safeParse(process.env);
  if (!result.success) throw settingsError([result], process.env);
  return result.data;
}

/**
 * ALLOWED_HOSTS: the names (or addresses) besides the site's own under which this server answers,
 * comma-separated, as they appear in a browser's address bar without scheme or port
 * (`localhost`, `192.168.1.5`, `[::1]`, `photos.example.org`). Anything else stops the start
 * with a message. docs/decisions/0038-the-site-address.md.
 * @param {string | undefined} value
 * @returns {string[]} host names, lower case
 */
export function parseAllowedHosts(value) {
  /** @type {string[]} */
  const hosts = [];
  for (const part of (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const bracketed = part.includes(":") && !part.startsWith("[") ? `[${part}]` : part;
    let url = null;
    try {
      url = new URL(`http://${bracketed}`);
    } catch {
      url = null;
    }
    if (part === "*") {
      throw new Error(
        "ALLOWED_HOSTS=* would answer for any name (DNS rebinding): list the names this site is reached by (e.g. localhost,192.168.1.5).",
      );
    }
    const extra = url && (url.port || url.username || url.password || url.pathname !== "/" || url.search || url.hash);
    // a name must be written as the URL writes it (no %-escapes, IDNs as xn--); an IPv6 address in any form
    if (!url || extra || (!bracketed.startsWith("[") && url.host !== bracketed.toLowerCase())) {
      throw new Error(
        `ALLOWED_HOSTS: ${JSON.stringify(part)} is not a host name or address; write each one without scheme, port or path (e.g. localhost,192.168.1.5,photos.example.org).`,
      );
    }
    hosts.push(hostName(url.hostname));
  }
  return hosts;
}

/** A host name as compared: lower case, without the trailing dot of a fully qualified name. @param {string} name */
export function hostName(name) {
  return name.toLowerCase().replace(/\.$/, "");
}

/**
 * Every setting but the photo store's (README "Configuration", .env.example). Each key is its
 * variable's name in camelCase: `port` is PORT, `signInLinkMaxPerAccount` SIGN_IN_LINK_MAX_PER_ACCOUNT.
 */
const settingsSchema = z.object({
  port: count(3000, { max: 65535 }),
  /** Server processes (server/supervise.sh): one per core unless set. */
  webConcurrency: count(os.availableParallelism(), { min: 1, unsetMeans: "one per core" }),
  /**
   * The secret that signs session cookies, or null: one is generated and kept beside the database.
   * In production a short one is refused: it could be guessed.
   */
  sessionSecret: optionalText.transform((v, ctx) => {
    if (v && process.env.NODE_ENV === "production" && Buffer.byteLength(v) < 32) {
      ctx.addIssue({
        code: "custom",
        message:
          "in production it must be at least 32 bytes (e.g. the output of `openssl rand -base64 32`), or unset: one is then generated and kept beside the database",
        params: { secret: true },
      });
      return z.NEVER;
    }
    return v;
  }),
  host: text("0.0.0.0"),
  /** PostgreSQL connection URL (docs/decisions/0014-postgresql.md), or null: the SQLite file below. */
  databaseUrl: optionalText.refine((url) => url === null || isPostgresUrl(url), {
    message: "DATABASE_URL must be a postgres:// (or postgresql://) URL",
  }),
  databaseFile: text("data/sweet-moments.sqlite").transform((file) => path.resolve(file)),
  uploadsDir: text("uploads").transform((dir) => path.resolve(dir)),
  /**
   * The site's public origin (scheme://host[:port]), or null: then the site is this server on
   * localhost (`siteOrigin`). Every absolute URL the server writes starts with it, never with a
   * request's Host (docs/decisions/0038-the-site-address.md).
   */
  origin: parsedBy((v) => (v ? new URL(v).origin : null), "ORIGIN must be the site's URL, scheme://host[:port]."),
  /** Further host names requests may be addressed to (the site's own always may): ALLOWED_HOSTS. */
  allowedHosts: parsedBy(parseAllowedHosts),
  /** A request's line and headers must have arrived this long after its first byte, or the connection is closed. */
  headersTimeoutSeconds: positive(20),
  /** The whole request, its body included (an upload), must have arrived this long after its first byte, or the connection is closed. */
  requestTimeoutSeconds: positive(120),
  demo: flag(true),
  /** IANA time zone in which "today" is taken for ages and for "no future birth dates". */
  timeZone: unset.transform((v) => v || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"),
  loginMaxFailuresPerAccount: count(10),
  loginMaxFailuresPerAddress: count(100),
  loginWindowMinutes: count(15),
  /** Passkey sign-in options (each a challenge row) per client address per log-in window (docs/decisions/0055-passkeys.md). */
  passkeyOptionsMaxPerAddress: count(60),
  /** Sign-ups (attempts that pass the form's checks) per client address per window. */
  signupMaxPerAddress: count(20),
  signupWindowMinutes: count(60),
  /** "Email me a sign-in link" / "Forgot your password?" requests per email address per sign-in-link window. */
  signInLinkMaxPerAccount: count(5),
  /** The same requests per client address (over all email addresses) per window. */
  signInLinkMaxPerAddress: count(30),
  signInLinkWindowMinutes: positive(15),
  /** Which proxies' X-Forwarded-For to believe for the client's address (server/client-address.mjs). */
  trustProxy: parsedBy(parseTrustProxy),
  /** Total time a write waits for another process's lock before answering 503 (docs/decisions/0017-processes-and-write-transactions.md). */
  writeRetryMs: count(10_000),
  sessionDays: count(30),
  authorName: text("The Sweet Moments team"),
  repoUrl: text("https://github.com/sweet-moments/sweet-moments"),
  profileUrl: text("https://www.linkedin.com/"),
  logRequests: flag(false),
  /** How the server's log is written: text for a person, json (one object per line) for a log shipper (server/log.mjs). */
  logFormat: unset.transform((v, ctx) => {
    const chosen = (v ?? "").trim().toLowerCase() || "text";
    if (chosen === "text" || chosen === "json") return /** @type {"text" | "json"} */ (chosen);
    ctx.addIssue({ code: "custom", message: 'expected "text" or "json" (unset: text)', params: { given: true } });
    return z.NEVER;
  }),
  /** On SIGTERM, how long requests in flight (an upload) may take to finish before the process exits. */
  shutdownGraceSeconds: count(25, { min: 1 }),
  /** GET /api through server/api-fast-path.mjs; off only to measure it (docs/decisions/0010-api-fast-path.md). */
  apiFastPath: flag(true),
  /** The document's scripts after the first paint; off only to measure it (docs/decisions/0035-slow-networks.md). */
  deferScripts: flag(true),
  /** smtp:// or smtps:// URL of the mail server; null: messages go to `outboxDir` as .eml files (docs/decisions/0025-mail-queue.md). */
  smtpUrl: optionalText,
  /** The From of every message. */
  mailFrom: optionalText.transform((v) => v ?? "Sweet Moments <no-reply@localhost>"),
  /** Days an invitation link stays valid. */
  inviteDays: positive(14),
  /** Invitations (and sign-in links for invited friends) one user may create per day. */
  invitesPerDay: count(20),
  /** Photos (of moments, kids and profile pictures) one account may upload per hour; the tests' servers raise it. */
  photoUploadsPerHour: count(200),
  /** Imports of an export or a Google Takeout album (docs/decisions/0066-imports.md): the largest archive uploaded, in megabytes. */
  importMaxMb: count(1024, { min: 1 }),
  /** The most an archive may unpack to, in megabytes (the sum of its entries' sizes, read before anything is unpacked). */
  importMaxUnpackedMb: count(4096, { min: 1 }),
  /** The most entries an archive may hold. */
  importMaxEntries: count(50_000, { min: 1 }),
  /** The most an entry of over 1 MB may unpack to per byte it takes in the archive (a zip bomb's ratio is in the thousands). */
  importMaxRatio: count(100, { min: 1 }),
  /** Archives one account may import per hour. */
  importsPerHour: count(10),
  /** Files one "Add photos" request (page or POST /api/kids/{id}/imports) may carry (docs/decisions/0065-drafts.md). */
  addPhotosMaxFiles: count(50, { min: 1, max: 500 }),
  /** Days a draft moment is kept after its last change; then it is swept with its photos. */
  draftDays: count(14, { min: 1 }),
  /** Debian's ffmpeg, when it is not on PATH (ffprobe is looked for beside it); without ffmpeg the server takes no clips (docs/decisions/0064-video-clips.md). */
  ffmpegPath: optionalText,
  /** Longest clip accepted, in seconds. */
  videoMaxSeconds: count(180, { min: 1 }),
  /** Largest clip accepted, in megabytes. */
  videoMaxMb: count(500, { min: 1 }),
  /** ffmpeg's threads while it prepares a clip (one clip at a time per machine). */
  videoThreads: count(2, { min: 1 }),
  /** How often each server process looks for clips to prepare. */
  videoCheckSeconds: positive(10),
  /** How often each server process looks for due digests (app/mail/digest.server.ts); the e2e tests set 1. */
  digestCheckSeconds: positive(60),
});

/** `signInLinkMaxPerAccount` → SIGN_IN_LINK_MAX_PER_ACCOUNT. @param {string} key */
const variable = (key) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** @typedef {ReturnType<typeof readEnv>} Env */

export function readEnv() {
  const variables = Object.fromEntries(Object.keys(settingsSchema.shape).map((k) => [k, process.env[variable(k)]]));
  const parsed = settingsSchema.safeParse(variables);
  const storage = storageSchema.safeParse(process.env);
  if (!parsed.success || !storage.success) throw settingsError([parsed, storage], { ...process.env, ...variables });
  const dataDir = path.dirname(parsed.data.databaseFile);
  /** @type {string | undefined} */
  let secret;
  return {
    ...parsed.data,
    /** Where photos are kept: disk (under uploadsDir) or an S3 bucket. */
    storage: storage.data,
    dataDir,
    /** SESSION_SECRET, or the one kept beside the database (made on first use). */
    get sessionSecret() {
      secret ??= sessionSecret(parsed.data.sessionSecret, dataDir);
      return secret;
    },
    /** Where messages are written without SMTP_URL: the "outbox" folder beside the database. */
    outboxDir: path.join(dataDir, "outbox"),
  };
}

/** Every variable the settings read, for spotting a misspelt one (server/preflight.mjs). */
export const SETTING_NAMES = [
  ...Object.keys(settingsSchema.shape).map(variable),
  ...Object.keys(storageShape),
  "SQLITE_BUSY_TIMEOUT_MS",
  "NODE_ENV",
  "BUILD_DIR",
];

/** @type {Env | undefined} */
let cached;
/** @type {number | null} */
let listeningPort = null;

/** The port this process listens on, once it does (PORT=0 takes a free one): part of the site's address without ORIGIN. @param {number} port */
export function noteListeningPort(port) {
  listeningPort = port;
}

/**
 * The site's origin, the start of every absolute URL the server writes (links in mail, in an
 * answer): ORIGIN, or else the address the server prints at start, this server on localhost.
 * Never taken from a request. docs/decisions/0038-the-site-address.md.
 * @param {Env} [config]
 */
export function siteOrigin(config = env()) {
  return config.origin ?? `http://localhost:${listeningPort ?? config.port}`;
}

/**
 * The host names requests may be addressed to: ORIGIN's (or, without it, localhost) and
 * ALLOWED_HOSTS. Any other Host is answered 400 (server/incoming.mjs).
 * @param {Env} [config]
 * @returns {Set<string>}
 */
export function siteHostNames(config = env()) {
  return new Set([hostName(new URL(siteOrigin(config)).hostname), ...config.allowedHosts]);
}
export function env() {
  cached ??= readEnv();
  return cached;
}
/** For tests that change process.env between cases. */
export function resetEnvCache() {
  cached = undefined;
}
