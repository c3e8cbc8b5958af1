import { createContext } from "react-router";

// What the server (server/index.mjs) and the app tell each other about one request, beyond the
// Request itself. See docs/decisions/0019-request-hardening.md.

/**
 * A request refused before, or instead of, what its route would have done. The answer's text
 * depends on the envelope (app/web/request-guard.server.ts).
 */
export type Rejection = {
  /** A 4xx. */
  status: number;
  /** For the log line: what was wrong, in a few words. */
  reason: string;
  /**
   * What the client is told, when not the envelope's usual words for the status: a Host the site
   * does not answer for. Such a refusal comes before the cross-site check and /api's 401: the
   * request is not for this site at all.
   */
  message?: string;
};

export type RequestState = {
  /**
   * Set by the server when it refuses the request before any route runs (bad Host, method,
   * request-target, announced body size, cross-site form post): the app is then given a bodiless
   * GET of the same path, and the root middleware answers with the rejection in the route's
   * envelope. Set by the app when it refuses a request itself (the server logs it).
   */
  rejection: Rejection | null;
  /** Set by the server when the body went past its limit while being read. */
  bodyTooLarge: boolean;
  /** Set when a page action failed because its body is not a form it can read. */
  unreadableBody: "type" | "content" | null;
  /**
   * Set when the route failed because the database stayed locked by another process past the
   * write path's patience: answered 503 with this Retry-After (seconds), never 500.
   */
  unavailable: number | null;
};

/** Set by the server for every request; null where a test calls a route directly. */
export const requestStateContext = createContext<RequestState | null>(null);

export function newRequestState(): RequestState {
  return { rejection: null, bodyTooLarge: false, unreadableBody: null, unavailable: null };
}

/**
 * The error a request body's stream fails with once it has given more bytes than the server
 * accepts for it (server/index.mjs). Every reader sees it: request.formData(), .text(), .json(),
 * and the multipart parser.
 */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

export function isBodyTooLarge(error: unknown): error is BodyTooLargeError {
  return error instanceof BodyTooLargeError;
}
