// The bad-input corpus (docs/decisions/0019-*): for every route in app/routes.ts, requests a
// well-behaved client never sends: bad ids, malformed %-encoding, wrong content types,
// null/array/scalar bodies, broken multipart, oversize bodies (by Content-Length and chunked), odd
// methods, bad Host headers, absolute-form and "//host" request-targets; signed out and signed in.
// Against the real server (server/index.mjs on a fresh production build), over raw sockets. Every
// answer must be ours: no 5xx, the security headers, the right envelope (JSON on /api, HTML pages
// elsewhere, the image route's plain text), and nothing written by a refused write.
import crypto from "node:crypto";
import { UPLOAD_LIMITS } from "~/images/limits";
import fs from "node:fs";
import knexFactory, { type Knex } from "knex";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routes from "../../app/routes";
import { databaseTarget, knexConfig } from "../../db/knexfile.mjs";
import { cookieFor } from "../helpers";
import { buildApp, call, startBuiltServer, type BuiltServer, type CallInit } from "./support/built-server";
import { rawRequest, type RawBody, type RawResponse } from "./support/raw-http";

let buildDir = "";
let server: BuiltServer;
let knex: Knex;
let base = "";
let host = "";

type Account = { id: number; email: string; password: string; cookie: string };
let owner: Account; // owns the kid and the moment
let friend: Account; // accepted friend of owner: commented and liked
let stranger: Account; // no friendship with anyone
const ids = { kid: 0, moment: 0, comment: 0, friendship: 0, imageKey: "", imageFile: "" };

// ---- set-up through the public API ----------------------------------------------------------

async function api(path: string, init: CallInit = {}) {
  const res = await call(base, path, init);
  if (res.status >= 300) throw new Error(`${init.method ?? "POST"} ${path}: ${res.status} ${res.text}`);
  return { data: JSON.parse(res.text), cookie: res.cookie };
}

async function signUp(prefix: string): Promise<Account> {
  const tag = crypto.randomBytes(4).toString("hex");
  const account = { email: `${prefix}${tag}@example.com`, username: `${prefix}${tag}`, password: "secret12" };
  const { data, cookie } = await api("/api/auth/signup", {
    json: { ...account, first_name: "Corpus", last_name: prefix },
  });
  return { id: data.id, email: account.email, password: account.password, cookie };
}

/** A new session for `who` (for requests that may end the one they carry), straight in the database. */
function freshCookie(who: Account): Promise<string> {
  return cookieFor(who);
}

async function rowCounts(): Promise<string> {
  const tables = ["users", "kids", "daily_logs", "likes", "comments", "friendships", "images"];
  const result = await knex.raw(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`);
  // SQLite answers the rows, PostgreSQL `{ rows }`
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return JSON.stringify(rows[0]);
}

beforeAll(async () => {
  buildDir = await buildApp();
  server = await startBuiltServer(buildDir);
  host = `127.0.0.1:${server.port}`;
  base = `http://${host}`;
  knex = knexFactory(knexConfig(databaseTarget()));
  await findPlainTextRoutes();

  owner = await signUp("owner");
  friend = await signUp("friend");
  stranger = await signUp("stranger");
  ids.kid = (
    await api("/api/kids/new", {
      cookie: owner.cookie,
      form: { name: "Corpus Kid", birth_date: "2020-01-02", relationship: "Mom" },
    })
  ).data.id;
  const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3a6" } })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.set("title", "Corpus moment");
  form.set("content", "For the corpus");
  form.set("image", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "photo.jpg");
  const moment = (await api(`/api/kids/${ids.kid}/daily_logs/new`, { cookie: owner.cookie, form })).data;
  ids.moment = moment.id;
  const [, key, file] = /^\/images\/([^/]+)\/([^/]+)$/.exec(moment.image_url)!;
  ids.imageKey = key!;
  ids.imageFile = file!;
  ids.friendship = (
    await api("/api/friendships/new", { cookie: owner.cookie, json: { friend_id: friend.id } })
  ).data.id;
  await api(`/api/friendships/${ids.friendship}/update`, {
    method: "PUT",
    cookie: friend.cookie,
    json: { status: "accepted" },
  });
  ids.comment = (
    await api(`/api/comments/${ids.moment}/new-comment`, { cookie: friend.cookie, json: { comment: "Lovely" } })
  ).data.id;
  await api(`/api/likes/${ids.moment}/like`, { method: "POST", cookie: friend.cookie });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await knex?.destroy();
});

// ---- the corpus --------------------------------------------------------------------------

type Auth = "signed-out" | "stranger" | "owner";
type Case = {
  auth: Auth;
  method: string;
  target: string;
  /** Header lines besides Host and Cookie; `host: null` sends no Host at all. */
  headers?: [string, string][];
  host?: string | null;
  hostTwice?: boolean;
  body?: RawBody;
  label: string;
  /** A request that may end its session gets a session of its own. */
  ownSession?: boolean;
  /** The route answering it has no page (log out): plain text is fine too. */
  plainText?: boolean;
};

type RouteEntry = { path: string; file: string };

function flatten(
  entries: readonly { path?: string; index?: boolean; file: string; children?: unknown }[],
  prefix = "",
): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const entry of entries) {
    const path = [prefix, entry.path ?? ""].filter(Boolean).join("/");
    if (entry.path !== undefined || entry.index) out.push({ path, file: entry.file });
    if (Array.isArray(entry.children)) out.push(...flatten(entry.children, path));
  }
  return out;
}

/** Route files without a component outside /api and the image route (log out): plain text is their envelope. */
const plainTextRoutes = new Set<string>();
async function findPlainTextRoutes() {
  for (const { path, file } of flatten(routes)) {
    if (path.startsWith("api") || path.startsWith("images/")) continue;
    const module = await import(/* @vite-ignore */ `../../app/${file}`);
    if (typeof module.default !== "function") plainTextRoutes.add(path);
  }
}

const BAD_IDS = ["0", "-1", "abc", "1e3", "99999999999999999999", "%ZZ", "%", "%E0%A4%A", "%00", "9".repeat(300)];

function goodValue(pattern: string, param: string): string {
  if (param === "kidId") return String(ids.kid);
  if (param === "momentId") return String(ids.moment);
  if (param === "commentId") return String(ids.comment);
  if (param === "key") return ids.imageKey;
  if (param === "file") return ids.imageFile;
  if (param === "*") return pattern.startsWith("api/") ? "nothing-here" : "no-such-page";
  if (pattern.startsWith("api/kids/")) return String(ids.kid);
  if (pattern.startsWith("api/daily_logs/")) return String(ids.moment);
  if (pattern.startsWith("api/friendships/")) return String(ids.friendship);
  return "1";
}

/** The route's path with its parameters filled in; `bad` replaces one parameter. */
function fill(pattern: string, bad?: { param: string; value: string }): string {
  const segments = pattern
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = segment.startsWith(":") ? segment.slice(1) : segment === "*" ? "*" : null;
      if (!param) return segment;
      return bad && bad.param === param ? bad.value : goodValue(pattern, param);
    });
  return "/" + segments.join("/");
}

const json = (text: string): RawBody => ({ kind: "bytes", data: Buffer.from(text) });
const BROKEN_MULTIPART = Buffer.from('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xy');
const WRONG_TYPES = JSON.stringify(
  Object.fromEntries(
    [
      "email",
      "password",
      "username",
      "name",
      "birth_date",
      "relationship",
      "title",
      "content",
      "comment",
      "status",
      "friend_id",
      "intent",
      "query",
      "friendId",
      "friendshipId",
    ].map((name, i) => [name, i % 2 ? [] : { nested: null }]),
  ),
);

type BodyCase = { name: string; type: string | null; body: RawBody };
const BODIES: BodyCase[] = [
  { name: "no body", type: null, body: { kind: "none" } },
  { name: "json null", type: "application/json", body: json("null") },
  { name: "json array", type: "application/json", body: json("[]") },
  { name: "json number", type: "application/json", body: json("42") },
  { name: "json string", type: "application/json", body: json('"x"') },
  { name: "json broken", type: "application/json", body: json('{"email":') },
  { name: "json wrong types", type: "application/json", body: json(WRONG_TYPES) },
  { name: "text/plain null", type: "text/plain", body: json("null") },
  { name: "untyped null", type: null, body: json("null") },
  {
    name: "urlencoded garbage",
    type: "application/x-www-form-urlencoded",
    body: json("%ZZ=%%&&=&a=%E0%A4%A&intent=%00"),
  },
  {
    name: "broken multipart",
    type: "multipart/form-data; boundary=xyz",
    body: { kind: "bytes", data: BROKEN_MULTIPART },
  },
  { name: "multipart without boundary", type: "multipart/form-data", body: { kind: "bytes", data: BROKEN_MULTIPART } },
  { name: "octet-stream", type: "application/octet-stream", body: { kind: "bytes", data: crypto.randomBytes(300) } },
];
const FEW_BODIES = BODIES.filter((b) =>
  ["no body", "json null", "text/plain null", "broken multipart"].includes(b.name),
);

const ONE_MB = 1024 * 1024;
const overUrlencoded = Buffer.from("a=" + "x".repeat(ONE_MB));
const overJson = Buffer.from(JSON.stringify({ comment: "x".repeat(ONE_MB) }));
function overMultipart(bytes: number): Buffer {
  const head = Buffer.from(
    '--xyz\r\nContent-Disposition: form-data; name="image"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n',
  );
  const tail = Buffer.from('\r\n--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nafter\r\n--xyz--\r\n');
  return Buffer.concat([head, Buffer.alloc(bytes), tail]);
}
/** Routes that take a photo (and /login, a plain form held to 1 MB whatever its type): the big multipart bodies go here only. */
const BIG_MULTIPART_ROUTES = new Set([
  "login",
  "kids/add-new",
  "kids/:kidId/update",
  "kids/:kidId/dailyLogs/new",
  "dailyLogs/:momentId/update",
  "profile/picture",
  "api/users/upload-profile-picture",
  "api/kids/new",
  "api/kids/:kidId/daily_logs/new",
]);

const BAD_HOSTS = [
  "exa mple.example",
  "[::1",
  "example.example:99999",
  "",
  "user@evil.example",
  "evil.example/x",
  "évil.example",
];

function corpus(): Case[] {
  const cases: Case[] = [];
  const entries = flatten(routes);
  const logout = (path: string) => /(^|\/)logout$/.test(path);

  for (const { path: pattern } of entries) {
    const good = fill(pattern);
    const plainText = plainTextRoutes.has(pattern);
    const add = (c: Case) => cases.push({ ...c, plainText: plainText && pathOf(c.target) === good });
    const params = pattern
      .split("/")
      .filter((s) => s.startsWith(":") || s === "*")
      .map((s) => (s === "*" ? "*" : s.slice(1)));
    const badPaths = params.flatMap((param) => BAD_IDS.map((value) => fill(pattern, { param, value })));
    const encoded = [
      good + "%",
      good.replace(/\/?$/, "/%ZZ"),
      "/%ZZ" + good,
      good + "/%C0%AF..%C0%AF",
      good + "?redirectTo=%E0%A4%A&limit=-1&before=%ZZ&query=%00&modal=%&confirm=%ZZ",
    ];
    const ownSession = logout(pattern);

    // reads
    for (const target of [good, ...encoded]) {
      for (const auth of ["signed-out", "stranger"] as const)
        add({ auth, method: "GET", target, label: "get", ownSession });
    }
    for (const target of badPaths) add({ auth: "stranger", method: "GET", target, label: "get bad id", ownSession });
    for (const auth of ["signed-out", "stranger"] as const)
      add({ auth, method: "HEAD", target: good, label: "head", ownSession });

    // writes with bad bodies
    const writeAuths = (method: string): Auth[] => {
      const auths: Auth[] = ["signed-out", "stranger"];
      // the owner's own objects: everything but what succeeds without a body (no /api route takes PATCH)
      if ((method === "POST" || method === "PUT") && !ownSession && !/like$|unlike$/.test(pattern)) auths.push("owner");
      return auths;
    };
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const body of method === "POST" ? BODIES : FEW_BODIES) {
        for (const auth of writeAuths(method)) {
          add({
            auth,
            method,
            target: good,
            headers: body.type ? [["Content-Type", body.type]] : [],
            body: body.body.kind === "bytes" ? { kind: "bytes", data: body.body.data } : body.body,
            label: body.name,
            ownSession,
          });
        }
      }
    }
    for (const target of badPaths.filter((_, i) => i % 5 === 2)) {
      for (const body of FEW_BODIES) {
        for (const auth of ["signed-out", "stranger"] as const) {
          add({
            auth,
            method: "POST",
            target,
            headers: body.type ? [["Content-Type", body.type]] : [],
            body: body.body,
            label: `bad id, ${body.name}`,
            ownSession,
          });
        }
      }
    }

    // odd methods (node's parser refuses some of them itself: "FOO", lower case)
    for (const method of ["OPTIONS", "TRACE", "TRACK", "PROPFIND", "CONNECT", "FOO", "get"]) {
      add({ auth: "signed-out", method, target: good, label: "odd method" });
    }
    add({ auth: "stranger", method: "TRACE", target: good, label: "odd method", ownSession });

    // bad Host headers, request-targets that name another host
    for (const bad of BAD_HOSTS)
      add({ auth: "signed-out", method: "GET", target: good, host: bad, label: `host ${JSON.stringify(bad)}` });
    add({ auth: "signed-out", method: "GET", target: good, host: null, label: "no host" });
    add({ auth: "signed-out", method: "GET", target: good, hostTwice: true, label: "two hosts" });
    const attacker: [string, string][] = [
      ["Origin", "http://attacker.example"],
      ["Content-Type", "application/x-www-form-urlencoded"],
    ];
    // a well-formed Host the site does not answer for (docs/decisions/0038-the-site-address.md)
    add({ auth: "signed-out", method: "GET", target: good, host: "attacker.example", label: "host not the site's" });
    add({
      auth: "stranger",
      method: "POST",
      target: good,
      host: "attacker.example",
      headers: attacker,
      body: json("a=1"),
      label: "host not the site's, post",
      ownSession,
    });
    for (const target of [`http://attacker.example${good}`, `//attacker.example${good}`]) {
      add({ auth: "signed-out", method: "GET", target, label: "other host in target" });
      add({
        auth: "stranger",
        method: "POST",
        target,
        headers: attacker,
        body: json("a=1"),
        label: "other host in target, cross-site",
        ownSession,
      });
    }
    for (const origin of ["http://[bad", "null", "http://attacker.example"]) {
      add({
        auth: "stranger",
        method: "POST",
        target: good,
        headers: [
          ["Origin", origin],
          ["Content-Type", "application/x-www-form-urlencoded"],
        ],
        body: json("a=1"),
        label: `origin ${origin}`,
        ownSession,
      });
    }

    // oversize bodies
    const form: [string, string][] = [["Content-Type", "application/x-www-form-urlencoded"]];
    for (const auth of ["signed-out", "stranger"] as const) {
      add({
        auth,
        method: "POST",
        target: good,
        headers: [...form, ["Content-Length", String(overUrlencoded.length)]],
        body: { kind: "bytes", data: overUrlencoded },
        label: "urlencoded over 1 MB",
        ownSession,
      });
      add({
        auth,
        method: "POST",
        target: good,
        headers: form,
        body: { kind: "chunked", data: overUrlencoded },
        label: "urlencoded over 1 MB, chunked",
        ownSession,
      });
      add({
        auth,
        method: "POST",
        target: good,
        headers: [["Content-Type", "application/json"]],
        body: { kind: "chunked", data: overJson },
        label: "json over 1 MB, chunked",
        ownSession,
      });
    }
    add({
      auth: "signed-out",
      method: "POST",
      target: good,
      headers: [...form, ["Content-Length", String(10 * 1024 ** 3)]],
      label: "10 GB announced, never sent",
    });
    if (BIG_MULTIPART_ROUTES.has(pattern)) {
      // past the multipart limit (the photos of a moment together: app/images/limits.ts)
      const big = overMultipart(UPLOAD_LIMITS.maxBodyBytes + ONE_MB);
      const type: [string, string] = ["Content-Type", "multipart/form-data; boundary=xyz"];
      add({
        auth: "owner",
        method: "POST",
        target: good,
        headers: [type],
        body: { kind: "chunked", data: big, chunkSize: 256 * 1024 },
        label: "multipart 65 MB, chunked",
      });
      add({
        auth: "owner",
        method: "POST",
        target: good,
        headers: [type, ["Content-Length", String(big.length)]],
        body: { kind: "bytes", data: big },
        label: "multipart 65 MB",
      });
      add({
        auth: "signed-out",
        method: "POST",
        target: good,
        headers: [type, ["Content-Length", String(300 * ONE_MB)]],
        label: "multipart 300 MB announced, never sent",
      });
    }
  }
  return cases;
}

// ---- checking one answer ------------------------------------------------------------------

function pathOf(target: string): string {
  if (/^https?:\/\//i.test(target)) return new URL(target).pathname;
  return target.split("?")[0]!;
}

function problems(c: Case, res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`status ${res.status}`);
  if (!res.headers["content-security-policy"]) out.push("no Content-Security-Policy");
  if (res.headers["x-content-type-options"] !== "nosniff") out.push("no X-Content-Type-Options");
  const path = pathOf(c.target).toLowerCase();
  const type = res.headers["content-type"] ?? "";
  const hasBody = c.method.toUpperCase() !== "HEAD" && res.status !== 204 && res.status !== 304;
  if (path === "/api" || path.startsWith("/api/")) {
    if (res.status >= 300 && res.status < 400) out.push(`redirect from /api (${res.headers.location})`);
    const download = path === "/api/export" && res.status === 200 && type === "application/zip"; // the export's ZIP
    if (!type.startsWith("application/json") && !download) out.push(`content-type ${JSON.stringify(type)} on /api`);
    else if (download) {
      // a ZIP, not JSON
    } else if (hasBody) {
      try {
        const body = JSON.parse(res.body.toString("utf8"));
        if (res.status >= 400 && !isErrorEnvelope(body))
          out.push(`not an error envelope: ${res.body.toString("utf8").slice(0, 120)}`);
      } catch {
        out.push("body is not JSON");
      }
    }
  } else if (/^\/(images|videos)\/[^/]+\/[^/]+\/?$/.test(path)) {
    // a photo or a clip's file (docs/decisions/0064-video-clips.md): its bytes, or the plain 404
    if (
      res.status === 200
        ? !/^(image\/webp|image\/jpeg|video\/mp4|text\/vtt)/.test(type)
        : !type.startsWith("text/plain")
    )
      out.push(`content-type ${JSON.stringify(type)} on the image route`);
  } else if (res.status >= 300 && res.status < 400) {
    if (!res.headers.location) out.push("redirect without Location");
  } else if (hasBody) {
    // (a HEAD answer of a page carries no Content-Type)
    if (c.plainText && (type.startsWith("text/plain") || (type === "application/zip" && res.status === 200))) {
      // a resource route's own envelope (or its download: the export's ZIP)
    } else if (!type.startsWith("text/html")) out.push(`content-type ${JSON.stringify(type)} on a page`);
    else if (!res.body.includes("<html")) out.push("not an HTML page");
  }
  if (/ [MG]B\b/.test(c.label) && res.status < 300) out.push("an oversize body was accepted");
  if (c.label.startsWith("host not the site's") && res.status !== 400)
    out.push(`status ${res.status} for a Host the site does not answer for`);
  return out;
}

/** The contract's envelopes: (A) bare field errors, (B)/(C) `errors`, (C') `error`. */
function isErrorEnvelope(body: unknown): boolean {
  if (!body || typeof body !== "object" || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  if (record.errors && typeof record.errors === "object") return true;
  if (record.error && typeof record.error === "object") return true;
  const values = Object.values(record);
  return values.length > 0 && values.every((v) => Array.isArray(v) && v.every((m) => typeof m === "string"));
}

async function send(c: Case): Promise<RawResponse> {
  const headers: [string, string][] = [];
  if (c.host !== null) headers.push(["Host", c.host ?? host]);
  if (c.hostTwice) headers.push(["Host", "attacker.example"]);
  let cookie = "";
  if (c.auth !== "signed-out") {
    const who = c.auth === "owner" ? owner : stranger;
    cookie = c.ownSession ? await freshCookie(who) : who.cookie;
  }
  if (cookie) headers.push(["Cookie", cookie]);
  headers.push(...(c.headers ?? []));
  const body = c.body ?? { kind: "none" };
  if (body.kind === "bytes" && !headers.some(([n]) => n.toLowerCase() === "content-length")) {
    headers.push(["Content-Length", String(body.data.length)]);
  }
  return rawRequest(server.port, {
    method: c.method,
    target: c.target,
    headers,
    body,
    expectNoBody: c.method === "HEAD",
  });
}

describe("the bad-input corpus", () => {
  it("answers every request with a 4xx (or the page) of ours: no 5xx, security headers, the right envelope, nothing written", async () => {
    const cases = corpus();
    const failures: string[] = [];
    let serverErrors = 0;
    for (const c of cases) {
      const writes = !["GET", "HEAD"].includes(c.method);
      const before = writes ? await rowCounts() : "";
      let res: RawResponse;
      try {
        res = await send(c);
      } catch (error) {
        failures.push(`${c.auth} ${c.method} ${c.target.slice(0, 120)} [${c.label}]: ${(error as Error).message}`);
        continue;
      }
      if (res.status >= 500) serverErrors += 1;
      const found = problems(c, res);
      if (writes) {
        const after = await rowCounts();
        if (after !== before) found.push(`rows changed: ${before} -> ${after}`);
      }
      if (found.length)
        failures.push(
          `${c.auth} ${c.method} ${c.target.slice(0, 120)} [${c.label}] -> ${res.status}: ${found.join("; ")}`,
        );
    }
    // CORPUS_REPORT=<file> writes every problem there (the assertion below shows the first 60)
    if (process.env.CORPUS_REPORT) fs.writeFileSync(process.env.CORPUS_REPORT, failures.join("\n") + "\n");
    console.log(
      `bad-input corpus: ${cases.length} requests, ${serverErrors} answered 5xx, ${failures.length} with problems`,
    );
    expect(failures.slice(0, 60), `${failures.length} problems`).toEqual([]);

    // rejected requests are logged one line each, rate-limited, never with a stack
    const lines = server.errorLines();
    if (process.env.CORPUS_REPORT) fs.writeFileSync(`${process.env.CORPUS_REPORT}.log`, lines.join("\n") + "\n");
    expect(lines.filter((line) => /^\s+at /.test(line)).slice(0, 5)).toEqual([]);
    expect(lines.length).toBeLessThan(200);
  }, 600_000);
});

// ---- the refusals one by one, with their exact answers ------------------------------------

describe("refusals, one by one", () => {
  const raw = (method: string, target: string, headers: [string, string][] = [], body?: RawBody) => {
    const all: [string, string][] = [["Host", host], ...headers];
    if (body?.kind === "bytes") all.push(["Content-Length", String(body.data.length)]);
    return rawRequest(server.port, { method, target, headers: all, body, expectNoBody: method === "HEAD" });
  };
  const text = (res: RawResponse) => res.body.toString("utf8");
  const jsonBody = (value: unknown): RawBody => ({ kind: "bytes", data: Buffer.from(JSON.stringify(value)) });
  const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];
  const FORM_TYPE: [string, string] = ["Content-Type", "application/x-www-form-urlencoded"];

  it("a request-target naming another host is a path of this server: no log-in from another site", async () => {
    const credentials = jsonBody({ email: stranger.email, password: stranger.password });
    for (const target of ["//attacker.example/api/auth/login", "http://attacker.example/api/auth/login"]) {
      const res = await raw("POST", target, [["Origin", "http://attacker.example"], JSON_TYPE], credentials);
      expect(res.status, target).toBe(403);
      expect(res.cookies, target).toEqual([]);
    }
    const absolute = await raw(
      "POST",
      "http://attacker.example/api/auth/login",
      [["Origin", "http://attacker.example"], JSON_TYPE],
      credentials,
    );
    expect(JSON.parse(text(absolute))).toEqual({ errors: { message: "Cross-site request refused" } });
    // from our own origin the same request signs in
    const ours = await raw("POST", "/api/auth/login", [["Origin", base], JSON_TYPE], credentials);
    expect(ours.status).toBe(200);
    expect(ours.cookies).toHaveLength(1);
  });

  it("a cross-site form post gets the contract's 403 as a page, not React Router's 400", async () => {
    for (const headers of [
      [["Origin", "http://attacker.example"]],
      [["Sec-Fetch-Site", "cross-site"]],
      [["Origin", "http://[bad"]],
    ] as [string, string][][]) {
      const res = await raw(
        "POST",
        "/login",
        [...headers, FORM_TYPE],
        json(`email=${encodeURIComponent(stranger.email)}&password=secret12`),
      );
      expect(res.status).toBe(403);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(text(res)).toContain("Cross-site request refused");
      expect(res.cookies).toEqual([]);
    }
  });

  it("GET /api/auth/logout from another site is refused; from ours it logs out", async () => {
    const cookie = await freshCookie(stranger);
    const refused = await raw("GET", "/api/auth/logout", [
      ["Cookie", cookie],
      ["Sec-Fetch-Site", "cross-site"],
      ["Sec-Fetch-Mode", "navigate"],
    ]);
    expect(refused.status).toBe(403);
    expect(JSON.parse(text(refused))).toEqual({ errors: { message: "Cross-site request refused" } });
    expect((await raw("GET", "/api/auth/", [["Cookie", cookie]])).status).toBe(200);

    const done = await raw("GET", "/api/auth/logout", [
      ["Cookie", cookie],
      ["Sec-Fetch-Site", "same-origin"],
    ]);
    expect(done.status).toBe(200);
    expect(JSON.parse(text(done))).toEqual({ message: "User logged out" });
    expect((await raw("GET", "/api/auth/", [["Cookie", cookie]])).status).toBe(401);
  });

  it("signed-in pages and personal JSON are no-store, conditional pages no-cache with an ETag; signed-out pages no-cache; photos keep their caching", async () => {
    const cookie: [string, string] = ["Cookie", owner.cookie];
    for (const path of ["/my-kids-list", "/my-kids-list.data", "/login", "/api/kids/current"]) {
      const res = await raw("GET", path, [cookie]);
      expect(res.headers["cache-control"], path).toBe("private, no-store");
    }
    // revisits for free (docs/decisions/0034-conditional-pages.md): kept by the browser only, asked for each time
    // (a client navigation to one of them too)
    for (const path of [
      `/dailyLogs/${ids.moment}`,
      `/dailyLogs/${ids.moment}.data`,
      `/kids/${ids.kid}/dailyLogs`,
      "/feed",
    ]) {
      const res = await raw("GET", path, [cookie]);
      expect([res.status, res.headers["cache-control"]], path).toEqual([200, "private, no-cache"]);
      expect(res.headers["etag"], path).toMatch(/^W\/"/);
    }
    expect((await raw("GET", "/")).headers["cache-control"]).toBe("private, no-cache");
    const photo = await raw("GET", `/images/${ids.imageKey}/${ids.imageFile}`, [cookie]);
    expect(photo.status).toBe(200);
    expect(photo.headers["cache-control"]).toBe("private, max-age=31536000, immutable");
  });

  it("bodies stop at their limit whatever the framing; a too-big photo is still named on its form", async () => {
    const overChunked: RawBody = { kind: "chunked", data: overUrlencoded };
    const page = await raw("POST", "/login", [FORM_TYPE], overChunked);
    expect(page.status).toBe(413);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(text(page)).toContain("That was too much to send");

    const announced = await raw("POST", "/login", [FORM_TYPE, ["Content-Length", String(300 * ONE_MB)]]);
    expect(announced.status).toBe(413);

    const api = await raw("POST", "/api/auth/login", [JSON_TYPE], { kind: "chunked", data: overJson });
    expect(api.status).toBe(413);
    expect(JSON.parse(text(api))).toEqual({ errors: { message: "Request body is too large." } });

    const multipart: [string, string] = ["Content-Type", "multipart/form-data; boundary=xyz"];
    // a form without a photo takes 1 MB whatever its type: a 2 MB multipart log-in is 413, chunked or announced
    const twoMb = overMultipart(2 * ONE_MB);
    for (const body of [
      { kind: "chunked", data: twoMb, chunkSize: 256 * 1024 },
      { kind: "bytes", data: twoMb }, // with its Content-Length
    ] as RawBody[]) {
      const login = await raw("POST", "/login", [multipart], body);
      expect([login.status, login.headers["content-type"]], body.kind).toEqual([
        413,
        expect.stringMatching(/^text\/html/),
      ]);
      expect(text(login)).toContain("That was too much to send");
      const apiLogin = await raw("POST", "/api/auth/login", [multipart], body);
      expect([apiLogin.status, JSON.parse(text(apiLogin))]).toEqual([
        413,
        { errors: { message: "Request body is too large." } },
      ]);
    }

    const big: RawBody = { kind: "chunked", data: overMultipart(17 * ONE_MB), chunkSize: 256 * 1024 };
    const upload = await raw("POST", "/api/users/upload-profile-picture", [["Cookie", owner.cookie], multipart], big);
    expect(upload.status).toBe(400);
    expect(JSON.parse(text(upload))).toEqual({ errors: { image: ["Image must be 15 MB or smaller."] } });
    const form = await raw("POST", "/kids/add-new", [["Cookie", owner.cookie], multipart], big);
    expect(form.status).toBe(400);
    expect(text(form)).toContain("Image must be 15 MB or smaller.");
  }, 120_000);

  it("a form action sent something else than a form, a method a path does not take, a bad Host or id", async () => {
    const jsonToForm = await raw("POST", "/login", [JSON_TYPE], jsonBody({ email: "a@b.c", password: "secret12" }));
    expect(jsonToForm.status).toBe(415);
    expect(text(jsonToForm)).toContain("it must be sent as a web form");
    const broken = await raw("POST", "/login", [["Content-Type", "multipart/form-data; boundary=xyz"]], {
      kind: "bytes",
      data: BROKEN_MULTIPART,
    });
    expect(broken.status).toBe(400);
    expect(broken.headers["content-type"]).toMatch(/^text\/html/);

    const put = await raw("PUT", "/login", [FORM_TYPE], json("a=1"));
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe("GET, HEAD, POST");
    const trace = await raw("TRACE", "/my-kids-list");
    expect(trace.status).toBe(405);
    expect(trace.headers["content-type"]).toMatch(/^text\/html/);
    const apiTrace = await raw("TRACE", "/api/kids/current", [["Cookie", owner.cookie]]);
    expect([apiTrace.status, JSON.parse(text(apiTrace))]).toEqual([404, { errors: { message: "Not found" } }]);
    expect((await raw("TRACE", "/api/kids/current")).status).toBe(401);

    const nullBody = await raw("POST", "/api/auth/login", [["Content-Type", "text/plain"]], json("null"));
    expect([nullBody.status, JSON.parse(text(nullBody))]).toEqual([
      400,
      { errors: { message: "The request body could not be read." } },
    ]);

    const badHost = await rawRequest(server.port, {
      method: "GET",
      target: "/",
      headers: [["Host", "exa mple.example"]],
    });
    expect(badHost.status).toBe(400);
    expect(badHost.headers["content-security-policy"]).toBeTruthy();
    const badId = await raw("GET", "/kids/%ZZ/update", [["Cookie", owner.cookie]]);
    expect(badId.status).toBe(404);
    expect(text(badId)).toContain("Page not found");
  });
});
