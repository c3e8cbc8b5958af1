// @ts-check
// The passkey sign-in case of `npm run bench` (docs/decisions/0055-passkeys.md): the bench user
// registers a passkey of the tests' software authenticator (tests/soft-authenticator.ts: a real
// P-256 key, real WebAuthn answers that the server's library verifies), then signs in with it one
// round trip after another, each `POST /api/auth/passkey/options` then `POST /api/auth/passkey`,
// timed together from the first request's start to the second's answer.

// Node runs the TypeScript file as is (type stripping); the URL keeps the type checker, which
// refuses a ".ts" import path in this project, from resolving it
const { SoftAuthenticator } = await import(new URL("../tests/soft-authenticator.ts", import.meta.url).href);

/** The cookie pairs of an answer's Set-Cookie headers. @param {Response} r */
const cookiesOf = (r) =>
  r.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

/** @param {number[]} sorted @param {number} q */
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * @param {string} base where the requests go
 * @param {string} origin the site's origin (ORIGIN, else http://localhost:PORT): what a browser
 *   would write into the answers, and the relying party's id
 * @param {string} cookie a session of the bench user, to register the passkey
 * @param {{ rounds?: number, warmup?: number }} [opts]
 * @returns {Promise<{ rounds: number, p50ms: number, p99ms: number, meanMs: number, failures: number }>}
 */
export async function passkeySignIn(base, origin, cookie, { rounds = 200, warmup = 20 } = {}) {
  const post = (/** @type {string} */ pathname, /** @type {unknown} */ body, /** @type {string} */ c) =>
    fetch(`${base}${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(c ? { cookie: c } : {}) },
      body: JSON.stringify(body),
    });
  const authenticator = new SoftAuthenticator(origin);
  const started = await post("/api/users/current/passkeys/options", {}, cookie);
  if (!started.ok) throw new Error(`passkey options: ${started.status} ${await started.text()}`);
  const { options } = await started.json();
  const saved = await post(
    "/api/users/current/passkeys",
    { response: authenticator.register(options), name: "Bench" },
    cookie,
  );
  if (saved.status !== 201) throw new Error(`passkey registration: ${saved.status} ${await saved.text()}`);

  /** One sign-in: ms from the options request to the session's answer, or null when refused. */
  const once = async () => {
    const t = performance.now();
    const opt = await post("/api/auth/passkey/options", {}, "");
    const challengeCookie = cookiesOf(opt);
    const { options: signInOptions } = await opt.json();
    const done = await post("/api/auth/passkey", { response: authenticator.signIn(signInOptions) }, challengeCookie);
    await done.arrayBuffer();
    const ms = performance.now() - t;
    return done.ok && cookiesOf(done) ? ms : null;
  };
  for (let i = 0; i < warmup; i++) await once();
  /** @type {number[]} */
  const samples = [];
  let failures = 0;
  for (let i = 0; i < rounds; i++) {
    const ms = await once();
    if (ms === null) failures += 1;
    else samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return {
    rounds,
    p50ms: +quantile(samples, 0.5).toFixed(1),
    p99ms: +quantile(samples, 0.99).toFixed(1),
    meanMs: +(samples.reduce((a, b) => a + b, 0) / (samples.length || 1)).toFixed(1),
    failures,
  };
}
