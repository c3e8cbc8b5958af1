import { createCookie, redirect, type Cookie, type RouterContextProvider, href } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { config } from "~/lib/config.server";
import { clientAddressContext } from "~/lib/context";
import { dummyHash, hasPassword, verifyPassword } from "~/lib/password.server";
import { addressNetwork, blockedFor, hit } from "~/lib/rate-limit.server";
import { createSession, deleteSession, getSessionUser } from "~/models/sessions.server";
import { getUserWithPasswordByEmail, normalizeEmail, type User } from "~/models/users.server";
import { LoginSchema } from "~/forms/auth";
import { PASSKEY_OFFER_COOKIE } from "~/lib/passkey-offer";
import { apiError } from "~/api/responses.server";
import { safeRedirectPath } from "~/lib/redirect";

// One cookie object per secret (tests change the secret between files).
let sessionCookie: { secret: string; cookie: Cookie } | null = null;

function cookie(): Cookie {
  const secret = config().sessionSecret;
  if (sessionCookie?.secret !== secret) {
    sessionCookie = {
      secret,
      cookie: createCookie("sm_session", { httpOnly: true, sameSite: "lax", path: "/", secrets: [secret] }),
    };
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

/**
 * The session cookie is Secure when the site is https (ORIGIN) or when this request came over
 * https: the server gives the request an https URL when a trusted proxy says so
 * (X-Forwarded-Proto, server/client-address.mjs).
 */
export function isHttps(request: Request): boolean {
  return Boolean(config().origin?.startsWith("https:")) || new URL(request.url).protocol === "https:";
}

async function readToken(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header?.includes("sm_session=")) return null;
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
  throw redirect(`${href("/login")}?redirectTo=${encodeURIComponent(back)}`);
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

/** Where a sign-in or sign-up form sends the new session: its `redirectTo` when it is ours, else My Kids. */
export function signedInDestination(form: FormData): string {
  return safeRedirectPath(form.get("redirectTo")) ?? "/my-kids-list";
}

/**
 * A sign-in or sign-up form posted by a visitor who is signed in already goes where the form would
 * have sent them: a double click whose first answer's cookie the browser kept before it sent the
 * second is that visitor, and belongs on My Kids (or the form's `redirectTo`), not the landing page.
 */
export async function requireAnonymousPost(request: Request, form: FormData): Promise<void> {
  if (await getUser(request)) throw redirect(signedInDestination(form));
}

/** The loader of a page only for visitors who are not signed in, with nothing to load (sign-up, sign-in link). */
export async function anonymousPageLoader({ request }: { request: Request }): Promise<null> {
  await requireAnonymous(request);
  return null;
}

/**
 * Set-Cookie header value starting a new session for `user`. `link`: started by a sign-in link,
 * `madeBy` the parent whose link for a relative it was, else null (app/models/sessions.server.ts);
 * `passkeyId`: the passkey that signed in.
 */
export async function startSession(
  request: Request,
  user: Pick<User, "id">,
  link?: { madeBy: number | null } | null,
  passkeyId?: number | null,
): Promise<string> {
  const { token, expires } = await createSession(user.id, request.headers.get("User-Agent"), link, passkeyId);
  return cookie().serialize(token, { expires, secure: isHttps(request) });
}

/** The token of the request's session cookie (verified), or null: to tell the current session apart. */
export function sessionToken(request: Request): Promise<string | null> {
  return readToken(request);
}

/** Deletes the session row (so the old cookie is worthless) and returns a clearing Set-Cookie. */
/**
 * The headers of a log-out's answer: the emptied cookie, and `Clear-Site-Data: "cache"`, so the
 * pages this browser kept for revalidation (docs/decisions/0034-conditional-pages.md) are gone and
 * Back cannot show them again.
 */
export async function logOutHeaders(request: Request): Promise<Headers> {
  return new Headers({ "Set-Cookie": await endSession(request), "Clear-Site-Data": '"cache"' });
}

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
    /** 429: milliseconds until the limit lets this client try again */
    public retryAfterMs = 0,
  ) {
    super(Object.values(fieldErrors).flat().join(" "));
  }

  /** The Retry-After header of a 429 (seconds), or none. */
  get headers(): Record<string, string> {
    return this.status === 429 ? { "Retry-After": String(Math.max(1, Math.ceil(this.retryAfterMs / 1000))) } : {};
  }
}

export const INVALID_LOGIN = "Invalid email or password.";

export function minutesText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

export function tooMany(ms: number): LoginError {
  return new LoginError(429, { email: [`Too many attempts. Try again in ${minutesText(ms)}.`] }, ms);
}

/** The answer while an account is locked: the same for every address, with the way in that still works. */
export const ACCOUNT_LOCKED_HINT = "Or log in with a sign-in link sent to your email.";

export function accountLocked(ms: number): LoginError {
  return new LoginError(
    429,
    { email: [`Too many attempts. Try again in ${minutesText(ms)}. ${ACCOUNT_LOCKED_HINT}`] },
    ms,
  );
}

/** The counters of log-in failures (app/lib/rate-limit.server.ts; docs/decisions/0039-*). */
export function loginLimitKeys(email: string, address: string) {
  return {
    /** failures through the account, from anywhere */
    account: `login:account:${normalizeEmail(email)}`,
    /** failures from the address (an IPv6 client: its /64), through any account */
    address: `login:address:${addressNetwork(address)}`,
  };
}

/**
 * The one credential check, used by the log-in page (through remix-auth) and POST /api/auth/login.
 * Unknown email and wrong password answer alike and take alike long. Limits, counted in the
 * database so every process shares them: an address (an IPv6 /64) with too many failures over any
 * accounts is refused; an account with too many failures from any addresses is refused to every
 * address until its window ends, so rotating addresses buys no more guesses; its owner still gets
 * in by an emailed sign-in link (docs/decisions/0039-account-safety.md).
 */
export async function checkCredentials(email: string, password: string, address: string): Promise<User> {
  const cfg = config();
  const keys = loginLimitKeys(email, address);
  const windowMs = cfg.loginWindowMinutes * 60_000;
  const addressWait = await blockedFor(keys.address, cfg.loginMaxFailuresPerAddress);
  if (addressWait > 0) throw tooMany(addressWait);
  const accountWait = await blockedFor(keys.account, cfg.loginMaxFailuresPerAccount);
  if (accountWait > 0) throw accountLocked(accountWait);

  const found = await getUserWithPasswordByEmail(email);
  // an account without a password (password_hash "") never logs in with one; it takes as long
  const stored = found && hasPassword(found.password_hash) ? found.password_hash : await dummyHash();
  const ok = (await verifyPassword(password, stored)) && Boolean(found && hasPassword(found.password_hash));
  if (!found || !ok || (found.is_demo && !cfg.demo)) {
    await hit(keys.account, { max: cfg.loginMaxFailuresPerAccount, windowMs });
    await hit(keys.address, { max: cfg.loginMaxFailuresPerAddress, windowMs });
    throw new LoginError(401, { email: [INVALID_LOGIN] });
  }
  const { password_hash: _hash, ...user } = found;
  return user;
}

/**
 * Sign-ups per client address (SIGNUP_MAX_PER_ADDRESS per SIGNUP_WINDOW_MINUTES; an IPv6 client
 * counts with its whole /64 network), for the sign-up page and POST /api/auth/signup: counts this
 * attempt and refuses it (429) past the limit. Every attempt with a well-formed form counts,
 * also one answered "Email address is already in use.": that answer is the one place the product
 * says an address has an account (docs/spec.md), so this limit is what keeps it from being used to
 * test addresses at scale (docs/decisions/0033-sign-up-enumeration.md).
 */
export async function checkSignupAllowed(address: string): Promise<void> {
  const cfg = config();
  const { blocked, retryAfterMs } = await hit(`signup:address:${addressNetwork(address)}`, {
    max: cfg.signupMaxPerAddress,
    windowMs: cfg.signupWindowMinutes * 60_000,
  });
  if (blocked) {
    throw new LoginError(
      429,
      { email: [`Too many sign-ups from your network. Try again in ${minutesText(retryAfterMs)}.`] },
      retryAfterMs,
    );
  }
}

export const DEMO_EMAIL = "demo@aa.io";

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

// ---- passkeys (the sign-in itself: ./passkey.server.ts) -----------------------------------

/**
 * The Set-Cookie that asks the next pages to offer a passkey ("Next time, sign in with your face
 * or fingerprint"): after joining by invitation or signing in by a link. It holds no secret, so
 * the page's script may read and clear it (app/components/passkeys.tsx, PasskeyOffer); 10 minutes.
 */
export function passkeyOfferCookie(request: Request): string {
  return `${PASSKEY_OFFER_COOKIE}=1; Path=/; Max-Age=600; SameSite=Lax${isHttps(request) ? "; Secure" : ""}`;
}
