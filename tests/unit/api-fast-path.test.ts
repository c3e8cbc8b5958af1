// The server's lean dispatcher for GET /api (server/api-fast-path.mjs) must answer exactly what
// React Router would: the same route for every URL (React Router's own matchRoutes is the
// reference), the root's middleware around the loader, and React Router for everything else.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { matchRoutes, type RouteObject } from "react-router";
import routes from "~/routes";
import * as root from "~/root";
import { createApiFastPath, createMatcher } from "../../server/api-fast-path.mjs";
import { cookieFor, context, makeUser, req } from "../helpers";
import { createKid } from "~/models/kids.server";
import { answerFriendRequest, sendFriendRequest } from "~/models/friendships.server";

type ConfigRoute = { id?: string; file: string; path?: string; index?: boolean; caseSensitive?: boolean };
const appDir = path.resolve(import.meta.dirname, "../../app");
const idOf = (r: ConfigRoute) => r.id ?? r.file.replace(/\.[jt]sx?$/, "");

/** The build's route manifest shape: the root, and every route of app/routes.ts under it. */
async function manifest(withModules: boolean) {
  const m: Record<string, { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean; module: unknown }> = {
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
  const urls = new Set<string>(["/", "/api", "/api/", "/api/nope", "/api/kids/1/daily_logs/new/extra", "/API/KIDS/CURRENT", "//api//kids//1"]);
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
      { id: "root", path: "", children: (routes as ConfigRoute[]).map((r) => ({ id: idOf(r), path: r.path, index: r.index, caseSensitive: r.caseSensitive }) as RouteObject) },
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

describe("the fast path's answers", () => {
  let handle: (request: Request, context: unknown) => Promise<Response | null>;
  let ownerCookie: string;
  let friendCookie: string;
  let strangerCookie: string;
  let kidId: number;

  beforeAll(async () => {
    handle = createApiFastPath({ routes: await manifest(true) });
    const owner = await makeUser();
    const friend = await makeUser();
    const stranger = await makeUser();
    const kid = await createKid(owner.id, { name: "Ada", birth_date: "2024-01-02", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("kid");
    kidId = kid.kid.id;
    const request = await sendFriendRequest(owner.id, friend.id);
    if (!request.ok) throw new Error("friendship");
    await answerFriendRequest(friend.id, request.friendship.id, "accepted");
    [ownerCookie, friendCookie, strangerCookie] = await Promise.all([cookieFor(owner), cookieFor(friend), cookieFor(stranger)]);
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

  it("leaves pages, other methods and paths outside /api to React Router", async () => {
    expect(await get("/my-kids-list", ownerCookie)).toBeNull();
    expect(await get(`/kids/${kidId}/dailyLogs`, ownerCookie)).toBeNull();
    expect(await handle(req("/api/kids/new", { method: "POST", cookie: ownerCookie, json: {} }), context())).toBeNull();
    expect(await handle(req(`/api/kids/${kidId}`, { method: "HEAD", cookie: ownerCookie }), context())).toBeNull();
  });
});
