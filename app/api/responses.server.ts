// The JSON API's responses and its four error envelopes, in one place (docs/api.md, Error envelopes).
import { SERVER_ERROR_MESSAGE } from "~/lib/messages";
import { busyRetryAfter, isDatabaseBusy } from "~/lib/db.server";

type Init = { status?: number; headers?: HeadersInit };

export function json(body: unknown, init: Init = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "private, no-store");
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}

/** (C) `{"errors": {"message": "…"}}`: auth, users, kids, daily_logs, friendships. */
export function apiError(status: number, message: string): Response {
  return json({ errors: { message } }, { status });
}

/** (C') `{"error": {"message": "…"}}`: likes and comments. */
export function apiErrorSingular(status: number, message: string): Response {
  return json({ error: { message } }, { status });
}

/** (B) `{"errors": {"<field>": ["…"]}}`: form validation, 400. */
export function apiFieldErrors(errors: Record<string, string[]>, status = 400): Response {
  return json({ errors }, { status });
}

/** (A) bare field errors: log-in and sign-up failures, 401 (429 with Retry-After when rate limited). */
export function apiBareFieldErrors(errors: Record<string, string[]>, status = 401, headers?: HeadersInit): Response {
  return json(errors, { status, headers });
}

/** zod issues → `{field: [messages]}` (first-level path; form-level issues under "message"). */
export function fieldErrorsFromIssues(issues: { path: PropertyKey[]; message: string }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = issue.path.length ? String(issue.path[0]) : "message";
    (out[key] ??= []).includes(issue.message) || out[key]!.push(issue.message);
  }
  return out;
}

export const UNAVAILABLE_MESSAGE = "The service is busy. Please try again in a moment.";

/**
 * 503 with Retry-After, envelope (C): the database stayed locked by another process past the write
 * path's patience (docs/decisions/0017-processes-and-write-transactions.md).
 */
export function apiUnavailable(retryAfterSeconds: number): Response {
  const response = apiError(503, UNAVAILABLE_MESSAGE);
  response.headers.set("Retry-After", String(retryAfterSeconds));
  return response;
}

/**
 * The mark of a function built by apiHandler: it always answers a Response and throws nothing else.
 * The server's GET /api fast path serves only loaders that carry it (server/api-fast-path.mjs,
 * docs/decisions/0010-api-fast-path.md), so it never hands a request it started to React Router.
 */
export const ANSWERS_RESPONSE: unique symbol = Symbol.for("sweet-moments.answers-response");

/**
 * Wraps an /api loader or action: a thrown Response passes through; any other error is logged with
 * its stack on the server and answered with the generic 500 envelope, never a stack trace.
 */
export function apiHandler<A extends { request: Request }>(
  fn: (args: A) => Promise<Response>,
): (args: A) => Promise<Response> {
  const handler = async (args: A) => {
    try {
      return await fn(args);
    } catch (error) {
      if (error instanceof Response) return error;
      if (isDatabaseBusy(error)) return apiUnavailable(busyRetryAfter(error));
      console.error(`[api] ${args.request.method} ${new URL(args.request.url).pathname}`, error);
      return apiError(500, SERVER_ERROR_MESSAGE);
    }
  };
  return Object.assign(handler, { [ANSWERS_RESPONSE]: true as const });
}
