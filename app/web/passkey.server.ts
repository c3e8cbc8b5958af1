import crypto from "node:crypto";
import { createCookie, type Cookie } from "react-router";
import { config } from "~/lib/config.server";
import { addressNetwork, blockedFor, hit } from "~/lib/rate-limit.server";
import type { User } from "~/models/users.server";
import {
  authenticationOptions,
  CHALLENGE_MS,
  PASSKEY_MESSAGES,
  passkeyOwner,
  verifyPasskeySignIn,
} from "~/models/passkeys.server";
import { accountLocked, isHttps, LoginError, loginLimitKeys, minutesText, tooMany } from "./auth.server";

// A passkey sign-in (docs/decisions/0055-passkeys.md). Its challenges are tied to the browser that
// asked by a random handle in a signed cookie (the visitor has no session yet); the rows
// themselves are in the database, so any process can check the answer. One browser may hold
// several live challenges under its handle (the log-in page's autofill request and the button's):
// each answers once, whichever comes back.

let passkeyCookieOf: { secret: string; cookie: Cookie } | null = null;

function passkeyCookie(): Cookie {
  const secret = config().sessionSecret;
  if (passkeyCookieOf?.secret !== secret) {
    passkeyCookieOf = {
      secret,
      cookie: createCookie("sm_passkey", {
        httpOnly: true,
        sameSite: "strict",
        path: "/",
        maxAge: CHALLENGE_MS / 1000,
        secrets: [secret],
      }),
    };
  }
  return passkeyCookieOf.cookie;
}

/** The handle in the request's sm_passkey cookie (signature checked), or null. */
async function handleOf(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie") ?? "";
  if (!header.includes("sm_passkey=")) return null;
  const value: unknown = await passkeyCookie().parse(header);
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** The counter of passkey sign-ins begun from the address (an IPv6 client: its /64). */
function passkeyOptionsKey(address: string): string {
  return `passkey-options:address:${addressNetwork(address)}`;
}

/**
 * The options of a passkey sign-in, and the Set-Cookie that ties its challenge to this browser
 * (the handle it already has, or a new one). Each call stores a challenge row, so each counts
 * against the client address (PASSKEY_OPTIONS_MAX_PER_ADDRESS per LOGIN_WINDOW_MINUTES, shared by
 * every process): past it, a 429 LoginError and nothing stored.
 */
export async function startPasskeySignIn(request: Request, address: string) {
  const cfg = config();
  const counted = await hit(passkeyOptionsKey(address), {
    max: cfg.passkeyOptionsMaxPerAddress,
    windowMs: cfg.loginWindowMinutes * 60_000,
  });
  if (counted.blocked) {
    const wait = counted.retryAfterMs;
    throw new LoginError(
      429,
      { passkey: [`Too many passkey sign-ins from your network. Try again in ${minutesText(wait)}.`] },
      wait,
    );
  }
  const handle = (await handleOf(request)) ?? crypto.randomBytes(32).toString("base64url");
  const options = await authenticationOptions(handle);
  return { options, setCookie: await passkeyCookie().serialize(handle, { secure: isHttps(request) }) };
}

/**
 * The passkey sign-in check, for the log-in page's button and autofill and POST /api/auth/passkey:
 * the same limits as checkCredentials (a failed answer counts against the address and, when the
 * passkey is known, its account; a locked account is refused before its key is checked). Answers
 * the account and the passkey, whose removal ends the session it starts.
 */
export async function checkPasskey(
  request: Request,
  response: unknown,
  address: string,
): Promise<{ user: User; passkeyId: number }> {
  const cfg = config();
  const windowMs = cfg.loginWindowMinutes * 60_000;
  const addressKey = loginLimitKeys("", address).address;
  const addressWait = await blockedFor(addressKey, cfg.loginMaxFailuresPerAddress);
  if (addressWait > 0) throw tooMany(addressWait);
  const answer = isCredentialAnswer(response) ? response : null;
  const owner = answer ? await passkeyOwner(answer.id) : null;
  const accountKey = owner ? loginLimitKeys(owner.email, address).account : null;
  if (accountKey) {
    const accountWait = await blockedFor(accountKey, cfg.loginMaxFailuresPerAccount);
    if (accountWait > 0) throw accountLocked(accountWait);
  }
  const handle = await handleOf(request);
  const result =
    answer && handle ? await verifyPasskeySignIn(handle, answer as Parameters<typeof verifyPasskeySignIn>[1]) : null;
  if (!result?.ok || (result.user.is_demo && !cfg.demo)) {
    if (accountKey) await hit(accountKey, { max: cfg.loginMaxFailuresPerAccount, windowMs });
    await hit(addressKey, { max: cfg.loginMaxFailuresPerAddress, windowMs });
    const message = result && !result.ok && result.message ? result.message : PASSKEY_MESSAGES.notVerified;
    throw new LoginError(401, { passkey: [message] });
  }
  return { user: result.user, passkeyId: result.passkeyId };
}

function isCredentialAnswer(value: unknown): value is { id: string; response: object; type: string } {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && v.id.length <= 1400 && typeof v.response === "object" && v.response !== null;
}

/** The Set-Cookie that forgets a passkey sign-in's handle (once it signed in). */
export function clearPasskeyCookie(request: Request): Promise<string> {
  return passkeyCookie().serialize("", { maxAge: 0, expires: new Date(0), secure: isHttps(request) });
}
