import { afterEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { siteOrigin } from "~/lib/config.server";
import { resetEnvCache } from "../../../server/env.mjs";
import { args, cookieFor, context, makeUser, req } from "../../../tests/helpers";
import { SoftAuthenticator } from "../../../tests/soft-authenticator";
import { registerPasskey, registrationOptions } from "~/models/passkeys.server";
import { getUser, sessionToken } from "~/web/auth.server";
import { listSessions } from "~/models/sessions.server";
import * as settings from "../settings";
import * as signInOptionsRoute from "./auth-passkey-options";
import * as signInRoute from "./auth-passkey";
import * as passkeyRoute from "./users-current-passkeys-id";

// The open passkey sign-in routes (docs/decisions/0055-passkeys.md): the limit on sign-ins begun
// per client address (each stores a challenge row), and one browser with two sign-ins waiting (the
// log-in page's autofill request and its button's), either of which may come back.

afterEach(() => {
  delete process.env.PASSKEY_OPTIONS_MAX_PER_ADDRESS;
  resetEnvCache();
});

async function userWithPasskey() {
  const user = await makeUser();
  const cookie = await cookieFor(user);
  const session = (await sessionToken(new Request("http://localhost/", { headers: { Cookie: cookie } })))!;
  const authenticator = new SoftAuthenticator(siteOrigin());
  const saved = await registerPasskey(
    user.id,
    session,
    authenticator.register(await registrationOptions(user, session)) as never,
    "Phone",
  );
  if (!saved.ok) throw new Error(saved.message);
  return { user, authenticator, cookie, passkey: saved.passkey };
}

/** POST /api/auth/passkey/options from `address`, with the browser's `cookie` if it has one. */
async function begin(address: string, cookie?: string) {
  const res = await signInOptionsRoute.action(
    args(req("/api/auth/passkey/options", { json: {}, cookie }), {}, context(address)),
  );
  const body = (await res.json()) as { options: { challenge: string } } & Record<string, unknown>;
  const setCookie = res.headers.get("Set-Cookie");
  return { res, body, cookie: setCookie ? setCookie.split(";")[0]! : (cookie ?? "") };
}

function answer(cookie: string, response: unknown, address = "10.20.0.1") {
  return signInRoute.action(args(req("/api/auth/passkey", { json: { response }, cookie }), {}, context(address)));
}

const challengeRows = async () => Number((await db().table("webauthn_challenges").count({ n: "*" }))[0]!.n);

describe("POST /api/auth/passkey/options, open to anyone", () => {
  it("answers 429 with Retry-After past PASSKEY_OPTIONS_MAX_PER_ADDRESS and stores no challenge; other addresses go on", async () => {
    process.env.PASSKEY_OPTIONS_MAX_PER_ADDRESS = "3";
    resetEnvCache();
    for (let i = 0; i < 3; i++) expect((await begin("10.30.0.1")).res.status).toBe(200);
    const before = await challengeRows();
    const refused = await begin("10.30.0.1");
    expect(refused.res.status).toBe(429);
    expect(refused.body).toEqual({
      passkey: ["Too many passkey sign-ins from your network. Try again in 15 minutes."],
    });
    expect(Number(refused.res.headers.get("Retry-After"))).toBeGreaterThan(14 * 60);
    expect(refused.res.headers.get("Set-Cookie")).toBeNull();
    expect(await challengeRows()).toBe(before);
    // a browser that already holds a handle is counted alike
    expect((await begin("10.30.0.1", (await begin("10.30.0.2")).cookie)).res.status).toBe(429);
    // an IPv6 client counts with its /64 network
    for (let i = 1; i <= 3; i++) expect((await begin(`2001:db8:30::${i}`)).res.status).toBe(200);
    expect((await begin("2001:db8:30::ffff")).res.status).toBe(429);
    expect((await begin("2001:db8:31::1")).res.status).toBe(200);
  });
});

describe("one browser with two passkey sign-ins waiting", () => {
  it("keeps one handle for both; whichever answer comes back signs in, each once", async () => {
    const { user, authenticator } = await userWithPasskey();
    // the log-in page's autofill request asks first, then the button asks with the same cookie
    const autofill = await begin("10.20.0.1");
    const button = await begin("10.20.0.1", autofill.cookie);
    expect(button.cookie).toBe(autofill.cookie);
    expect(button.body.options.challenge).not.toBe(autofill.body.options.challenge);

    // the button's ceremony aborted the autofill's: the button's answer comes back and signs in
    const signedIn = await answer(button.cookie, authenticator.signIn(button.body.options));
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toMatchObject({ id: user.id });
    const cookies = signedIn.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith("sm_session="))).toBe(true);
    expect(cookies.find((c) => c.startsWith("sm_passkey="))).toMatch(/^sm_passkey=;.*Max-Age=0/i);

    // its challenge is used up
    const replayed = await answer(button.cookie, authenticator.signIn(button.body.options));
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toEqual({ passkey: ["That took too long. Try again."] });

    // the other waiting challenge is its own, once
    const other = authenticator.signIn(autofill.body.options);
    expect((await answer(autofill.cookie, other)).status).toBe(200);
    expect((await answer(autofill.cookie, other)).status).toBe(401);
  });

  it("a refused answer leaves the browser's handle, so its other waiting sign-in still answers", async () => {
    const { user, authenticator } = await userWithPasskey();
    const first = await begin("10.21.0.1");
    const second = await begin("10.21.0.1", first.cookie);
    // an answer made for another site (a phishing page) to the first challenge
    const phished = await answer(
      first.cookie,
      authenticator.signIn(first.body.options, { origin: "http://evil.example" }),
    );
    expect(phished.status).toBe(401);
    expect(phished.headers.get("Set-Cookie")).toBeNull();
    const good = await answer(second.cookie, authenticator.signIn(second.body.options));
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({ id: user.id });
  });

  it("another browser's cookie answers none of this browser's challenges", async () => {
    const { authenticator } = await userWithPasskey();
    const mine = await begin("10.22.0.1");
    const theirs = await begin("10.22.0.2");
    expect(theirs.cookie).not.toBe(mine.cookie);
    expect((await answer(theirs.cookie, authenticator.signIn(mine.body.options))).status).toBe(401);
    expect((await answer("", authenticator.signIn(mine.body.options))).status).toBe(401);
    // an answer whose client data names no challenge
    const broken = authenticator.signIn(mine.body.options) as { response: { clientDataJSON: string } };
    broken.response.clientDataJSON = Buffer.from("not json").toString("base64url");
    expect((await answer(mine.cookie, broken)).status).toBe(401);
    // those tries named another browser or nothing: this browser's challenge still answers
    expect((await answer(mine.cookie, authenticator.signIn(mine.body.options))).status).toBe(200);
  });
});

describe("a passkey's session", () => {
  it('is a session like any other: listed, and ended by "Sign out everywhere else"', async () => {
    const { user, authenticator, cookie } = await userWithPasskey();
    const started = await begin("10.23.0.1");
    const signedIn = await answer(started.cookie, authenticator.signIn(started.body.options));
    expect(signedIn.status).toBe(200);
    const passkeySession = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith("sm_session="))!
      .split(";")[0]!;
    const viewer = (c: string) => getUser(new Request("http://localhost/settings", { headers: { Cookie: c } }));
    expect((await viewer(passkeySession))?.id).toBe(user.id);
    expect(await listSessions(user.id, null)).toHaveLength(2);

    // from the other session (the password's), "Sign out everywhere else"
    const ended = await settings.action(args(req("/settings", { cookie, form: { intent: "end-others" } })));
    expect((ended as Response).headers.get("Location")).toBe("/settings?done=others");
    expect(await viewer(passkeySession)).toBeNull();
    expect((await viewer(cookie))?.id).toBe(user.id);
  });

  it("ends when its passkey is removed, unless it is the session removing it", async () => {
    const { user, authenticator, cookie, passkey } = await userWithPasskey();
    const sessionCookie = (res: Response) =>
      res.headers
        .getSetCookie()
        .find((c) => c.startsWith("sm_session="))!
        .split(";")[0]!;
    const signIn = async () => {
      const started = await begin("10.24.0.1");
      return sessionCookie(await answer(started.cookie, authenticator.signIn(started.body.options)));
    };
    const here = await signIn();
    const elsewhere = await signIn();
    const viewer = (c: string) => getUser(new Request("http://localhost/settings", { headers: { Cookie: c } }));
    expect(await listSessions(user.id, null)).toHaveLength(3);
    const removed = await passkeyRoute.action(
      args(req(`/api/users/current/passkeys/${passkey.id}`, { method: "DELETE", cookie: here }), {
        id: String(passkey.id),
      }),
    );
    expect(removed.status).toBe(200);
    expect(await viewer(elsewhere)).toBeNull();
    expect((await viewer(here))?.id).toBe(user.id);
    // the password's session was not the passkey's
    expect((await viewer(cookie))?.id).toBe(user.id);
    expect(await listSessions(user.id, null)).toHaveLength(2);
  });
});
