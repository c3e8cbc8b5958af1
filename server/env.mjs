// @ts-check
// The one place configuration is read. Used by the server, the migration/seed script and the app
// (through app/lib/config.server.ts), so every entry point sees the same defaults.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isPostgresUrl } from "../db/knexfile.mjs";
import { parseTrustProxy } from "./client-address.mjs";
import { privateDir, privateFile } from "../db/private-files.mjs";

/** @param {string | undefined} v @param {boolean} dflt */
function bool(v, dflt) {
  if (v === undefined || v === "") return dflt;
  return !/^(0|false|off|no)$/i.test(v.trim());
}

/** @param {string | undefined} v @param {number} dflt */
function int(v, dflt) {
  const n = Number.parseInt(v ?? "", 10);
  return Number.isFinite(n) && n >= 0 ? n : dflt;
}

/**
 * The session secret signs the session cookie. When SESSION_SECRET is unset, one is generated on
 * first start and kept in a file beside the database (mode 0600), so sessions survive restarts.
 * @param {string} dataDir
 */
function sessionSecret(dataDir) {
  const fromEnv = process.env.SESSION_SECRET;
  if (fromEnv?.trim()) return fromEnv.trim();
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

/**
 * DATABASE_URL: a postgres:// URL switches the app to PostgreSQL (docs/decisions/0014-postgresql.md);
 * unset, the SQLite file (DATABASE_FILE) is used.
 * @returns {string | null}
 */
function databaseUrl() {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) return null;
  if (!isPostgresUrl(url)) throw new Error("DATABASE_URL must be a postgres:// (or postgresql://) URL");
  return url;
}

/**
 * Where photos are kept (docs/decisions/0015-photo-store.md): the local disk under UPLOADS_DIR
 * (the default), or an S3 bucket. Misconfiguration stops the start with a message that says what
 * to set; the secret is never part of a message.
 * @returns {{ kind: "disk" } | { kind: "s3", bucket: string, prefix: string, endpoint: string | null, region: string, accessKeyId: string | null, secretAccessKey: string | null, forcePathStyle: boolean }}
 */
export function readStorageSettings() {
  const kind = (process.env.STORAGE || "disk").trim().toLowerCase();
  if (kind === "disk") return { kind: "disk" };
  if (kind !== "s3") throw new Error(`STORAGE must be "disk" or "s3", not ${JSON.stringify(process.env.STORAGE)}.`);
  const bucket = (process.env.S3_BUCKET || "").trim();
  if (!bucket) throw new Error("STORAGE=s3 needs S3_BUCKET: the name of the bucket that holds the photos.");
  const accessKeyId = (process.env.S3_ACCESS_KEY_ID || "").trim() || null;
  const secretAccessKey = (process.env.S3_SECRET_ACCESS_KEY || "").trim() || null;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error(
      "STORAGE=s3: set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (then the AWS SDK's own credential chain is used).",
    );
  }
  const endpoint = (process.env.S3_ENDPOINT || "").trim() || null;
  if (endpoint) {
    let url;
    try {
      url = new URL(endpoint);
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol))
      throw new Error(`S3_ENDPOINT must be an http(s) URL, not ${JSON.stringify(endpoint)}.`);
  }
  // an optional folder-like prefix inside the bucket, always ending with "/" when set
  const prefix = (process.env.S3_PREFIX || "").trim().replace(/^\/+|\/+$/g, "");
  return {
    kind: "s3",
    bucket,
    prefix: prefix ? `${prefix}/` : "",
    endpoint,
    region: (process.env.S3_REGION || "").trim() || "us-east-1",
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(process.env.S3_FORCE_PATH_STYLE, false),
  };
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

/** @param {string | undefined} v @param {number} dflt seconds, more than 0 */
function seconds(v, dflt) {
  return int(v, dflt) || dflt;
}

/** @typedef {ReturnType<typeof readEnv>} Env */

export function readEnv() {
  const cwd = process.cwd();
  const databaseFile = path.resolve(cwd, process.env.DATABASE_FILE || "data/sweet-moments.sqlite");
  const uploadsDir = path.resolve(cwd, process.env.UPLOADS_DIR || "uploads");
  const dataDir = path.dirname(databaseFile);
  return {
    port: int(process.env.PORT, 3000),
    host: process.env.HOST || "0.0.0.0",
    /** PostgreSQL connection URL, or null: the SQLite file below. */
    databaseUrl: databaseUrl(),
    databaseFile,
    uploadsDir,
    /** Where photos are kept: disk (under uploadsDir) or an S3 bucket. */
    storage: readStorageSettings(),
    dataDir,
    sessionSecret: sessionSecret(dataDir),
    /**
     * The site's public origin (scheme://host[:port]), or null: then the site is this server on
     * localhost (`siteOrigin`). Every absolute URL the server writes starts with it, never with a
     * request's Host (docs/decisions/0038-the-site-address.md).
     */
    origin: process.env.ORIGIN ? new URL(process.env.ORIGIN).origin : null,
    /** Further host names requests may be addressed to (the site's own always may): ALLOWED_HOSTS. */
    allowedHosts: parseAllowedHosts(process.env.ALLOWED_HOSTS),
    /** A request's line and headers must have arrived this long after its first byte, or the connection is closed. */
    headersTimeoutSeconds: seconds(process.env.HEADERS_TIMEOUT_SECONDS, 20),
    /** The whole request, its body included (an upload), must have arrived this long after its first byte, or the connection is closed. */
    requestTimeoutSeconds: seconds(process.env.REQUEST_TIMEOUT_SECONDS, 120),
    demo: bool(process.env.DEMO, true),
    /** IANA time zone in which "today" is taken for ages and for "no future birth dates". */
    timeZone: process.env.TIME_ZONE || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
    loginMaxFailuresPerAccount: int(process.env.LOGIN_MAX_FAILURES_PER_ACCOUNT, 10),
    loginMaxFailuresPerAddress: int(process.env.LOGIN_MAX_FAILURES_PER_ADDRESS, 100),
    loginWindowMinutes: int(process.env.LOGIN_WINDOW_MINUTES, 15),
    /** Sign-ups (attempts that pass the form's checks) per client address per window. */
    signupMaxPerAddress: int(process.env.SIGNUP_MAX_PER_ADDRESS, 20),
    signupWindowMinutes: int(process.env.SIGNUP_WINDOW_MINUTES, 60),
    /** "Email me a sign-in link" / "Forgot your password?" requests per email address per sign-in-link window. */
    signInLinkMaxPerAccount: int(process.env.SIGN_IN_LINK_MAX_PER_ACCOUNT, 5),
    /** The same requests per client address (over all email addresses) per window. */
    signInLinkMaxPerAddress: int(process.env.SIGN_IN_LINK_MAX_PER_ADDRESS, 30),
    signInLinkWindowMinutes: int(process.env.SIGN_IN_LINK_WINDOW_MINUTES, 15) || 15,
    /** Which proxies' X-Forwarded-For to believe for the client's address (server/client-address.mjs). */
    trustProxy: parseTrustProxy(process.env.TRUST_PROXY),
    /** Total time a write waits for another process's lock before answering 503 (docs/decisions/0017-processes-and-write-transactions.md). */
    writeRetryMs: int(process.env.WRITE_RETRY_MS, 10_000),
    sessionDays: int(process.env.SESSION_DAYS, 30),
    authorName: process.env.AUTHOR_NAME || "The Sweet Moments team",
    repoUrl: process.env.REPO_URL || "https://github.com/sweet-moments/sweet-moments",
    profileUrl: process.env.PROFILE_URL || "https://www.linkedin.com/",
    logRequests: bool(process.env.LOG_REQUESTS, false),
    /** GET /api through server/api-fast-path.mjs; off only to measure it (docs/decisions/0010-api-fast-path.md). */
    apiFastPath: bool(process.env.API_FAST_PATH, true),
    /** smtp:// or smtps:// URL of the mail server; null: messages go to `outboxDir` as .eml files (docs/decisions/0025-mail-queue.md). */
    smtpUrl: (process.env.SMTP_URL || "").trim() || null,
    /** The From of every message. */
    mailFrom: (process.env.MAIL_FROM || "").trim() || "Sweet Moments <no-reply@localhost>",
    /** Where messages are written without SMTP_URL: the "outbox" folder beside the database. */
    outboxDir: path.join(dataDir, "outbox"),
    /** Days an invitation link stays valid. */
    inviteDays: int(process.env.INVITE_DAYS, 14) || 14,
    /** Invitations (and sign-in links for invited friends) one user may create per day. */
    invitesPerDay: int(process.env.INVITES_PER_DAY, 20),
    /** Photos (of moments, kids and profile pictures) one account may upload per hour; the tests' servers raise it. */
    photoUploadsPerHour: int(process.env.PHOTO_UPLOADS_PER_HOUR, 200),
    /** How often each server process looks for due digests (app/mail/digest.server.ts); the e2e tests set 1. */
    digestCheckSeconds: int(process.env.DIGEST_CHECK_SECONDS, 60) || 60,
  };
}

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
