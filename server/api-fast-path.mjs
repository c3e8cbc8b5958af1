// @ts-check
// A lean dispatcher for GET requests to the JSON API's resource routes.
//
// Why: React Router's request pipeline (static handler, data strategy, match bookkeeping) costs
// about 0.2 ms of CPU per request, as much as a light /api loader; without this path GET /api
// serves 15-30 % fewer requests per second (measured: docs/decisions/0010-api-fast-path.md). It runs
// exactly what React Router would run for such a request, and nothing else: the same route table
// (app/routes.ts, from the build), the middleware of every matched route in order (the root's
// security middleware), then the resource route's loader with the same arguments.
//
// Whether it takes a request is decided before anything runs: a GET, under /api/, matching a
// resource route (no component, no error boundary) whose loader carries the ANSWERS_RESPONSE mark
// of app/api/responses.server.ts (it always answers a Response and throws nothing else). Everything
// else returns null at once and goes to React Router. A request it took is never handed to React
// Router afterwards, so no middleware or loader ever runs twice: a thrown Response is the answer (as
// in React Router), anything else is a bug and is thrown to the server's 500 handler.
// tests/unit/api-fast-path.test.ts checks the matching against React Router's matchRoutes and the
// answers against React Router's own request handler.

/** The mark set by app/api/responses.server.ts (apiHandler); Symbol.for, so both see one symbol. */
export const ANSWERS_RESPONSE = Symbol.for("sweet-moments.answers-response");

/**
 * @param {any} build the server build (`build/server/index.js`)
 * @returns {(request: Request, context: any) => Promise<Response | null>} null: not taken, nothing ran
 */
export function createApiFastPath(build) {
  const match = createMatcher(build.routes);

  return async function handle(request, context) {
    if (request.method !== "GET") return null;
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/api/")) return null;
    const found = match(url.pathname);
    if (!found) return null;
    const { branch, params } = found;
    const module = branch.leaf.module;
    // a resource route as React Router decides it, with a loader that always answers a Response
    if (module.default || module.ErrorBoundary || module.loader?.[ANSWERS_RESPONSE] !== true) return null;

    const args = { request, url, pattern: branch.pattern, params, context };
    const middleware = branch.middleware;

    /** @param {number} i @returns {Promise<Response>} */
    const run = async (i) => {
      if (i < middleware.length) {
        /** @type {Response | undefined} */
        let downstream;
        const next = async () => (downstream = await run(i + 1));
        const result = await middleware[i]?.(args, next);
        const response = result ?? downstream ?? (await next());
        if (!(response instanceof Response))
          throw new TypeError(`a middleware of ${branch.pattern} did not answer a Response`);
        return response;
      }
      const result = await module.loader(args);
      if (!(result instanceof Response))
        throw new TypeError(`the loader of ${branch.pattern} did not answer a Response`);
      return result;
    };
    try {
      return await run(0);
    } catch (error) {
      // taken means answered here: a thrown Response is the answer, as in React Router; anything
      // else goes to the server's 500 handler, never to React Router (it would run it all again)
      if (error instanceof Response) return error;
      throw error;
    }
  };
}

// ---- matching: React Router's ranking, with the patterns compiled once ---------------------
// (React Router's matchRoutes flattens, ranks and compiles the whole table on every call.)

/**
 * @typedef {{ id: string, parentId?: string, path?: string, index?: boolean, caseSensitive?: boolean, module: any }} BuildRoute
 * @typedef {{ leaf: BuildRoute, pattern: string, regex: RegExp, names: string[], score: number, order: number[], middleware: Function[] }} Branch
 */

/** @param {Record<string, BuildRoute>} manifest */
export function createMatcher(manifest) {
  /** @type {Map<string | undefined, BuildRoute[]>} */
  const children = new Map();
  for (const route of Object.values(manifest)) {
    const list = children.get(route.parentId) ?? [];
    list.push(route);
    children.set(route.parentId, list);
  }
  /** @type {Branch[]} */
  const branches = [];
  /** @param {string | undefined} parentId @param {BuildRoute[]} chain @param {string} parentPath @param {number[]} order */
  const flatten = (parentId, chain, parentPath, order) => {
    (children.get(parentId) ?? []).forEach((route, i) => {
      const path = [parentPath, route.path ?? ""].filter(Boolean).join("/");
      const routes = [...chain, route];
      flatten(route.id, routes, path, [...order, i]);
      // as in React Router: a route without a path matches only through its children, unless index
      if (route.path == null && !route.index) return;
      const segments = path.split("/").filter(Boolean);
      const splat = segments.at(-1) === "*";
      /** @type {string[]} */
      const names = [];
      let source = "";
      for (const s of splat ? segments.slice(0, -1) : segments) {
        if (s.startsWith(":")) {
          names.push(s.slice(1));
          source += "/([^/]+)";
        } else {
          source += "/" + s.replace(/[\\.*+^${}|()[\]?]/g, "\\$&");
        }
      }
      if (splat) names.push("*");
      source += splat ? "(?:/(.+)|/*)$" : "/*$";
      branches.push({
        leaf: route,
        pattern: "/" + path,
        regex: new RegExp(`^${source}`, route.caseSensitive ? "" : "i"),
        names,
        score: computeScore("/" + path, route.index),
        order: [...order, i],
        middleware: routes.flatMap((r) => r.module.middleware ?? []),
      });
    });
  };
  flatten(undefined, [], "", []);
  branches.sort((a, b) => (a.score !== b.score ? b.score - a.score : compareOrder(a.order, b.order)));

  /** @param {string} pathname @returns {{ branch: Branch, params: Record<string, string> } | null} */
  return function match(pathname) {
    let decoded;
    try {
      decoded = pathname
        .split("/")
        .map((s) => decodeURIComponent(s).replace(/\//g, "%2F"))
        .join("/");
    } catch {
      return null;
    }
    for (const branch of branches) {
      const m = branch.regex.exec(decoded);
      if (!m) continue;
      /** @type {Record<string, string>} */
      const params = {};
      branch.names.forEach((name, i) => {
        params[name] = (m[i + 1] ?? "").replace(/%2F/g, "/");
      });
      return { branch, params };
    }
    return null;
  };
}

/** React Router's route score (static segments first, then dynamic ones, splats last). */
/** @param {string} path @param {boolean | undefined} index */
function computeScore(path, index) {
  const segments = path.split("/");
  let score = segments.length;
  if (segments.includes("*")) score -= 2;
  if (index) score += 2;
  for (const s of segments) {
    if (s === "*") continue;
    score += /^:[\w-]+$/.test(s) ? 3 : s === "" ? 1 : 10;
  }
  return score;
}

/** Siblings keep their order; branches that are not siblings rank equally. @param {number[]} a @param {number[]} b */
function compareOrder(a, b) {
  const siblings = a.length === b.length && a.slice(0, -1).every((n, i) => n === b[i]);
  return siblings ? (a.at(-1) ?? 0) - (b.at(-1) ?? 0) : 0;
}
