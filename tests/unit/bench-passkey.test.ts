// The bench's passkey sign-in case (bench/passkey.mjs, docs/decisions/0057-bench-side-by-side.md)
// against the production server on this file's database: it registers the tests' software
// authenticator for a user and signs in with it, every sign-in accepted, so `npm run bench` measures
// sign-ins and not refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passkeySignIn } from "../../bench/passkey.mjs";
import { buildApp, call, startBuiltServer, type BuiltServer } from "./support/built-server";

let server: BuiltServer | null = null;
beforeAll(async () => {
  server = await startBuiltServer(await buildApp(), {});
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

describe("the bench's passkey sign-in case", () => {
  it("signs in with a registered passkey, options then verify, and reports the round trip", async () => {
    const base = `http://127.0.0.1:${server!.port}`;
    const signedUp = await call(base, "/api/auth/signup", {
      json: { email: "bench-passkey@example.com", username: "benchpasskey", password: "secret12" },
    });
    expect(signedUp.status, signedUp.text).toBeLessThan(300);
    const cookie = signedUp.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const figures = await passkeySignIn(base, `http://localhost:${server!.port}`, cookie, { rounds: 5, warmup: 1 });
    expect(figures).toMatchObject({ rounds: 5, failures: 0 });
    expect(figures.p50ms).toBeGreaterThan(0);
    expect(figures.p99ms).toBeGreaterThanOrEqual(figures.p50ms);
  }, 120_000);
});
