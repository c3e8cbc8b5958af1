// Issue #20.6: the design keeps the pages light. Sizes, never times: the HTML + CSS of a kid's page
// of 20 moments (each with a photo) is at most 20 KB brotli, compressed as the server does (HTML at
// quality 3 per response, the stylesheets precompressed at 11: server/index.mjs); and no image can
// shift the layout (every <img> and inline <svg> has width and height). `npm run bench` reports
// the same figures for its seeded pages (docs/design.md).
import zlib from "node:zlib";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, closeE2eDb, jpegFile } from "./kids-helpers";

test.afterAll(closeE2eDb);

const BUDGET_HTML_CSS_BR = 20 * 1024;

const brotli = (text: string, quality: number) =>
  zlib.brotliCompressSync(Buffer.from(text), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } }).length;

/** Brotli bytes of the page's HTML (as the server sends a rendered page) and of its stylesheets. */
async function weight(request: APIRequestContext, path: string) {
  const res = await request.get(path, { headers: { "accept-encoding": "identity" } });
  expect(res.status()).toBe(200);
  const html = await res.text();
  const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!);
  expect(css.length, "the page links its stylesheets").toBeGreaterThan(0);
  let cssBr = 0;
  for (const href of css) cssBr += brotli(await (await request.get(href, { headers: { "accept-encoding": "identity" } })).text(), 11);
  return { htmlBr: brotli(html, 3), cssBr, total: brotli(html, 3) + cssBr };
}

/** Every image on the page declares its size (no layout shift while it loads). */
async function expectSizedImages(page: Page, path: string) {
  await page.goto(path);
  await expect(page.locator("h1").first()).toBeVisible();
  const unsized = await page.evaluate(() =>
    [...document.querySelectorAll("img, main svg")]
      .filter((el) => !(el.getAttribute("width") && el.getAttribute("height")))
      .map((el) => el.outerHTML.slice(0, 120)),
  );
  expect(unsized, `images without width and height on ${path}`).toEqual([]);
}

test("a kid's page of 20 moments weighs at most 20 KB brotli (HTML + CSS); every image has its size", async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await signUp(page, newAccount("kb"));
  const kid = await apiCreateKid(page.request, { name: "Elsa", birth_date: "2021-03-04", relationship: "Mom" }, await jpegFile("k.jpg", 400, 400));
  let last = 0;
  for (let i = 1; i <= 20; i++) {
    const m = await apiCreateMoment(
      page.request,
      kid.id,
      { title: `Moment number ${i}`, content: `A few words about moment ${i}: what happened, who was there, and why it made us smile.` },
      await jpegFile(`m${i}.jpg`, i % 2 ? 640 : 400, i % 2 ? 400 : 640, i % 2 ? "#69c" : "#c96"),
    );
    last = m.id;
  }
  const path = `/kids/${kid.id}/dailyLogs`;
  await page.goto(path);
  await expect(page.locator("article.moment")).toHaveCount(20);

  const w = await weight(page.request, path);
  await testInfo.attach("page-weight.json", { body: JSON.stringify({ path, ...w, budget: BUDGET_HTML_CSS_BR }, null, 2), contentType: "application/json" });
  expect(w.total, `HTML ${w.htmlBr} B + CSS ${w.cssBr} B brotli`).toBeLessThanOrEqual(BUDGET_HTML_CSS_BR);

  for (const p of [path, "/my-kids-list", "/feed", `/dailyLogs/${last}`, "/current/friends", "/"]) await expectSizedImages(page, p);
});
