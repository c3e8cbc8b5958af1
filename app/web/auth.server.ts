import { createCookie, redirect, type Cookie, type RouterContextProvider } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { config } from "~/lib/config.server";
import { clientAddressContext } from "~/lib/context";
import { dummyHash, hasPassword, verifyPassword } from "~/lib/password.server";
import { FailureLimiter } from "~/lib/rate-limit.server";
import { createSession, deleteSession, getSessionUser } from "~/models/sessions.server";
import { getUserWithPasswordByEmail, normalizeEmail, type User } from "~/models/users.server";
import { LoginSchema } from "~/forms/auth";
import { apiError } from "~/api/responses.server";

// One cookie object per secret (tests change the secret between files).
let sessionCookie: { secret: string; cookie: Cookie } | null = null;

function cookie(): Cookie {
  const secret = config().sessionSecret;
  if (sessionCookie?.secret !== secret) {
    sessionCookie = { secret, cookie: createCookie("sm_session", { httpOnly: true, sameSite: "lax", path: "/", secrets: [secret] }) };
    verifiedTokens.clear();
  }
  return sessionCookie.cookie;
}

// Checking the cookie's signature costs a WebCrypto key import and an HMAC on every request. The
// same Cookie header always verifies to the same token (for one secret), so the last few headers
// that verified are remembered (least recently used first out). The session row is still looked up
// on every request: a deleted or expired session ends at once.
const verifiedTokens = new Map<string, string>();
const VERIFIED_MAX = 500;
const VERIFIED_HEADER_MAX = 4096;

function isHttps(request: Request): boolean {
  const origin = config().origin;
  return origin ? origin.startsWith("https:") : new URL(request.url).protocol === "https:";
}

async function readToken(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header || !header.includes("sm_session=")) return null;
  const sessionCookie = cookie();
  const known = verifiedTokens.get(header);
  if (known !== undefined) {
    verifiedTokens.delete(header);
    verifiedTokens.set(header, known);
    return known;
  }
  const value = await sessionCookie.parse(header);
  if (typeof value !== "string") return null;
  if (header.length <= VERIFIED_HEADER_MAX) {
    if (verifiedTokens.size >= VERIFIED_MAX) verifiedTokens.delete(verifiedTokens.keys().next().value!);
    verifiedTokens.set(header, value);
  }
  return value;
}

// Several loaders of one request (root and the page) ask for the user: look it up once.
const userCache = new WeakMap<Request, Promise<User | null>>();

export function getUser(request: Request): Promise<User | null> {
  let pending = userCache.get(request);
  if (!pending) {
    pending = readToken(request).then((token) => (token ? getSessionUser(token) : null));
    userCache.set(request, pending);
  }
  return pending;
}

/** For pages: signed-out visitors go to the log-in page and come back afterwards. */
export async function requireUser(request: Request): Promise<User> {
  const user = await getUser(request);
  if (user) return user;
  const url = new URL(request.url);
  const back = url.pathname + url.search;
  throw redirect(`/login?redirectTo=${encodeURIComponent(back)}`);
}

/** For /api resource routes: 401 JSON, never a redirect. */
export async function requireApiUser(request: Request): Promise<User> {
  const user = await getUser(request);
  if (user) return user;
  throw apiError(401, "Unauthorized");
}

/** Log-in and sign-up pages: a signed-in visitor goes to the root path. */
export async function requireAnonymous(request: Request): Promise<void> {
  if (await getUser(request)) throw redirect("/");
}

/** Set-Cookie header value starting a new session for `user`. */
export async function startSession(request: Request, user: Pick<User, "id">): Promise<string> {
  const { token, expires } = await createSession(user.id);
  return cookie().serialize(token, { expires, secure: isHttps(request) });
}

/** Deletes the session row (so the old cookie is worthless) and returns a clearing Set-Cookie. */
export async function endSession(request: Request): Promise<string> {
  const token = await readToken(request);
  if (token) await deleteSession(token);
  return cookie().serialize("", { maxAge: 0, expires: new Date(0), secure: isHttps(request) });
}

// ---- credentials -------------------------------------------------------------------------

export class LoginError extends Error {
  constructor(
    public status: 401 | 429,
    public fieldErrors: Record<string, string[]>,
  ) {
    super(Object.values(fieldErrors).flat().join(" "));
  }
}

export const INVALID_LOGIN = "Invalid email or password.";

const limiter = new FailureLimiter(() => config().loginWindowMinutes * 60_000);

function tooMany(ms: number): LoginError {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return new LoginError(429, {
    email: [`Too many attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`],
  });
}

/**
 * The one credential check, used by the log-in page (through remix-auth) and POST /api/auth/login.
 * Unknown email and wrong password answer alike and take alike long.
 */
export async function checkCredentials(email: string, password: string, address: string): Promise<User> {
  const cfg = config();
  const accountKey = `account:${normalizeEmail(email)}`;
  const addressKey = `address:${address}`;
  const wait = Math.max(
    limiter.blockedFor(accountKey, cfg.loginMaxFailuresPerAccount),
    limiter.blockedFor(addressKey, cfg.loginMaxFailuresPerAddress),
  );
  if (wait > 0) throw tooMany(wait);

  const found = await getUserWithPasswordByEmail(email);
  // an account without a password (password_hash "") never passes, and takes as long as any other
  const usable = found && hasPassword(found.password_hash) ? found.password_hash : null;
  const ok = await verifyPassword(password, usable ?? (await dummyHash()));
  if (!found || !usable || !ok || (found.is_demo && !cfg.demo)) {
    limiter.fail(accountKey);
    limiter.fail(addressKey);
    throw new LoginError(401, { email: [INVALID_LOGIN] });
  }
  limiter.reset(accountKey);
  const { password_hash: _hash, ...user } = found;
  return user;
}

export const DEMO_EMAIL = "demo@aa.io";
export const DEMO_PASSWORD = "password";

export function clientAddress(context: Readonly<RouterContextProvider> | undefined): string {
  try {
    return context?.get(clientAddressContext) ?? "unknown";
  } catch {
    return "unknown";
  }
}

// remix-auth: the log-in form's strategy. It reads the form, validates it with the same schema
// as the page, and calls the same credential check as the API.
export function authenticator(address: string) {
  const auth = new Authenticator<User>();
  auth.use(
    new FormStrategy(async ({ form }) => {
      const parsed = LoginSchema.safeParse({
        email: form.get("email") ?? undefined,
        password: form.get("password") ?? undefined,
      });
      if (!parsed.success) throw new LoginError(401, { email: [INVALID_LOGIN] });
      return checkCredentials(parsed.data.email, parsed.data.password, address);
    }),
    "form",
  );
  return auth;
}
