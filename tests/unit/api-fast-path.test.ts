// The server's lean dispatcher for GET /api (server/api-fast-path.mjs) must answer exactly what
// React Router would: the same route for every URL (React Router's own matchRoutes is the
// reference), the same answers as React Router's own request handler, and React Router for
// everything else; a request it takes never runs twice (docs/decisions/0010-api-fast-path.md).
// After a React Router upgrade, the first two describe blocks are the ones that catch a change.
import yauzl from "yauzl";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createRequestHandler, matchRoutes, type RouteObject, type ServerBuild } from "react-router";
import routes from "~/routes";
import * as root from "~/root";
import { ANSWERS_RESPONSE as APP_MARK, apiHandler, json } from "~/api/responses.server";
import { ANSWERS_RESPONSE, createApiFastPath, createMatcher } from "../../server/api-fast-path.mjs";
import { cookieFor, context, makeUser, req } from "../helpers";
import { createKid } from "~/models/kids.server";
import { answerFriendRequest, sendFriendRequest } from "~/models/friendships.server";
import { makeKid, makeKidMoment } from "~/models/social-test-fixtures.server";
import { likeMoment } from "~/models/likes.server";
import { addComment } from "~/models/comments.server";

type ConfigRoute = { id?: string; file: string; path?: string; index?: boolean; caseSensitive?: boolean };
const appDir = path.resolve(import.meta.dirname, "../../app");
const idOf = (r: ConfigRoute) => r.id ?? r.file.replace(/\.[jt]sx?$/, "");

type ManifestRoute = {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: a route module of any shape, as the build's manifest holds it
  module: any;
};

/** The build's route manifest shape: the root, and every route of app/routes.ts under it. */
async function manifest(withModules: boolean) {
  const m: Record<string, ManifestRoute> = {
    root: { id: "root", path: "", module: withModules ? root : {} },
  };
  for (const r of routes as ConfigRoute[]) {
    m[idOf(r)] = {
      id: idOf(r),
      parentId: "root",
      path: r.path,
      index: r.index,
      caseSensitive: r.caseSensitive,
      module: withModules ? await import(/* @vite-ignore */ path.join(appDir, r.file)) : {},
    };
  }
  return m;
}

/** URLs for every route: sample values, odd values, trailing slashes, other letter cases, encodings. */
function corpus(): string[] {
  const urls = new Set<string>([
    "/",
    "/api",
    "/api/",
    "/api/nope",
    "/api/kids/1/daily_logs/new/extra",
    "/API/KIDS/CURRENT",
    "//api//kids//1",
  ]);
  for (const r of routes as ConfigRoute[]) {
    if (r.path === undefined) continue;
    for (const value of ["1", "42", "abc", "1.5", "%20", "caf%C3%A9", "a%2Fb", "0"]) {
      const p = "/" + r.path.replace(/:[\w-]+/g, value).replace(/\*$/, "x/y");
      urls.add(p);
      urls.add(p + "/");
      urls.add(p.toUpperCase());
    }
  }
  return [...urls];
}

describe("the fast path's route matching", () => {
  it("picks the route React Router picks, with the same params, for every URL of the table", async () => {
    const m = await manifest(false);
    const match = createMatcher(m);
    const tree: RouteObject[] = [
      {
        id: "root",
        path: "",
        children: (routes as ConfigRoute[]).map(
          (r) => ({ id: idOf(r), path: r.path, index: r.index, caseSensitive: r.caseSensitive }) as RouteObject,
        ),
      },
    ];
    const urls = corpus();
    expect(urls.length).toBeGreaterThan(300);
    for (const url of urls) {
      const reference = matchRoutes(tree, url);
      const ours = match(url);
      expect(ours?.branch.leaf.id ?? null, url).toBe(reference?.at(-1)?.route.id ?? null);
      if (reference && ours) expect(ours.params, url).toEqual(reference.at(-1)!.params);
    }
  });
});

/** React Router's own request handler over a build of the same routes (resource routes need no more). */
function reactRouter(routeManifest: Record<string, ManifestRoute>) {
  const build = {
    routes: routeManifest,
    entry: { module: { handleError: () => {} } },
    ssr: true,
    routeDiscovery: { mode: "initial", manifestPath: "/__manifest" },
    future: {},
    prerender: [],
    basename: "/",
    publicPath: "/",
  };
  return createRequestHandler(build as unknown as ServerBuild, "production");
}

/** A response as the client sees it; the CSP nonce is random per request. */
function zipNames(res: Response): Promise<string[]> {
  return res.arrayBuffer().then(
    (buffer) =>
      new Promise((resolve, reject) =>
        yauzl.fromBuffer(Buffer.from(buffer), (err, zip) => {
          if (err || !zip) return reject(err);
          const names: string[] = [];
          zip.on("entry", (e: yauzl.Entry) => names.push(e.fileName));
          zip.on("end", () => resolve(names));
          zip.on("error", reject);
        }),
      ),
  );
}

async function seen(res: Response) {
  const headers = [...res.headers].map(([k, v]) => [k, v.replace(/'nonce-[^']*'/g, "'nonce-…'")]);
  // the export's ZIP says when it was made (data.json, entry times): compared by its entry names
  if (res.headers.get("Content-Type") === "application/zip")
    return { status: res.status, headers, body: await zipNames(res) };
  return { status: res.status, headers, body: await res.text() };
}

describe("the fast path's answers", () => {
  let routeManifest: Record<string, ManifestRoute>;
  let handle: (request: Request, context: unknown) => Promise<Response | null>;
  let ownerCookie: string;
  let friendCookie: string;
  let strangerCookie: string;
  let kidId: number;
  let logId: number;
  let commentId: number;

  beforeAll(async () => {
    routeManifest = await manifest(true);
    handle = createApiFastPath({ routes: routeManifest });
    const owner = await makeUser();
    const friend = await makeUser();
    const stranger = await makeUser();
    const kid = await createKid(owner.id, { name: "Ada", birth_date: "2024-01-02", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("kid");
    kidId = kid.kid.id;
    const request = await sendFriendRequest(owner.id, friend.id);
    if (!request.ok) throw new Error("friendship");
    await answerFriendRequest(friend.id, request.friendship.id, "accepted");
    [ownerCookie, friendCookie, strangerCookie] = await Promise.all([
      cookieFor(owner),
      cookieFor(friend),
      cookieFor(stranger),
    ]);
    logId = await makeKidMoment(await makeKid(owner.id));
    if (!(await likeMoment(friend.id, logId)).ok) throw new Error("like");
    const comment = await addComment(friend.id, logId, "Lovely!");
    if (!comment.ok) throw new Error("comment");
    commentId = comment.comment.id;
  });

  it("gives React Router's own answers for every GET /api route (owner, friend, stranger, signed out)", async () => {
    const reference = reactRouter(routeManifest);
    const urls = new Set([
      "/api/",
      "/api/no/such/thing",
      "/API/KIDS/CURRENT",
      "/api/kids/current/",
      "/api/users/search?q=user",
    ]);
    for (const r of routes as ConfigRoute[]) {
      if (!r.path?.startsWith("api/") || r.path === "api/*") continue;
      for (const value of [kidId, logId, commentId, "abc", "999999"])
        urls.add("/" + r.path.replace(/:[\w-]+/g, String(value)));
    }
    let taken = 0;
    for (const cookie of [ownerCookie, friendCookie, strangerCookie, undefined]) {
      for (const url of urls) {
        // signing out ends the session the next request needs; it is compared signed out only
        if (cookie && url.startsWith("/api/auth/logout")) continue;
        const ours = await handle(req(url, { cookie }), context());
        // only /API/… in capitals is left to React Router (the prefix check is case-sensitive)
        if (ours === null && !url.startsWith("/api/")) continue;
        const theirs = await reference(req(url, { cookie }), context());
        expect(ours, url).not.toBeNull();
        expect(await seen(ours!), `${url} ${cookie ? "signed in" : "signed out"}`).toEqual(await seen(theirs));
        taken += 1;
      }
    }
    expect(taken).toBeGreaterThan(200);
  });

  const get = (url: string, cookie?: string) => handle(req(url, { cookie }), context());

  it("answers the owner and a friend, refuses a stranger and a signed-out caller, with the security headers", async () => {
    for (const cookie of [ownerCookie, friendCookie]) {
      const res = (await get(`/api/kids/${kidId}/daily_logs`, cookie))!;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ daily_logs: [], next: null });
      expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    }
    const stranger = (await get(`/api/kids/${kidId}/daily_logs`, strangerCookie))!;
    expect(stranger.status).toBe(403);
    const signedOut = (await get(`/api/kids/${kidId}/daily_logs`))!;
    expect(signedOut.status).toBe(401);
    expect(await signedOut.json()).toEqual({ errors: { message: "Unauthorized" } });
    expect(signedOut.headers.get("X-Frame-Options")).toBe("DENY");
  });

  it("answers unknown ids and unknown /api paths with the contract's 404", async () => {
    expect((await get("/api/kids/999999/daily_logs", ownerCookie))!.status).toBe(404);
    expect((await get("/api/kids/abc/daily_logs", ownerCookie))!.status).toBe(404);
    const unknown = (await get("/api/no/such/thing", ownerCookie))!;
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("Content-Type")).toMatch(/^application\/json/);
  });

  it("answers /api paths ending in .data as the API does, where React Router would answer single-fetch data", async () => {
    // the one known difference (docs/decisions/0010-api-fast-path.md): ".data" is part of the id
    const ours = (await get(`/api/kids/${kidId}.data`, ownerCookie))!;
    expect(ours.status).toBe(404);
    expect(ours.headers.get("Content-Type")).toMatch(/^application\/json/);
    const theirs = await reactRouter(routeManifest)(req(`/api/kids/${kidId}.data`, { cookie: ownerCookie }), context());
    expect(theirs.headers.get("Content-Type")).toBe("text/x-script");
  });

  it("takes every GET /api route: each loader carries the mark of apiHandler", () => {
    expect(ANSWERS_RESPONSE).toBe(APP_MARK);
    const api = Object.values(routeManifest).filter((r) => r.path?.startsWith("api/"));
    expect(api.length).toBeGreaterThan(25);
    for (const r of api) expect(r.module.loader?.[ANSWERS_RESPONSE], r.id).toBe(true);
  });

  it("leaves pages, other methods and paths outside /api to React Router", async () => {
    expect(await get("/my-kids-list", ownerCookie)).toBeNull();
    expect(await get(`/kids/${kidId}/dailyLogs`, ownerCookie)).toBeNull();
    expect(await handle(req("/api/kids/new", { method: "POST", cookie: ownerCookie, json: {} }), context())).toBeNull();
    expect(await handle(req(`/api/kids/${kidId}`, { method: "HEAD", cookie: ownerCookie }), context())).toBeNull();
  });
});

describe("a request the fast path takes never runs twice", () => {
  /** A root with a counting middleware and one resource route at /api/x with `loader`. */
  // biome-ignore lint/suspicious/noExplicitAny: a loader of any signature, called with what the router passes
  function setup(loader: (...args: any[]) => unknown) {
    const calls = { middleware: 0, loader: 0 };
    const counted = Object.assign(async (...args: unknown[]) => {
      calls.loader += 1;
      return loader(...args);
    }, loader);
    const middleware = async (_args: unknown, next: () => Promise<Response>) => {
      calls.middleware += 1;
      return next();
    };
    const handle = createApiFastPath({
      routes: {
        root: { id: "root", path: "", module: { middleware: [middleware] } },
        x: { id: "x", parentId: "root", path: "api/x", module: { loader: counted } },
      },
    });
    return { calls, get: () => handle(req("/api/x"), context()) };
  }

  it("leaves a loader without the mark to React Router before anything runs", async () => {
    const { calls, get } = setup(async () => ({ data: 1 }));
    expect(await get()).toBeNull();
    expect(calls).toEqual({ middleware: 0, loader: 0 });
  });

  it("answers a marked loader's Response, and its thrown Response, running it once", async () => {
    const answer = setup(apiHandler(async () => json({ ok: true })));
    expect((await answer.get())!.status).toBe(200);
    expect(answer.calls).toEqual({ middleware: 1, loader: 1 });
    const thrown = setup(
      Object.assign(
        async () => {
          throw json({ nope: true }, { status: 409 });
        },
        { [ANSWERS_RESPONSE]: true },
      ),
    );
    expect((await thrown.get())!.status).toBe(409);
    expect(thrown.calls).toEqual({ middleware: 1, loader: 1 });
  });

  it("never hands a started request to React Router: a marked loader that breaks its promise is a 500", async () => {
    // data instead of a Response, or an error: the server answers 500 (server/index.mjs) and React
    // Router is not asked, so the loader does not run a second time
    for (const loader of [
      async () => ({ data: 1 }),
      async () => {
        throw new Error("bug");
      },
    ]) {
      const { calls, get } = setup(Object.assign(loader, { [ANSWERS_RESPONSE]: true }));
      await expect(get()).rejects.toThrow();
      expect(calls).toEqual({ middleware: 1, loader: 1 });
    }
  });
});
