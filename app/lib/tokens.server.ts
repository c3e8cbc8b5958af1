import crypto from "node:crypto";

// Link tokens (invitations, sign-in links): 256 random bits in the URL, only their sha256 at rest,
// so a copy of the database holds no usable link (docs/decisions/0026-invitations-and-sign-in-links.md).

export function newLinkToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** A token as it appears in a URL we made (43 base64url characters); anything else is no token. */
export function looksLikeLinkToken(value: string | undefined): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
}
