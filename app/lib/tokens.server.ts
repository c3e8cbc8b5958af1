import crypto from "node:crypto";
import { config } from "./config.server";

// Link tokens (invitations, sign-in links): 256 random bits in the URL, only their sha256 at rest,
// so a copy of the database holds no usable link (docs/decisions/0026-invitations-and-sign-in-links.md).

export function newLinkToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, hash: hashLinkToken(token) };
}

/**
 * A link token that a repeat of the same one-time submission can make again (a double click on
 * "Create invitation link" answers the first link, which is not stored): an HMAC of `purpose`, the
 * user and the submission token with the session secret, 43 base64url characters like a random one.
 * Only who knows the secret can make it from the (page-visible) submission token.
 */
export function repeatableLinkToken(purpose: string, userId: number, seed: string): { token: string; hash: string } {
  const token = crypto
    .createHmac("sha256", config().sessionSecret)
    .update(`${purpose}:${userId}:${seed}`)
    .digest("base64url");
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** A token as it appears in a URL we made (43 base64url characters); anything else is no token. */
export function looksLikeLinkToken(value: string | undefined): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** A signature over `purpose` and a user id with the session secret (one-click unsubscribe links). */
export function signForUser(purpose: string, userId: number): string {
  return crypto.createHmac("sha256", config().sessionSecret).update(`${purpose}:${userId}`).digest("base64url");
}

export function verifyForUser(purpose: string, userId: number, signature: string): boolean {
  const expected = Buffer.from(signForUser(purpose, userId));
  const given = Buffer.from(signature);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}
