import crypto from "node:crypto";
import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { siteOrigin } from "~/lib/config.server";
import { nonceContext } from "~/lib/context";
import { requestStateContext } from "~/lib/request-state";
import { getUser } from "./auth.server";
import { apiError } from "~/api/responses.server";
import { allowedMethods, noteRejection, pathKind, PUBLIC_API_PATHS } from "./request-guard.server";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export { PUBLIC_API_PATHS };

/**
 * A state-changing request is accepted only when its Origin is ours, or when it has no Origin and
 * Sec-Fetch-Site is absent, "same-origin" or "none" (docs/api.md, same-origin rule). Ours: the
 * site's origin, or the one the request was addressed to (a name of ALLOWED_HOSTS, checked by the
 * server before the app: docs/decisions/0038-the-site-address.md).
 */
export function isCrossSiteRequest(request: Request): boolean {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return false;
  return comesFromElsewhere(request);
}

function comesFromElsewhere(request: Request): boolean {
  const origin = request.headers.get("Origin");
  if (origin !== null) return origin !== siteOrigin() && origin !== new URL(request.url).origin;
  const site = request.headers.get("Sec-Fetch-Site");
  return !(site === null || site === "same-origin" || site === "none");
}

/**
 * GET /api/auth/logout ends the session (the contract keeps it a GET): another site must not be
 * able to log a user out with a link or an image, so it gets the same rule as a state-changing
 * request (docs/decisions/0019-request-hardening.md).
 */
export function isCrossSiteLogout(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return false;
  const path = new URL(request.url).pathname.toLowerCase().replace(/\/+$/, "");
  return path === "/api/auth/logout" && comesFromElsewhere(request);
}

/**
 * A GET that another site made the browser send (a link, a redirect, an image): the pages that keep
 * a note of a visit (the feed's last visit) read without writing then, so no site can move it.
 */
export function isVisitFromElsewhere(request: Request): boolean {
  return comesFromElsewhere(request);
}

export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self'${nonce ? ` 'nonce-${nonce}'` : ""}${dev ? " 'unsafe-inline'" : ""}`,
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** The policy of every answer that is not a rendered page (JSON, photos, redirects): built once. */
const POLICY_WITHOUT_NONCE = contentSecurityPolicy("", import.meta.env?.DEV ?? false);

/**
 * A fresh CSP nonce for the document being rendered (entry.server), kept in the request's context
 * so the security middleware names it in the page's policy. Only a rendered page has inline
 * scripts: JSON, redirects, photos and 304s make none (making and encoding one for every answer
 * was a measurable part of the smallest answers' CPU; docs/decisions/0057-bench-side-by-side.md).
 */
export function documentNonce(context: RouterContextProvider): string {
  const nonce = crypto.randomBytes(16).toString("base64");
  context.set(nonceContext, nonce);
  return nonce;
}

/**
 * `personal`: the answer was made for a signed-in user (or signs someone in or out). Such pages are
 * never kept, not even in the browser's history cache: after Log Out, Back must not show them again
 * (docs/decisions/0019-request-hardening.md). Answers that set their own Cache-Control keep it
 * (the API's JSON says `private, no-store`; photos are private and immutable).
 */
export function applySecurityHeaders(headers: Headers, nonce: string, personal = false) {
  headers.set(
    "Content-Security-Policy",
    nonce ? contentSecurityPolicy(nonce, import.meta.env?.DEV ?? false) : POLICY_WITHOUT_NONCE,
  );
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  headers.delete("X-Powered-By");
  // Pages and API answers are personal: never stored by shared caches.
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", personal ? "private, no-store" : "private, no-cache");
}

function crossSiteRefusal(request: Request): Response {
  if (pathKind(new URL(request.url).pathname) === "api") return apiError(403, "Cross-site request refused");
  return new Response("Cross-site request refused", {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * Root middleware: runs for every page, form post and resource route. The cross-site check (after
 * the 401 that docs/api.md puts first), security headers with the rendered page's CSP nonce, if any.
 */
export const securityMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  let response: Response;
  const notForThisSite = Boolean(context.get(requestStateContext)?.rejection?.message);
  if (!notForThisSite && (isCrossSiteRequest(request) || isCrossSiteLogout(request))) {
    noteRejection(context, { status: 403, reason: "cross-site request" });
    const path = new URL(request.url).pathname;
    if (pathKind(path) === "api" && !PUBLIC_API_PATHS.has(path) && !(await getUser(request))) {
      response = apiError(401, "Unauthorized");
    } else {
      response = crossSiteRefusal(request);
    }
  } else {
    response = await next();
  }
  // signed in, or signing in or out: nothing of this answer may be kept
  const personal =
    !response.headers.has("Cache-Control") && (response.headers.has("Set-Cookie") || (await getUser(request)) !== null);
  response = withMutableHeaders(response);
  if (response.status === 405 && !response.headers.has("Allow")) {
    response.headers.set("Allow", allowedMethods(new URL(request.url).pathname));
  }
  // a page's 503 (the database locked by another process) is rendered by the error boundary, which
  // keeps the status of the thrown answer but not its headers (docs/decisions/0017-*)
  const retryAfter = context.get(requestStateContext)?.unavailable;
  if (response.status === 503 && retryAfter && !response.headers.has("Retry-After")) {
    response.headers.set("Retry-After", String(retryAfter));
  }
  // the nonce of the page entry.server rendered for this answer (documentNonce); none for any other
  applySecurityHeaders(response.headers, context.get(nonceContext), personal);
  // a 304's headers replace the stored page's: a new nonce in its CSP would block the stored page's
  // scripts, whose nonce is the one of the answer that was kept (docs/decisions/0034-conditional-pages.md)
  if (response.status === 304) response.headers.delete("Content-Security-Policy");
  return response;
};

/** The response itself, or a copy when its headers are immutable (a fetched response). */
function withMutableHeaders(response: Response): Response {
  try {
    response.headers.set("X-Content-Type-Options", "nosniff");
    return response;
  } catch {
    return new Response(response.body, response);
  }
}
