// The design keeps the pages light (docs/design.md "Checks"). Sizes, never times: the HTML + CSS of
// a kid's page of 20 moments (each with a photo) is at most 20 KB brotli, compressed as the server
// does (HTML at quality 3 per response, the stylesheets precompressed at 11: server/index.mjs); and
// no image can shift the layout (every <img> and inline <svg> has width and height); on a 400-px
// phone (DPR 2) the images the page asks for by its load, and those on its first screen, weigh at
// most 150 KB. `npm run bench` reports the same figures for its seeded pages (docs/design.md).
import zlib from "node:zlib";
import sharp from "sharp";
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { expect, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile, type FilePayload } from "./kids-helpers";
import { closeE2eDb } from "./e2e-db";

test.afterAll(closeE2eDb);

const BUDGET_HTML_CSS_BR = 20 * 1024;
const BUDGET_PHONE_IMAGES = 150 * 1024;

/** A photo-like JPEG: soft grain over a colour, so its derivatives weigh like a photo's, not like a flat colour's. */
async function grainyJpeg(name: string, width: number, height: number, background: string): Promise<FilePayload> {
  const buffer = await sharp({
    create: { width, height, channels: 3, background, noise: { type: "gaussian", mean: 128, sigma: 20 } },
  })
    .blur(3)
    .jpeg({ quality: 85 })
    .toBuffer();
  return { name, mimeType: "image/jpeg", buffer };
}

/**
 * The image bytes a 400-px phone at DPR 2 fetches for the page: every photo requested before the
 * load event (the eager ones and the lazy ones near the first screen), and every photo on the first
 * screen (waited for until drawn). JavaScript on, as on a phone: Chromium does not lazy-load
 * images with JavaScript off. Bytes as sent (Resource Timing's encoded body size, same origin).
 */
async function phoneImageBytes(browser: Browser, page: Page, path: string) {
  const ctx = await browser.newContext({
    baseURL: test.info().project.use.baseURL,
    viewport: { width: 400, height: 800 },
    deviceScaleFactor: 2,
    javaScriptEnabled: true,
  });
  try {
    await ctx.addCookies(await page.context().cookies());
    const phone = await ctx.newPage();
    await phone.goto(path, { waitUntil: "load" });
    const firstScreen = phone.locator("main img").filter({ visible: true });
    await expect
      .poll(() =>
        firstScreen.evaluateAll((imgs) =>
          imgs
            .filter((i) => i.getBoundingClientRect().top < innerHeight)
            .every((i) => (i as HTMLImageElement).complete),
        ),
      )
      .toBe(true);
    return await phone.evaluate(() => {
      const load = (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd;
      const onScreen = new Set(
        [...document.querySelectorAll("img")]
          .filter((i) => i.getBoundingClientRect().top < innerHeight && i.getBoundingClientRect().bottom > 0)
          .map((i) => i.currentSrc),
      );
      const photos = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter(
        (e) => new URL(e.name).pathname.startsWith("/images/") && (e.startTime <= load || onScreen.has(e.name)),
      );
      return {
        images: photos.length,
        onScreen: onScreen.size,
        bytes: photos.reduce((sum, e) => sum + e.encodedBodySize, 0),
      };
    });
  } finally {
    await ctx.close();
  }
}

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
  for (const href of css)
    cssBr += brotli(await (await request.get(href, { headers: { "accept-encoding": "identity" } })).text(), 11);
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

test("a kid's page of 20 moments weighs at most 20 KB brotli (HTML + CSS) and 150 KB of first-screen images on a phone; every image has its size", async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(300_000);
  await signUp(page, newAccount("kb"));
  const kid = await apiCreateKid(
    page.request,
    { name: "Elsa", birth_date: "2021-03-04", relationship: "Mom" },
    await jpegFile("k.jpg", 400, 400),
  );
  let last = 0;
  for (let i = 1; i <= 20; i++) {
    const m = await apiCreateMoment(
      page.request,
      kid.id,
      {
        title: `Moment number ${i}`,
        content: `A few words about moment ${i}: what happened, who was there, and why it made us smile.`,
      },
      await grainyJpeg(`m${i}.jpg`, i % 2 ? 1600 : 1000, i % 2 ? 1000 : 1600, i % 2 ? "#69c" : "#c96"),
    );
    last = m.id;
  }
  const path = `/kids/${kid.id}/dailyLogs`;
  await page.goto(path);
  await expect(page.locator("article.moment")).toHaveCount(20);

  const w = await weight(page.request, path);
  const phone = await phoneImageBytes(browser, page, path);
  await testInfo.attach("page-weight.json", {
    body: JSON.stringify(
      { path, ...w, budget: BUDGET_HTML_CSS_BR, phoneImages: phone, phoneImagesBudget: BUDGET_PHONE_IMAGES },
      null,
      2,
    ),
    contentType: "application/json",
  });
  expect(w.total, `HTML ${w.htmlBr} B + CSS ${w.cssBr} B brotli`).toBeLessThanOrEqual(BUDGET_HTML_CSS_BR);
  // the measure sees the photos (it would pass on a page without any): the first moment's at least
  expect(phone.onScreen).toBeGreaterThanOrEqual(1);
  expect(phone.images).toBeGreaterThanOrEqual(phone.onScreen);
  expect(phone.images, "not every photo of the page (the others wait until scrolled near)").toBeLessThan(20);
  expect(phone.bytes, `${phone.images} images on a 400-px phone`).toBeLessThanOrEqual(BUDGET_PHONE_IMAGES);

  for (const p of [path, "/my-kids-list", "/feed", `/dailyLogs/${last}`, "/current/friends", "/"])
    await expectSizedImages(page, p);
});
