// The server's headers and its cross-site guard, over plain HTTP (no browser page): the js project
// only, since JavaScript in a browser plays no part (playwright.config.ts).
import { expect, test } from "./utils";

test.describe("headers", () => {
  test("every response carries the security headers; assets are immutable and compressed", async ({ request }) => {
    const page = await request.get("/");
    const h = page.headers();
    expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(h["x-powered-by"]).toBeUndefined();
    expect(h["cache-control"]).toContain("private");
    expect(h["content-encoding"]).toMatch(/br|gzip/);
    const html = await page.text();
    const asset = html.match(/href="(\/assets\/[^"]+\.css)"/)![1]!;
    const css = await request.get(asset);
    expect(css.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    const api = await request.get("/api/auth/");
    expect(api.headers()["x-content-type-options"]).toBe("nosniff");
    expect(api.headers()["content-type"]).toContain("application/json");
  });

  test("a cross-site form post is refused", async ({ request }) => {
    const res = await request.post("/logout", { headers: { Origin: "https://evil.example" }, form: { a: "1" } });
    expect(res.status()).toBe(403);
  });
});
