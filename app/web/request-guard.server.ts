import { isRouteErrorResponse, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { apiError, apiUnavailable, UNAVAILABLE_MESSAGE } from "~/api/responses.server";
import { isBodyTooLarge, requestStateContext, type Rejection, type RequestState } from "~/lib/request-state";
import { addPhotosLimits, UPLOAD_LIMITS } from "~/images/limits";
import { config } from "~/lib/config.server";
import { archiveBodyBytes } from "~/imports/body.server";
import { busyRetryAfter, isDatabaseBusy } from "~/lib/db.server";
import { getUser } from "./auth.server";

// Requests refused for what they are rather than for what they ask (docs/decisions/0019-request-
// hardening.md): a method the path does not take, a body past its limit or not a form, and whatever
// the server refused before any route ran (bad Host, request-target, announced size, cross-site
// form post). Each gets a 4xx in its route's envelope: JSON on /api, the error page elsewhere, the
// image route's plain text; the security middleware around this one adds the headers.

/** The largest bodies read: text (JSON, urlencoded, any body but a photo form's) and a photo form's multipart (see `bodyLimit`). */
export const BODY_LIMITS = Object.freeze({
  text: 1024 * 1024,
  /** The photos of a moment (each up to 15 MB, 64 MB together) and the form's text fields. */
  multipart: UPLOAD_LIMITS.maxBodyBytes,
  /**
   * Past its limit a body is still read and thrown away up to here, so a browser gets our answer
   * instead of a reset connection; then the connection is closed.
   */
  drain: UPLOAD_LIMITS.maxDrainBytes,
});

export type PathKind = "api" | "image" | "page";

/** Which envelope a path answers in (app/routes.ts; paths match case-insensitively). */
export function pathKind(pathname: string): PathKind {
  const path = pathname.toLowerCase();
  if (path === "/api" || path.startsWith("/api/")) return "api";
  // a photo or a clip's file: GET and HEAD only, plain answers
  if (/^\/(images|videos)\/[^/]+\/[^/]+\/?$/.test(path)) return "image";
  return "page";
}

/** The paths of "Add photos" (docs/decisions/0065-drafts.md): up to ADD_PHOTOS_MAX_FILES photos at once. */
const ADD_PHOTOS_PATHS = [/^\/kids\/[^/]+\/drafts\/new$/, /^\/api\/kids\/[^/]+\/imports$/];

/**
 * The paths that take photos (app/routes.ts): only there may a multipart body be up to
 * BODY_LIMITS.multipart; every other body, multipart included, is held to BODY_LIMITS.text (a
 * log-in form has no reason to send more). A script's submission (`….data`) counts as its page.
 */
const PHOTO_PATHS = [
  /^\/kids\/add-new$/,
  /^\/kids\/[^/]+\/update$/,
  /^\/kids\/[^/]+\/dailylogs\/new$/,
  /^\/dailylogs\/[^/]+\/update$/,
  /^\/profile\/picture$/,
  /^\/api\/kids\/new$/,
  /^\/api\/kids\/(?!current$)[^/]+$/,
  /^\/api\/kids\/[^/]+\/daily_logs\/new$/,
  /^\/api\/daily_logs\/[^/]+$/,
  /^\/api\/users\/(?:upload|update)-profile-picture$/,
  // one photo of a moment's form, sent as soon as it is chosen (docs/decisions/0067-one-photo-control.md)
  /^\/api\/kids\/[^/]+\/pending_photos$/,
  ...ADD_PHOTOS_PATHS,
];

/** True when `pathname`'s route reads photos (its multipart body may be up to BODY_LIMITS.multipart). */
export function takesPhotos(pathname: string): boolean {
  return matches(PHOTO_PATHS, pathname);
}

/** Does `pathname` (any case, a script's `….data`, a trailing slash) match one of `paths`? */
function matches(paths: RegExp[], pathname: string): boolean {
  const path = pathname
    .toLowerCase()
    .replace(/\.data$/, "")
    .replace(/(.)\/+$/, "$1");
  return paths.some((re) => re.test(path));
}

/** The paths of a moment's add and update (pages and /api): they take a clip too (docs/decisions/0064-video-clips.md). */
const CLIP_PATHS = [
  /^\/kids\/[^/]+\/dailylogs\/new$/,
  /^\/dailylogs\/[^/]+\/update$/,
  /^\/api\/kids\/[^/]+\/daily_logs\/new$/,
  /^\/api\/daily_logs\/[^/]+$/,
];

/** True when `pathname`'s route reads clips (its multipart body may hold one clip of VIDEO_MAX_MB beside the photos). */
export function takesClips(pathname: string): boolean {
  return matches(CLIP_PATHS, pathname);
}

/**
 * The paths that take an archive to import ("Move in", docs/decisions/0066-imports.md): the page's
 * form and POST /api/imports (multipart, or the ZIP itself), and a kid's imports endpoint when the
 * body is the ZIP itself (`application/zip`; its multipart body is photos, above).
 */
const ARCHIVE_PATHS = [/^\/settings\/import$/, /^\/api\/imports$/];
const ZIP_BODY_PATHS = [...ARCHIVE_PATHS, /^\/api\/kids\/[^/]+\/imports$/];

/** The most body bytes read for a request to `pathname` with `contentType`. */
export function bodyLimit(pathname: string, contentType: string | null | undefined): number {
  const archive = archiveBodyBytes();
  if (/^application\/(zip|x-zip-compressed)\b/i.test(contentType ?? "") && matches(ZIP_BODY_PATHS, pathname))
    return archive;
  if (/^multipart\/form-data\b/i.test(contentType ?? "") && matches(ARCHIVE_PATHS, pathname)) return archive;
  if (!/^multipart\/form-data\b/i.test(contentType ?? "") || !takesPhotos(pathname)) return BODY_LIMITS.text;
  if (matches(ADD_PHOTOS_PATHS, pathname)) return addPhotosLimits(config().addPhotosMaxFiles).maxBodyBytes;
  return takesClips(pathname) ? BODY_LIMITS.multipart + config().videoMaxMb * 1024 * 1024 : BODY_LIMITS.multipart;
}

/** The Allow header of a 405 on this path. */
export function allowedMethods(pathname: string): string {
  return pathKind(pathname) === "image" ? "GET, HEAD" : "GET, HEAD, POST";
}

/** /api paths that answer signed-out callers (everything else there answers 401 first). */
export const PUBLIC_API_PATHS = new Set([
  "/api/auth",
  "/api/auth/",
  "/api/auth/login",
  "/api/auth/signup",
  "/api/auth/logout",
  "/api/auth/magic-link",
  "/api/auth/unauthorized",
]);

const PAGE_MESSAGES: Record<number, string> = {
  400: "That request could not be read.",
  403: "Cross-site request refused",
  404: "Page not found",
  405: "This page cannot be used that way.",
  413: "That was too much to send: a form takes up to 1 MB of text and photos of up to 15 MB each, 64 MB together. Nothing was saved.",
  415: "That form could not be read: it must be sent as a web form. Nothing was saved.",
};

const API_MESSAGES: Record<number, string> = {
  400: "The request could not be read.",
  403: "Cross-site request refused",
  404: "Not found",
  405: "Not found",
  413: "Request body is too large.",
  415: "The request body could not be read.",
};

/** Records a refusal for the server's log line (one per refused request). */
export function noteRejection(context: Pick<RouterContextProvider, "get">, rejection: Rejection): void {
  const state = context.get(requestStateContext);
  if (state && !state.rejection) state.rejection = rejection;
}

/**
 * For entry.server's handleError: true when `error` is the client's fault (a body past its limit,
 * a page form that is not a form, React Router's own 4xx such as a POST to a page without an
 * action), which is answered 4xx (by `requestGuard` for the first two) and logged as one line by
 * the server, never with a stack.
 */
export function isClientError(error: unknown, context: Pick<RouterContextProvider, "get"> | undefined): boolean {
  const state = context?.get(requestStateContext) ?? null;
  if (isRouteErrorResponse(error) && error.status >= 400 && error.status < 500) {
    if (context) noteRejection(context, { status: error.status, reason: error.statusText || "refused by the router" });
    return true;
  }
  if (isBodyTooLarge(error)) {
    if (state) state.bodyTooLarge = true;
    return true;
  }
  // request.formData() (undici): the only errors it has are about the client's body
  if (error instanceof TypeError) {
    const unreadable = error.message.startsWith("Content-Type was not one of")
      ? "type"
      : error.message.startsWith("Failed to parse body as FormData")
        ? "content"
        : null;
    if (unreadable) {
      if (state) state.unreadableBody = unreadable;
      return true;
    }
  }
  return false;
}

/**
 * For entry.server's handleError: true when `error` is the database being locked by another
 * process for longer than the write path waits (docs/decisions/0017-processes-and-write-
 * transactions.md); `requestGuard` then answers 503 with Retry-After instead of the 500.
 */
export function isUnavailable(error: unknown, context: Pick<RouterContextProvider, "get"> | undefined): boolean {
  if (!isDatabaseBusy(error)) return false;
  const state = context?.get(requestStateContext) ?? null;
  if (state) state.unavailable = busyRetryAfter(error);
  return true;
}

function unavailable(kind: PathKind, retryAfter: number): Response {
  if (kind === "api") return apiUnavailable(retryAfter);
  const headers = {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "Retry-After": String(retryAfter),
  };
  const response = new Response(UNAVAILABLE_MESSAGE, { status: 503, headers });
  if (kind === "page") throw response; // the root error boundary shows it as its heading
  return response;
}

const PAGE_METHODS = new Set(["GET", "HEAD", "POST"]);
const IMAGE_METHODS = new Set(["GET", "HEAD"]);

/**
 * Root middleware, inside the security middleware. Before the route: the server's rejection, or a
 * method the path does not take. After it: a failure caused by the body (too large, not a form)
 * becomes the 4xx it is.
 */
export const requestGuard: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const state = context.get(requestStateContext);
  const method = request.method.toUpperCase();
  const kind = pathKind(new URL(request.url).pathname);
  const early: Rejection | null =
    state?.rejection ??
    ((kind === "page" && !PAGE_METHODS.has(method)) || (kind === "image" && !IMAGE_METHODS.has(method))
      ? { status: 405, reason: `${method} not allowed here` }
      : null);
  if (early) return refuse(request, context, kind, early);

  const response = await next();
  if (state?.unavailable && response.status >= 500) {
    noteRejection(context, { status: 503, reason: "database locked by another process" });
    return unavailable(kind, state.unavailable);
  }
  const late = state ? bodyRejection(state, request, response) : null;
  return late ? refuse(request, context, kind, late) : response;
};

function bodyRejection(state: RequestState, request: Request, response: Response): Rejection | null {
  if (state.bodyTooLarge) {
    // A photo route's own 400 for its multipart body stays (the photo forms name the too-large
    // photo on the form, and the API's answer for it is 400 (B), api-contract.md); anything else
    // built on a cut body is moot.
    const photoBody = bodyLimit(new URL(request.url).pathname, request.headers.get("Content-Type")) > BODY_LIMITS.text;
    if (response.status >= 500 || (response.status === 400 && !photoBody))
      return { status: 413, reason: "body over its limit" };
  }
  if (state.unreadableBody && response.status >= 500) {
    return state.unreadableBody === "type"
      ? { status: 415, reason: "form action sent something other than a form" }
      : { status: 400, reason: "form body could not be parsed" };
  }
  return null;
}

async function refuse(
  request: Request,
  context: Pick<RouterContextProvider, "get">,
  kind: PathKind,
  rejection: Rejection,
): Promise<Response> {
  noteRejection(context, rejection);
  const { status } = rejection;
  if (kind === "api") {
    // api-contract.md: 401 comes first; an unknown method is "not found". A refusal with words of
    // its own (a Host the site does not answer for) comes before: the request is not for this site.
    const path = new URL(request.url).pathname.toLowerCase();
    if (!rejection.message && !PUBLIC_API_PATHS.has(path) && !(await getUser(request)))
      return apiError(401, "Unauthorized");
    return apiError(status === 405 ? 404 : status, rejection.message ?? API_MESSAGES[status] ?? API_MESSAGES[400]!);
  }
  const plain = new Response(rejection.message ?? PAGE_MESSAGES[status] ?? PAGE_MESSAGES[400], {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
  if (kind === "image") return plain;
  // Thrown: a page's root error boundary shows the message as its heading; a resource route
  // outside /api (log out) answers this plain text as it is.
  throw plain;
}
