// The one-time submission token of the creating forms (docs/decisions/0016-one-time-submissions.md).
// Every form that creates something (sign-up, a kid, a moment, a friend request, a comment, an
// invitation link, a co-parent invitation, joining or accepting by invitation: the list is in 0016) carries
// a random token in a hidden field; POST /api creates may send the same as an `Idempotency-Key`
// header. The server runs a submission once per token: a repeat (a double click, a resent form)
// answers the first result instead of a second row or a misleading error. Browser code imports this
// module, so it stays plain data.

/** The hidden field of the creating forms. */
export const SUBMISSION_FIELD = "submissionToken";

/** The request header of the /api creates (optional; without it nothing changes). */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** Longest token accepted (a UUID is 36 characters). */
export const SUBMISSION_TOKEN_MAX = 200;

/**
 * A token as a client sent it, or null when there is none or it is not one: 1 to 200 visible ASCII
 * characters. The header may quote it (`"…"`, a structured-field string); the quotes are dropped.
 */
export function parseSubmissionToken(value: unknown): string | null {
  if (typeof value !== "string") return null;
  let token = value.trim();
  if (token.length >= 2 && token.startsWith('"') && token.endsWith('"')) token = token.slice(1, -1);
  if (token.length < 1 || token.length > SUBMISSION_TOKEN_MAX) return null;
  return /^[\x21-\x7e]+$/.test(token) ? token : null;
}
