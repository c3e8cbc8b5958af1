// A passkey ceremony across server processes (docs/decisions/0055-passkeys.md): two real servers
// (server/index.mjs on a fresh build) on one database, the same site (ORIGIN) as a load balancer
// would put them behind. Options from one process are answered at the other, each challenge once
// whichever process takes it, and the limit on sign-ins begun is one count for both. On SQLite (the
// default) and on PostgreSQL with TEST_DATABASE_URL. The answers are real WebAuthn answers from
// tests/soft-authenticator.ts, verified by the real library.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoftAuthenticator } from "../soft-authenticator";
import { buildApp, call, startBuiltServer, type BuiltServer } from "./support/built-server";

// the site both processes serve; requests reach each at 127.0.0.1 (ALLOWED_HOSTS)
const SITE = "http://localhost:4987";
const OPTIONS_MAX = 12;
const servers: BuiltServer[] = [];
let a = "";
let b = "";

beforeAll(async () => {
  const buildDir = await buildApp();
  const env = { ORIGIN: SITE, PASSKEY_OPTIONS_MAX_PER_ADDRESS: String(OPTIONS_MAX) };
  servers.push(await startBuiltServer(buildDir, env), await startBuiltServer(buildDir, env));
  [a, b] = servers.map((s) => `http://127.0.0.1:${s.port}`) as [string, string];
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

let optionsAsked = 0;

/** POST /api/auth/passkey/options at `base`, with the browser's sm_passkey cookie if it has one. */
async function begin(base: string, cookie = "") {
  optionsAsked++;
  const res = await call(base, "/api/auth/passkey/options", { json: {}, cookie });
  expect(res.status).toBe(200);
  return { options: JSON.parse(res.text).options as { challenge: string }, cookie: res.cookie || cookie };
}

function answer(base: string, cookie: string, response: unknown) {
  return call(base, "/api/auth/passkey", { json: { response }, cookie });
}

describe("a passkey across two server processes on one database", () => {
  const authenticator = new SoftAuthenticator(SITE);
  let userId = 0;

  it("is made with options from one process and saved by the other", async () => {
    const tag = crypto.randomBytes(4).toString("hex");
    const signedUp = await call(a, "/api/auth/signup", {
      json: { email: `pk${tag}@example.com`, username: `pk${tag}`, password: "secret12" },
    });
    expect(signedUp.status).toBe(200);
    userId = JSON.parse(signedUp.text).id;
    const asked = await call(a, "/api/users/current/passkeys/options", { json: {}, cookie: signedUp.cookie });
    expect(asked.status).toBe(200);
    const { options } = JSON.parse(asked.text) as { options: { challenge: string; rp: { id: string } } };
    expect(options.rp.id).toBe("localhost");
    const saved = await call(b, "/api/users/current/passkeys", {
      json: { response: authenticator.register(options), name: "Phone" },
      cookie: signedUp.cookie,
    });
    expect([saved.status, JSON.parse(saved.text).name]).toEqual([201, "Phone"]);
  });

  it("signs in with options from one process and the answer at the other, to a session both know", async () => {
    const started = await begin(b);
    const response = authenticator.signIn(started.options);
    const signedIn = await answer(a, started.cookie, response);
    expect(signedIn.status).toBe(200);
    expect(JSON.parse(signedIn.text).id).toBe(userId);
    const session = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith("sm_session="))!
      .split(";")[0]!;
    const me = await call(b, "/api/users/current", { cookie: session });
    expect([me.status, JSON.parse(me.text).id]).toEqual([200, userId]);
    // the answer again, at the process that did not take it: its challenge is gone for both
    const replayed = await answer(b, started.cookie, response);
    expect([replayed.status, replayed.text]).toEqual([
      401,
      JSON.stringify({ passkey: ["That took too long. Try again."] }),
    ]);
  });

  it("lets one copy of an answer sent to both processes at once sign in, never both", async () => {
    const started = await begin(a);
    const response = authenticator.signIn(started.options);
    const answers = await Promise.all([answer(a, started.cookie, response), answer(b, started.cookie, response)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it("takes each of one browser's waiting sign-ins (autofill's and the button's) at whichever process it reaches", async () => {
    const autofill = await begin(a);
    const button = await begin(b, autofill.cookie);
    expect(button.cookie).toBe(autofill.cookie);
    expect((await answer(a, button.cookie, authenticator.signIn(button.options))).status).toBe(200);
    expect((await answer(b, autofill.cookie, authenticator.signIn(autofill.options))).status).toBe(200);
  });

  it("counts sign-ins begun at both processes against one limit per address", async () => {
    const statuses: number[] = [];
    for (let i = optionsAsked; i <= OPTIONS_MAX; i++) {
      const res = await call(i % 2 ? a : b, "/api/auth/passkey/options", { json: {} });
      statuses.push(res.status);
    }
    // every call so far came from 127.0.0.1: the limit's last one was allowed, the next is refused
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const refused = await call(a, "/api/auth/passkey/options", { json: {} });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text).passkey[0]).toMatch(/^Too many passkey sign-ins from your network/);
  });
});
