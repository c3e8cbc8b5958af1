import crypto from "node:crypto";
import type { MiddlewareFunction } from "react-router";
import { config } from "~/lib/config.server";
import { nonceContext } from "~/lib/context";
import { getUser } from "./auth.server";
import { apiError } from "~/api/responses.server";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** /api paths that answer signed-out callers (everything else there answers 401 first). */
export const PUBLIC_API_PATHS = new Set([
  "/api/auth",
  "/api/auth/",
  "/api/auth/login",
  "/api/auth/signup",
  "/api/auth/logout",
  "/api/auth/unauthorized",
]);

/** The server's own origin: ORIGIN when set (behind a proxy), otherwise the request's. */
export function ownOrigin(request: Request): string {
  return config().origin ?? new URL(request.url).origin;
}

/**
 * A state-changing request is accepted only when its Origin is ours, or when it has no Origin and
 * Sec-Fetch-Site is absent, "same-origin" or "none" (docs/api.md, same-origin rule).
 */
export function isCrossSiteRequest(request: Request): boolean {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return false;
  const origin = request.headers.get("Origin");
  if (origin !== null) return origin !== ownOrigin(request);
  const site = request.headers.get("Sec-Fetch-Site");
  return !(site === null || site === "same-origin" || site === "none");
}

export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-inline'" : ""}`,
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

export function applySecurityHeaders(headers: Headers, nonce: string) {
  headers.set("Content-Security-Policy", contentSecurityPolicy(nonce, import.meta.env?.DEV ?? false));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  headers.delete("X-Powered-By");
  // Pages and API answers are personal: never stored by shared caches.
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "private, no-cache");
}

function crossSiteRefusal(request: Request): Response {
  const path = new URL(request.url).pathname;
  if (path === "/api" || path.startsWith("/api/")) return apiError(403, "Cross-site request refused");
  return new Response("Cross-site request refused", {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * Root middleware: runs for every page, form post and resource route. A per-request CSP nonce,
 * the cross-site check (after the 401 that docs/api.md puts first), security headers.
 */
export const securityMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const nonce = crypto.randomBytes(16).toString("base64");
  context.set(nonceContext, nonce);

  let response: Response;
  if (isCrossSiteRequest(request)) {
    const path = new URL(request.url).pathname;
    const isApi = path === "/api" || path.startsWith("/api/");
    if (isApi && !PUBLIC_API_PATHS.has(path) && !(await getUser(request))) {
      response = apiError(401, "Unauthorized");
    } else {
      response = crossSiteRefusal(request);
    }
  } else {
    response = await next();
  }
  try {
    applySecurityHeaders(response.headers, nonce);
    return response;
  } catch {
    // immutable headers (a fetched response): copy
    const copy = new Response(response.body, response);
    applySecurityHeaders(copy.headers, nonce);
    return copy;
  }
};
