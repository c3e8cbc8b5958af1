import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { siteOrigin } from "~/lib/config.server";
import { args, cookieFor, context, makeUser, req } from "../../tests/helpers";
import { SoftAuthenticator } from "../../tests/soft-authenticator";
import {
  authenticationOptions,
  listPasskeys,
  PASSKEY_MESSAGES,
  registerPasskey,
  registrationOptions,
  removePasskey,
  renamePasskey,
  verifyPasskeySignIn,
} from "./passkeys.server";
import { listSessions } from "./sessions.server";
import { deleteAccount } from "./account.server";
import { exportJson, loadExport } from "./export.server";
import { userTraces } from "../../tests/user-traces";
import { LoginError, sessionToken } from "~/web/auth.server";
import { checkPasskey } from "~/web/passkey.server";
import * as signInOptionsRoute from "~/routes/api/auth-passkey-options";
import * as signInRoute from "~/routes/api/auth-passkey";
import * as optionsRoute from "~/routes/api/users-current-passkeys-options";
import * as passkeysRoute from "~/routes/api/users-current-passkeys";
import * as passkeyRoute from "~/routes/api/users-current-passkeys-id";

// Real WebAuthn answers (tests/soft-authenticator.ts) through the real library, on the test's
// database: what the server accepts and what it refuses (docs/decisions/0055-passkeys.md).

const token = (cookie: string) => sessionToken(new Request("http://localhost/", { headers: { Cookie: cookie } }));

async function userWithPasskey(name = "My phone") {
  const user = await makeUser();
  const cookie = await cookieFor(user);
  const session = (await token(cookie))!;
  const authenticator = new SoftAuthenticator(siteOrigin());
  const options = await registrationOptions(user, session);
  const saved = await registerPasskey(user.id, session, authenticator.register(options) as never, name);
  if (!saved.ok) throw new Error(saved.message);
  return { user, cookie, session, authenticator, passkey: saved.passkey };
}

let handles = 0;
const newHandle = () => `test-handle-${++handles}-${Date.now()}`;

async function signIn(authenticator: SoftAuthenticator, opts: Parameters<SoftAuthenticator["signIn"]>[1] = {}) {
  const handle = newHandle();
  const options = await authenticationOptions(handle);
  const answer = authenticator.signIn(options, opts);
  return { handle, answer, result: await verifyPasskeySignIn(handle, answer as never) };
}

describe("registering a passkey", () => {
  it("keeps a verified passkey with its name, for its owner only", async () => {
    const { user, passkey } = await userWithPasskey("  Grandma's phone ");
    expect(passkey.name).toBe("Grandma's phone");
    expect(await listPasskeys(user.id)).toEqual([
      { id: passkey.id, name: "Grandma's phone", created_at: passkey.created_at, last_used_at: null },
    ]);
    const other = await makeUser();
    expect(await listPasskeys(other.id)).toEqual([]);
    // the options name the site as relying party, ask for a discoverable credential and exclude this one
    const options = await registrationOptions(user, (await token(await cookieFor(user)))!);
    expect(options.rp).toEqual({ name: "Sweet Moments", id: new URL(siteOrigin()).hostname });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "preferred" });
    expect(options.excludeCredentials?.map((c) => c.id)).toHaveLength(1);
  });

  it("refuses an answer to another session's challenge, a used or expired challenge and a wrong origin", async () => {
    const user = await makeUser();
    const sessionA = (await token(await cookieFor(user)))!;
    const sessionB = (await token(await cookieFor(user)))!;
    const authenticator = new SoftAuthenticator(siteOrigin());

    const options = await registrationOptions(user, sessionA);
    const answer = authenticator.register(options) as never;
    // another session of the same account cannot answer it
    expect(await registerPasskey(user.id, sessionB, answer, "x")).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.expired,
    });
    // the asking session's try uses it up, verified or not: here the name is missing
    expect(await registerPasskey(user.id, sessionA, answer, " ")).toMatchObject({ ok: false, kind: "invalid" });
    expect(await registerPasskey(user.id, sessionA, answer, "x")).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.expired,
    });

    // another account cannot answer a challenge made for this session
    const stranger = await makeUser();
    const fresh = await registrationOptions(user, sessionA);
    expect(await registerPasskey(stranger.id, sessionA, authenticator.register(fresh) as never, "x")).toMatchObject({
      ok: false,
    });

    // expired: the row says so
    const late = await registrationOptions(user, sessionA);
    await db()
      .table("webauthn_challenges")
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(await registerPasskey(user.id, sessionA, authenticator.register(late) as never, "x")).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.expired,
    });

    const phished = await registrationOptions(user, sessionA);
    expect(
      await registerPasskey(user.id, sessionA, authenticator.register(phished, "http://evil.example") as never, "x"),
    ).toMatchObject({ ok: false, message: PASSKEY_MESSAGES.notVerified });
    expect(await listPasskeys(user.id)).toEqual([]);
  });
});

describe("signing in with a passkey", () => {
  it("answers the passkey's account and notes when it was used", async () => {
    const { user, authenticator } = await userWithPasskey();
    const { result } = await signIn(authenticator);
    expect(result).toMatchObject({ ok: true, user: { id: user.id } });
    const [listed] = await listPasskeys(user.id);
    expect(listed?.last_used_at).toEqual(expect.any(String));
  });

  it("refuses a replayed answer, an expired challenge, another browser's challenge, a wrong origin and a counter that went back", async () => {
    const { authenticator } = await userWithPasskey();

    const first = await signIn(authenticator);
    expect(first.result.ok).toBe(true);
    // the same answer again: its challenge is used up
    expect(await verifyPasskeySignIn(first.handle, first.answer as never)).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.expired,
    });

    // another browser's handle cannot answer this one's challenge
    const handle = newHandle();
    const options = await authenticationOptions(handle);
    const answer = authenticator.signIn(options);
    expect(await verifyPasskeySignIn(newHandle(), answer as never)).toMatchObject({ ok: false });
    // that try named another browser's handle, so this browser's challenge still answers
    expect(await verifyPasskeySignIn(handle, answer as never)).toMatchObject({ ok: true });

    // expired
    const lateHandle = newHandle();
    const late = await authenticationOptions(lateHandle);
    await db()
      .table("webauthn_challenges")
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(await verifyPasskeySignIn(lateHandle, authenticator.signIn(late) as never)).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.expired,
    });

    expect((await signIn(authenticator, { origin: "http://evil.example" })).result).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.notVerified,
    });
    // a cloned authenticator shows itself by a counter that does not go up
    expect((await signIn(authenticator, { counter: 1 })).result).toMatchObject({
      ok: false,
      message: PASSKEY_MESSAGES.notVerified,
    });
    expect((await signIn(authenticator)).result.ok).toBe(true);
  });

  it("refuses an unknown passkey", async () => {
    const stranger = new SoftAuthenticator(siteOrigin());
    expect((await signIn(stranger)).result).toMatchObject({ ok: false, message: PASSKEY_MESSAGES.unknown });
  });
});

describe("managing passkeys", () => {
  it("renames and removes only the owner's passkeys", async () => {
    const { user, passkey } = await userWithPasskey();
    const other = await makeUser();
    expect(await renamePasskey(other.id, passkey.id, "mine now")).toMatchObject({ ok: false, kind: "not-found" });
    expect(await removePasskey(other.id, passkey.id, null)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await renamePasskey(user.id, passkey.id, "")).toMatchObject({ ok: false, kind: "invalid" });
    expect(await renamePasskey(user.id, passkey.id, "x".repeat(65))).toMatchObject({ ok: false, kind: "invalid" });
    expect(await renamePasskey(user.id, passkey.id, "Laptop")).toEqual({ ok: true });
    expect((await listPasskeys(user.id))[0]?.name).toBe("Laptop");
    // the account has a password: its only passkey may go
    expect(await removePasskey(user.id, passkey.id, null)).toEqual({ ok: true });
    expect(await listPasskeys(user.id)).toEqual([]);
  });

  it("refuses removing the last passkey of an account without a password", async () => {
    const { user, session, passkey } = await userWithPasskey();
    await db().table("users").where("id", user.id).update({ password_hash: "" });
    expect(await removePasskey(user.id, passkey.id, null)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: PASSKEY_MESSAGES.lastWayIn,
    });
    // with a second passkey, either may go
    const second = new SoftAuthenticator(siteOrigin());
    const options = await registrationOptions(user, session);
    expect((await registerPasskey(user.id, session, second.register(options) as never, "Tablet")).ok).toBe(true);
    expect(await removePasskey(user.id, passkey.id, null)).toEqual({ ok: true });
    expect(await listPasskeys(user.id)).toHaveLength(1);
  });

  it("is in the export by name and dates only, and goes with the account", async () => {
    const { user, passkey } = await userWithPasskey("Kitchen tablet");
    const [stored] = await db().table("passkeys").where("user_id", user.id);
    const data = await loadExport(user.id);
    const json = exportJson(data!);
    expect(JSON.parse(json).passkeys).toEqual([
      { name: "Kitchen tablet", created_at: passkey.created_at, last_used_at: null },
    ]);
    expect(json).not.toContain(stored.public_key);
    expect(json).not.toContain(stored.credential_id);

    expect(await deleteAccount(user.id, { password: "secret1" })).toEqual({ ok: true });
    expect(await db().table("passkeys").where("user_id", user.id)).toEqual([]);
    expect(await userTraces(user)).toEqual([]);
  });
});

describe("the passkey API and its session", () => {
  async function apiSignIn(
    authenticator: SoftAuthenticator,
    address = "10.0.0.1",
    opts: Parameters<SoftAuthenticator["signIn"]>[1] = {},
  ) {
    const started = await signInOptionsRoute.action(args(req("/api/auth/passkey/options", { json: {} })));
    expect(started.status).toBe(200);
    const cookie = started.headers.get("Set-Cookie")!.split(";")[0]!;
    const { options } = (await started.json()) as { options: { challenge: string } };
    return signInRoute.action(
      args(
        req("/api/auth/passkey", { json: { response: authenticator.signIn(options, opts) }, cookie }),
        {},
        context(address),
      ),
    );
  }

  it("registers from a session, signs in to a new listed session, renames and deletes", async () => {
    const user = await makeUser();
    const cookie = await cookieFor(user);
    const authenticator = new SoftAuthenticator(siteOrigin());
    const opts = await optionsRoute.action(args(req("/api/users/current/passkeys/options", { json: {}, cookie })));
    const { options } = (await opts.json()) as { options: { challenge: string } };
    const created = await passkeysRoute.action(
      args(
        req("/api/users/current/passkeys", {
          json: { response: authenticator.register(options), name: "Phone" },
          cookie,
        }),
      ),
    );
    expect(created.status).toBe(201);
    const passkey = (await created.json()) as { id: number; name: string };
    expect(passkey).toMatchObject({ name: "Phone", last_used_at: null });
    expect(JSON.stringify(passkey)).not.toMatch(/public|key|credential/);

    const signedIn = await apiSignIn(authenticator);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toMatchObject({ id: user.id });
    const sessionCookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith("sm_session="))!
      .split(";")[0]!;
    const newToken = await token(sessionCookie);
    const sessions = await listSessions(user.id, newToken);
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);

    const renamed = await passkeyRoute.action(
      args(req(`/api/users/current/passkeys/${passkey.id}`, { method: "PUT", json: { name: "Old phone" }, cookie }), {
        id: String(passkey.id),
      }),
    );
    expect(renamed.status).toBe(200);
    const listed = await passkeysRoute.loader(args(req("/api/users/current/passkeys", { cookie })));
    expect(await listed.json()).toMatchObject({ passkeys: [{ id: passkey.id, name: "Old phone" }] });
    const removed = await passkeyRoute.action(
      args(req(`/api/users/current/passkeys/${passkey.id}`, { method: "DELETE", cookie }), { id: String(passkey.id) }),
    );
    expect(removed.status).toBe(200);
    expect((await apiSignIn(authenticator)).status).toBe(401);
  });

  it("counts a refused answer as a log-in failure, and locks the account like a password", async () => {
    const { authenticator } = await userWithPasskey();
    const max = 10; // LOGIN_MAX_FAILURES_PER_ACCOUNT's default
    for (let i = 0; i < max; i++) {
      // an answer from another origin (a phishing page), each from another address
      const refused = await apiSignIn(authenticator, `10.1.${i}.1`, { origin: "http://evil.example" });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ passkey: [PASSKEY_MESSAGES.notVerified] });
    }
    // the account is locked now: even a good answer is refused, from any address
    const locked = await apiSignIn(authenticator, "10.9.9.9");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("Retry-After")).toBeTruthy();
    // an answer without the browser's challenge cookie is refused (and counted) too
    const handle = newHandle();
    const answer = authenticator.signIn(await authenticationOptions(handle));
    await expect(checkPasskey(new Request("http://localhost/"), answer, "10.8.8.8")).rejects.toBeInstanceOf(LoginError);
  });

  it("refuses a signed-out caller (401) and another user's passkey (404)", async () => {
    const { passkey } = await userWithPasskey();
    const other = await makeUser();
    const cookie = await cookieFor(other);
    const path = `/api/users/current/passkeys/${passkey.id}`;
    expect((await passkeyRoute.action(args(req(path, { method: "DELETE" }), { id: String(passkey.id) }))).status).toBe(
      401,
    );
    expect(
      (await passkeyRoute.action(args(req(path, { method: "DELETE", cookie }), { id: String(passkey.id) }))).status,
    ).toBe(404);
    expect(
      (
        await passkeyRoute.action(
          args(req(path, { method: "PUT", json: { name: "x" }, cookie }), { id: String(passkey.id) }),
        )
      ).status,
    ).toBe(404);
    expect((await passkeysRoute.loader(args(req("/api/users/current/passkeys")))).status).toBe(401);
  });
});
