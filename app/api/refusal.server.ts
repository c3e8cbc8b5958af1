import type { Refusal, RefusalKind } from "~/models/refusal";
import { apiError, apiErrorSingular, apiFieldErrors } from "./responses.server";

// A domain refusal (app/models/refusal.ts) as the JSON API answers it: the one place
// that knows which status each kind of refusal is. The message is the refusal's own (the domain
// words it as docs/api.md does); field errors are envelope (B).

const STATUS: Record<RefusalKind, 400 | 403 | 404 | 429> = {
  "not-found": 404,
  forbidden: 403,
  invalid: 400,
  conflict: 400,
  "too-many": 429,
};

/** Only for a refusal that carries no message (every refusal of the routes in docs/api.md does). */
const FALLBACK: Record<RefusalKind, string> = {
  "not-found": "Not found",
  forbidden: "You are not authorized",
  invalid: "Invalid request",
  conflict: "Invalid request",
  "too-many": "Too many requests",
};

/** The status of a refusal. A hidden thing is still 403 here: docs/api.md says so. */
export function refusalStatus(refusal: Refusal): 400 | 403 | 404 | 429 {
  return STATUS[refusal.kind];
}

export function refusalMessage(refusal: Refusal): string {
  return refusal.message ?? FALLBACK[refusal.kind];
}

/** (C) `{"errors": {"message"}}`, or (B) for field errors: auth, users, kids, daily_logs, friendships. */
export function apiRefusal(refusal: Refusal): Response {
  if (refusal.fieldErrors) return apiFieldErrors(refusal.fieldErrors);
  return withRetryAfter(apiError(refusalStatus(refusal), refusalMessage(refusal)), refusal);
}

/** A rate limit that knows when it opens again says so (`Retry-After`). */
function withRetryAfter(response: Response, refusal: Refusal): Response {
  if (refusal.retryAfterSeconds) response.headers.set("Retry-After", String(refusal.retryAfterSeconds));
  return response;
}

/** (C') `{"error": {"message"}}`, or (B) for field errors (`comment`): likes and comments. */
export function apiRefusalSingular(refusal: Refusal): Response {
  if (refusal.fieldErrors) return apiFieldErrors(refusal.fieldErrors);
  return withRetryAfter(apiErrorSingular(refusalStatus(refusal), refusalMessage(refusal)), refusal);
}
