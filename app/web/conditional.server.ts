import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { ifNoneMatchHits, pageETag } from "~/lib/etag.server";
import { today } from "~/lib/dates.server";
import { accessStamp } from "~/models/access.server";
import { unreadNotifications } from "~/models/notifications.server";
import { getUser } from "./auth.server";

// Conditional pages (docs/decisions/0034-conditional-pages.md). A page that opts in (the kid's
// moments, a moment, the feed) is loaded ONCE per request, by its route middleware, before anything
// renders; the ETag is a digest of what the page shows this viewer:
//   - the page's own view data (kid, moments with their audiences, likes, comments, names, dates)
//     and its stamps (the moments' ids and updated_at: a photo change stamps its moment);
//   - the viewer and what the root shows them (name, picture, unread notifications);
//   - the viewer's access state from the access module (friendships and circles, co-parent roles,
//     blocks), today's date (ages), the URL and the build id.
// A matching If-None-Match gets 304 with no render and no body; anything else renders as usual,
// with the tag. `Cache-Control: private, no-cache`: the browser keeps the page and asks each time;
// no shared cache ever keeps it. Signed out, an error, a refusal: no tag, the page as before.

type Args = { request: Request; params: Record<string, string | undefined>; context: Readonly<RouterContextProvider> };
export type Loaded<T> = { view: T; stamps?: unknown };

/**
 * Headers for an answer after which kept pages may show what is gone (a deleted moment or kid, an
 * unfriend, a block; log-out has its own, app/web/auth.server.ts): the browser drops its kept
 * copies, so Back fetches them again instead of showing them (docs/decisions/0034-conditional-pages.md).
 */
export const FORGET_KEPT_PAGES: Readonly<Record<string, string>> = Object.freeze({ "Clear-Site-Data": '"cache"' });

/** What revisited pages answer: kept by the browser only, asked for again on every visit. */
export const CONDITIONAL_CACHE_CONTROL = "private, no-cache";

const unreadKey = createContext<Promise<number> | null>(null);

/** The viewer's unread notifications, read once per request (the root loader and the ETag both show it). */
export function unreadOnce(context: Readonly<RouterContextProvider>, viewerId: number): Promise<number> {
  let pending = context.get(unreadKey);
  if (!pending) {
    pending = unreadNotifications(viewerId);
    context.set(unreadKey, pending);
  }
  return pending;
}

/**
 * A page's middleware and loader around `load` (which may throw as a loader does): the middleware
 * loads and tags the page, answering 304 when the browser's copy is current; the loader answers
 * the view that was loaded (loading it itself for a request the middleware let pass).
 */
export function conditionalPage<T>(load: (args: Args) => Promise<Loaded<T>>) {
  const key = createContext<Promise<Loaded<T>> | null>(null);
  const loadOnce = (args: Args) => {
    let pending = args.context.get(key);
    if (!pending) {
      pending = load(args);
      // the loader awaits it; a failure must not go unhandled when only the middleware looked
      pending.catch(() => {});
      args.context.set(key, pending);
    }
    return pending;
  };

  const middleware: MiddlewareFunction<Response> = async (args, next) => {
    const { request, context } = args;
    if (request.method !== "GET") return next();
    const user = await getUser(request);
    if (!user) return next();
    let etag: string;
    try {
      const [page, unread, access] = await Promise.all([
        loadOnce(args),
        unreadOnce(context, user.id),
        accessStamp(user.id),
      ]);
      const url = new URL(request.url);
      etag = pageETag({
        url: url.pathname + url.search,
        viewer: [user.id, user.username, user.email, user.first_name, user.last_name, user.photo?.key ?? null],
        unread,
        access,
        today: today(),
        page,
      });
    } catch {
      // a redirect, a refusal, a bad cursor: the loader throws the same again, untagged
      return next();
    }
    const headers = { ETag: etag, "Cache-Control": CONDITIONAL_CACHE_CONTROL, Vary: "Cookie" };
    if (ifNoneMatchHits(request.headers.get("If-None-Match"), etag))
      return new Response(null, { status: 304, headers });
    let response = await next();
    if (response.status !== 200) return response;
    try {
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    } catch {
      response = new Response(response.body, response);
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    }
    return response;
  };

  const loader = async (args: Args): Promise<T> => (await loadOnce(args)).view;
  return { middleware, loader };
}
