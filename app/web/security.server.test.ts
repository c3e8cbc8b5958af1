import { describe, expect, it } from "vitest";
import { documentNonce, isCrossSiteRequest, securityMiddleware } from "./security.server";
import { nonceContext } from "~/lib/context";
import { context, cookieFor, makeUser } from "../../tests/helpers";

const post = (path: string, headers: Record<string, string>) =>
  new Request(`http://localhost:3000${path}`, { method: "POST", headers });

/** `page`: the answer is a rendered document, whose nonce entry.server makes (documentNonce). */
async function run(request: Request, page = true) {
  const ctx = context();
  let reached = false;
  const res = (await securityMiddleware(
    { request, context: ctx, params: {}, unstable_pattern: "" } as never,
    async () => {
      reached = true;
      if (!page) return Response.json({ ok: true });
      return new Response(`<script nonce="${documentNonce(ctx)}"></script>`, {
        headers: { "Content-Type": "text/html" },
      });
    },
  )) as Response;
  return { res, reached, nonce: ctx.get(nonceContext) };
}

describe("cross-site rule", () => {
  it("accepts same origin, no Origin with same-origin/none/absent Sec-Fetch-Site, and GETs", () => {
    expect(isCrossSiteRequest(post("/x", { Origin: "http://localhost:3000" }))).toBe(false);
    expect(isCrossSiteRequest(post("/x", {}))).toBe(false);
    expect(isCrossSiteRequest(post("/x", { "Sec-Fetch-Site": "same-origin" }))).toBe(false);
    expect(isCrossSiteRequest(post("/x", { "Sec-Fetch-Site": "none" }))).toBe(false);
    expect(
      isCrossSiteRequest(new Request("http://localhost:3000/x", { headers: { Origin: "https://evil.test" } })),
    ).toBe(false);
  });
  it("refuses another origin, Origin null, and cross-site fetch metadata", () => {
    expect(isCrossSiteRequest(post("/x", { Origin: "https://evil.test" }))).toBe(true);
    expect(isCrossSiteRequest(post("/x", { Origin: "null" }))).toBe(true);
    expect(isCrossSiteRequest(post("/x", { "Sec-Fetch-Site": "cross-site" }))).toBe(true);
    expect(isCrossSiteRequest(post("/x", { "Sec-Fetch-Site": "same-site" }))).toBe(true);
  });
});

describe("security middleware", () => {
  it("refuses a cross-site form post with 403 and never runs the action", async () => {
    const { res, reached } = await run(post("/logout", { Origin: "https://evil.test" }));
    expect(res.status).toBe(403);
    expect(reached).toBe(false);
    expect(await res.text()).toBe("Cross-site request refused");
  });

  it("answers a signed-out cross-site API call 401 first, a signed-in one 403 (C)", async () => {
    const anon = await run(post("/api/kids/new", { Origin: "https://evil.test" }));
    expect(anon.res.status).toBe(401);
    const cookie = await cookieFor(await makeUser());
    const signedIn = await run(post("/api/kids/new", { Origin: "https://evil.test", Cookie: cookie }));
    expect(signedIn.res.status).toBe(403);
    expect(await signedIn.res.json()).toEqual({ errors: { message: "Cross-site request refused" } });
    const login = await run(post("/api/auth/login", { Origin: "https://evil.test" }));
    expect(login.res.status).toBe(403);
  });

  it("sets an enforced CSP with a fresh nonce and the other headers", async () => {
    const a = await run(new Request("http://localhost:3000/"));
    const b = await run(new Request("http://localhost:3000/"));
    expect(a.nonce).not.toBe(b.nonce);
    const csp = a.res.headers.get("Content-Security-Policy")!;
    expect(csp).toContain(`'nonce-${a.nonce}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(a.res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(a.res.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    expect(a.res.headers.get("X-Powered-By")).toBeNull();
    expect(a.res.headers.get("Content-Security-Policy-Report-Only")).toBeNull();
    expect(await a.res.text()).toBe(`<script nonce="${a.nonce}"></script>`);
  });

  it("names no nonce in the policy of an answer that rendered no page", async () => {
    const json = await run(new Request("http://localhost:3000/api/kids/current"), false);
    expect(json.nonce).toBe("");
    const csp = json.res.headers.get("Content-Security-Policy")!;
    // (vitest runs the app as in development, where inline scripts are also allowed)
    expect(csp).toMatch(/script-src 'self'( 'unsafe-inline')?; /);
    expect(csp).not.toContain("nonce");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(json.res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });
});
