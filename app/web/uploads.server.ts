import type { MiddlewareFunction } from "react-router";
import { withUploadScope } from "~/images/multipart.server";

/**
 * Installed on the root route after the security middleware: the temp files of the photos a
 * request uploaded are removed when its handling ends, whatever happened (a client that went away,
 * an error, a refusal), not at the next sweep (app/images/multipart.server.ts).
 */
export const uploadScopeMiddleware: MiddlewareFunction<Response> = ({ request }, next) => {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD") return next();
  return withUploadScope(() => next());
};
