// @ts-check
// A lean dispatcher for GET requests to the JSON API's resource routes.
//
// Why: React Router's request pipeline (static handler, data strategy, match bookkeeping) costs
// about 0.3 ms per request; our /api loaders cost about as much on their own. The benchmark target
// for GET /api/kids/{id}/daily_logs (#7) needs that time back. This runs exactly what React Router
// would run for such a request, and nothing else: the same route table (app/routes.ts, from the
// build), the middleware of every matched route in order (the root's security middleware), then the
// resource route's loader with the same arguments. Anything it is not sure about (other methods,
// pages, a loader that does not answer a Response, an error) goes to React Router as before.
// server/api-fast-path.test.ts checks that both give the same answers.

/**
 * @param {any} build the server build (`build/server/index.js`)
 * @returns {(request: Request, context: any) => Promise<Response | null>} null: not handled here
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
    // resource routes only (no component), with a loader; the pages keep React Router's pipeline
    if (module.default || typeof module.loader !== "function") return null;

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
        if (!(response instanceof Response)) throw new NotHandled();
        return response;
      }
      const result = await module.loader(args);
      if (!(result instanceof Response)) throw new NotHandled();
      return result;
    };
    try {
      return await run(0);
    } catch (error) {
      // a thrown Response is an answer, as in React Router; anything else (a bug, a loader that
      // answers data instead of a Response) is React Router's to handle, with its error handling
      if (error instanceof Response) return error;
      return null;
    }
  };
}

class NotHandled extends Error {}

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
