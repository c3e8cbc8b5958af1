import { describe, expect, it } from "vitest";
import fs from "node:fs";
import { BODY_LIMITS, bodyLimit, isClientError, pathKind, requestGuard, takesPhotos } from "./request-guard.server";
import { securityMiddleware } from "./security.server";
import { BodyTooLargeError, newRequestState, requestStateContext, type RequestState } from "~/lib/request-state";
import { context, cookieFor, makeUser } from "../../tests/helpers";

const BASE = "http://localhost:3000";

function contextWith(state: RequestState | null = newRequestState()) {
  const ctx = context();
  ctx.set(requestStateContext, state);
  return ctx;
}

async function guard(
  request: Request,
  state = newRequestState(),
  answer = () => new Response("route", { status: 200 }),
) {
  let reached = false;
  try {
    const res = (await requestGuard(
      { request, context: contextWith(state), params: {}, unstable_pattern: "" } as never,
      async () => {
        reached = true;
        return answer();
      },
    )) as Response;
    return { res, reached, thrown: false };
  } catch (error) {
    return { res: error as Response, reached, thrown: true };
  }
}

async function secure(request: Request, answer: () => Response) {
  let reached = false;
  const res = (await securityMiddleware(
    { request, context: contextWith(), params: {}, unstable_pattern: "" } as never,
    async () => {
      reached = true;
      return answer();
    },
  )) as Response;
  return { res, reached };
}

describe("which envelope a path answers in", () => {
  it("JSON under /api, plain text on the image route, pages elsewhere", () => {
    expect(pathKind("/api")).toBe("api");
    expect(pathKind("/API/kids/1")).toBe("api");
    expect(pathKind("/images/abc/640.webp")).toBe("image");
    expect(pathKind("/images/abc/640.webp/more")).toBe("page");
    expect(pathKind("//api/kids")).toBe("page");
    expect(pathKind("/apix")).toBe("page");
  });
});

describe("which bodies may be as big as photos", () => {
  it("only the routes that read photos; every other body, multipart included, 1 MB", () => {
    // every route of app/routes.ts whose module reads a photo, and no other (an example path of each)
    const source = fs.readFileSync("app/routes.ts", "utf8");
    const photoReader =
      /\b(savePhotoForm|readPhotoBody|readPhotoForm|readPictureUpload|pictureUploadResponse|readAddPhotosBody|addPhotosForm|saveMomentForm)\(/;
    const routes = [...source.matchAll(/route\("([^"]+)", "([^"]+)"\)/g)].map(([, pattern, file]) => ({
      path: "/" + pattern!.replace(/:[A-Za-z]+/g, "7").replace("*", "x"),
      photos: photoReader.test(fs.readFileSync(`app/${file}`, "utf8")),
    }));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) expect(takesPhotos(route.path), route.path).toBe(route.photos);
    expect(routes.filter((r) => r.photos).length).toBe(14);
    // "Add photos" takes up to ADD_PHOTOS_MAX_FILES photos at once (docs/decisions/0065-drafts.md)
    const addPhotos = 50 * 15 * 1024 * 1024 + 1024 * 1024;
    expect(bodyLimit("/kids/7/drafts/new", "multipart/form-data; boundary=x")).toBe(addPhotos);
    expect(bodyLimit("/kids/7/drafts", "multipart/form-data; boundary=x")).toBe(BODY_LIMITS.text);
    expect(bodyLimit("/api/kids/7/imports/", "multipart/form-data; boundary=x")).toBe(addPhotos);

    const multipart = "multipart/form-data; boundary=x";
    expect(bodyLimit("/kids/add-new", multipart)).toBe(BODY_LIMITS.multipart);
    // a moment's add and update take one clip beside the photos (docs/decisions/0064-video-clips.md)
    const withClip = BODY_LIMITS.multipart + 500 * 1024 * 1024;
    expect(bodyLimit("/KIDS/7/dailyLogs/new.data", multipart)).toBe(withClip);
    expect(bodyLimit("/dailyLogs/7/update", multipart)).toBe(withClip);
    expect(bodyLimit("/api/daily_logs/7", multipart)).toBe(withClip);
    expect(bodyLimit("/profile/picture/", multipart)).toBe(BODY_LIMITS.multipart);
    expect(bodyLimit("/kids/add-new", "application/x-www-form-urlencoded")).toBe(BODY_LIMITS.text);
    for (const path of [
      "/login",
      "/login.data",
      "/signup",
      "/dailyLogs/7/social",
      "/api/auth/login",
      "/api/kids/7/co_parents",
    ]) {
      expect(bodyLimit(path, multipart), path).toBe(BODY_LIMITS.text);
    }
    expect(BODY_LIMITS.text).toBe(1024 * 1024);
    // an archive to import, IMPORT_MAX_MB (docs/decisions/0066-imports.md): the form, POST /api/imports,
    // and the ZIP itself posted to a kid's imports; nowhere else
    const archive = 1024 * 1024 * 1024 + 64 * 1024;
    expect(bodyLimit("/settings/import", multipart)).toBe(archive);
    expect(bodyLimit("/settings/import.data", multipart)).toBe(archive);
    expect(bodyLimit("/api/imports", multipart)).toBe(archive);
    expect(bodyLimit("/api/imports", "application/zip")).toBe(archive);
    expect(bodyLimit("/api/kids/7/imports", "application/zip")).toBe(archive);
    expect(bodyLimit("/api/kids/7/daily_logs/new", "application/zip")).toBe(BODY_LIMITS.text);
    expect(bodyLimit("/settings/import/7", multipart)).toBe(BODY_LIMITS.text);
    expect(bodyLimit("/login", "application/zip")).toBe(BODY_LIMITS.text);
  });
});

describe("the request guard", () => {
  it("refuses methods a page or the image route does not take, before the route runs", async () => {
    const put = await guard(new Request(`${BASE}/login`, { method: "PUT" }));
    expect([put.thrown, put.reached, put.res.status]).toEqual([true, false, 405]);
    const image = await guard(new Request(`${BASE}/images/abc/640.webp`, { method: "POST" }));
    expect([image.thrown, image.reached, image.res.status]).toEqual([false, false, 405]);
    expect(image.res.headers.get("Content-Type")).toContain("text/plain");
    const api = await guard(new Request(`${BASE}/api/kids/1`, { method: "PATCH" }));
    expect(api.reached).toBe(true); // the API answers its own methods (404, api-contract.md)
  });

  it("answers the server's rejection in the route's envelope, 401 first on private /api paths", async () => {
    const rejected = () => ({ ...newRequestState(), rejection: { status: 413, reason: "test" } });
    const page = await guard(new Request(`${BASE}/login`), rejected());
    expect([page.thrown, page.reached, page.res.status]).toEqual([true, false, 413]);
    expect(await page.res.text()).toContain("That was too much to send");
    const publicApi = await guard(new Request(`${BASE}/api/auth/login`), rejected());
    expect(publicApi.res.status).toBe(413);
    expect(await publicApi.res.json()).toEqual({ errors: { message: "Request body is too large." } });
    // every route a signed-out caller may use is public: asking for a sign-in link too
    expect((await guard(new Request(`${BASE}/api/auth/magic-link`), rejected())).res.status).toBe(413);
    expect((await guard(new Request(`${BASE}/api/kids/current`), rejected())).res.status).toBe(401);
    const cookie = await cookieFor(await makeUser());
    const signedIn = await guard(new Request(`${BASE}/api/kids/current`, { headers: { Cookie: cookie } }), rejected());
    expect(signedIn.res.status).toBe(413);
  });

  it("turns a failure caused by the body into its 4xx, and leaves a photo form's own 400", async () => {
    const tooLarge = () => ({ ...newRequestState(), bodyTooLarge: true });
    const crashed = () => new Response("boom", { status: 500 });
    const form = (type: string) =>
      new Request(`${BASE}/login`, { method: "POST", headers: { "Content-Type": type }, body: "x" });
    expect((await guard(form("application/x-www-form-urlencoded"), tooLarge(), crashed)).res.status).toBe(413);
    const photoForm = await guard(
      new Request(`${BASE}/kids/add-new`, {
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=x" },
        body: "x",
      }),
      tooLarge(),
      () => new Response("form", { status: 400 }),
    );
    expect([photoForm.thrown, photoForm.res.status]).toEqual([false, 400]);
    const notAForm = await guard(form("application/json"), { ...newRequestState(), unreadableBody: "type" }, crashed);
    expect(notAForm.res.status).toBe(415);
    const ours = await guard(form("application/x-www-form-urlencoded"), newRequestState(), crashed);
    expect([ours.thrown, ours.res.status]).toEqual([false, 500]); // our own fault stays a 500
  });

  it("knows the client's errors from ours", () => {
    const state = newRequestState();
    const ctx = contextWith(state);
    expect(isClientError(new BodyTooLargeError(10), ctx)).toBe(true);
    expect(state.bodyTooLarge).toBe(true);
    expect(isClientError(new TypeError("Failed to parse body as FormData."), ctx)).toBe(true);
    expect(state.unreadableBody).toBe("content");
    expect(isClientError(new TypeError("Cannot read properties of undefined (reading 'id')"), ctx)).toBe(false);
    expect(isClientError(new Error("database is locked"), ctx)).toBe(false);
  });
});

describe("security middleware additions", () => {
  const page = () => new Response("<html></html>", { headers: { "Content-Type": "text/html" } });

  it("signed-in answers are never kept (no-store); signed-out pages are no-cache; own Cache-Control stays", async () => {
    const cookie = await cookieFor(await makeUser());
    const signedIn = await secure(new Request(`${BASE}/my-kids-list`, { headers: { Cookie: cookie } }), page);
    expect(signedIn.res.headers.get("Cache-Control")).toBe("private, no-store");
    const signedOut = await secure(new Request(`${BASE}/`), page);
    expect(signedOut.res.headers.get("Cache-Control")).toBe("private, no-cache");
    const loggingIn = await secure(
      new Request(`${BASE}/`),
      () => new Response(null, { status: 302, headers: { Location: "/", "Set-Cookie": "a=b" } }),
    );
    expect(loggingIn.res.headers.get("Cache-Control")).toBe("private, no-store");
    const photo = await secure(
      new Request(`${BASE}/images/a/1.webp`, { headers: { Cookie: cookie } }),
      () => new Response("x", { headers: { "Cache-Control": "private, max-age=31536000, immutable" } }),
    );
    expect(photo.res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
  });

  it("refuses GET /api/auth/logout from another site, not from ours", async () => {
    const json = () => new Response("{}", { headers: { "Content-Type": "application/json" } });
    const cross = await secure(
      new Request(`${BASE}/api/auth/logout`, { headers: { "Sec-Fetch-Site": "cross-site" } }),
      json,
    );
    expect([cross.reached, cross.res.status]).toEqual([false, 403]);
    expect(await cross.res.json()).toEqual({ errors: { message: "Cross-site request refused" } });
    const foreign = await secure(
      new Request(`${BASE}/api/auth/logout`, { headers: { Origin: "https://evil.test" } }),
      json,
    );
    expect(foreign.res.status).toBe(403);
    for (const site of [null, "same-origin", "none"]) {
      const headers: Record<string, string> = site ? { "Sec-Fetch-Site": site } : {};
      expect((await secure(new Request(`${BASE}/api/auth/logout`, { headers }), json)).reached, String(site)).toBe(
        true,
      );
    }
  });

  it("names the allowed methods on a 405", async () => {
    const res = (await secure(new Request(`${BASE}/`, { method: "POST" }), () => new Response("no", { status: 405 })))
      .res;
    expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
  });
});
