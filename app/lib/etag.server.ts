import crypto from "node:crypto";

// Conditional page requests (docs/decisions/0034-conditional-pages.md): a page's ETag is a digest
// of everything it shows to this viewer, computed before rendering. The build id is in every tag,
// so a new release never answers 304 to a page of the old one.

/** A fresh id per build (vite.config.ts defines it), so a deploy changes every tag. */
export const BUILD_ID: string = import.meta.env.SM_BUILD_ID ?? "dev";

/** A weak ETag (the page is equivalent, not byte-identical: the nonce and form token change) of `parts`. */
export function pageETag(parts: unknown): string {
  const digest = crypto
    .createHash("sha256")
    .update(BUILD_ID)
    .update("\u0000")
    .update(JSON.stringify(parts))
    .digest("base64url");
  return `W/"${digest.slice(0, 32)}"`;
}

/** Does an If-None-Match header name `etag`? Weak comparison (RFC 9110 §13.1.2); "*" matches any. */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const mine = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === mine);
}
