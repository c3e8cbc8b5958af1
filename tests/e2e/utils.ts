import crypto from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, test as base, type Browser, type Page, type TestInfo } from "@playwright/test";

/**
 * With JavaScript on, every `page.goto` and `page.reload` that lands on one of our pages resolves only
 * once the page's scripts have taken over (see `scriptsTookOver`): a test that clicks right after
 * loading a page then tests the page with JavaScript, never the plain form post a click before
 * hydration makes (which made tests flaky on a busy machine). Patched once per worker, on the page
 * class, so pages of every context a test opens wait too.
 */
export const test = base.extend<object, { scriptsWaitedFor: undefined }>({
  scriptsWaitedFor: [
    async ({ browser }, use) => {
      const context = await browser.newContext();
      const proto = Object.getPrototypeOf(await context.newPage()) as Page & { [patched]?: true };
      await context.close();
      if (!proto[patched]) {
        proto[patched] = true;
        const { goto, reload } = proto;
        proto.goto = async function (this: Page, ...args: Parameters<Page["goto"]>) {
          return afterLoad(this, await goto.apply(this, args), args[1]?.waitUntil);
        };
        proto.reload = async function (this: Page, ...args: Parameters<Page["reload"]>) {
          return afterLoad(this, await reload.apply(this, args), args[0]?.waitUntil);
        };
      }
      await use(undefined);
    },
    { scope: "worker", auto: true },
  ],
});
export { expect };

const patched = Symbol("scriptsWaitedFor");

type Loaded = Awaited<ReturnType<Page["goto"]>>;

async function afterLoad(page: Page, response: Loaded, waitUntil: string | undefined): Promise<Loaded> {
  if (waitUntil !== "commit" && response?.headers()["content-type"]?.startsWith("text/html"))
    await scriptsTookOver(page);
  return response;
}

/**
 * Resolves once a page with scripts has hydrated (root.tsx marks the body `js-enabled`) and React
 * has attached to every form, a lazily loaded part (the root's modals) included; at once where
 * scripts are off or the page has none.
 */
async function scriptsTookOver(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      matchMedia("(scripting: none)").matches ||
      !document.querySelector("script[type=module]") ||
      (document.body.classList.contains("js-enabled") &&
        Array.from(document.forms).every((form) => Object.keys(form).some((key) => key.startsWith("__reactFiber")))),
  );
}

export const isNoJs = (testInfo: TestInfo) => testInfo.project.name === "nojs";

/**
 * The tag of a test in which JavaScript in the page plays no part (forged requests, what the server
 * answers): it runs once, in the js project (playwright.config.ts; docs/decisions/0069-ci-time.md).
 */
export const ONCE = { tag: "@once" };

/**
 * With JavaScript on, resolves once the page's scripts have taken over (root.tsx marks the body
 * `js-enabled` after hydration): a click before that is a plain form post. Without JavaScript, at once.
 */
export async function hydrated(page: Page): Promise<void> {
  if (isNoJs(test.info())) return;
  await page.locator("body.js-enabled").waitFor();
  await scriptsTookOver(page);
}

/**
 * With JavaScript on, resolves once the moment form has sent every photo chosen (its status line
 * says "N of N … sent (100%)"), so a click that follows never lands while the list of photos is
 * still changing; a submit during the upload has its own test (uploads-js.spec.ts). Without
 * JavaScript the photos go with the form: at once.
 */
export async function photosSent(page: Page, count: number): Promise<void> {
  if (isNoJs(test.info())) return;
  const total = `${count} of ${count} ${count === 1 ? "photo" : "photos"} sent (100%)`;
  await expect(page.getByRole("status").filter({ hasText: total })).toBeVisible();
}

/** A phone's screen, for the specs that walk through a page as a relative on their phone would. */
export const PHONE = { width: 390, height: 844 };

/**
 * A page in a new browser context (no cookies), with the test's base URL and JavaScript setting
 * (and `viewport`, e.g. a phone's, when given).
 */
export async function freshPage(
  browser: Browser,
  testInfo: TestInfo,
  { viewport }: { viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const ctx = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
    ...(viewport ? { viewport } : {}),
  });
  return ctx.newPage();
}

/**
 * "3f0a" → "dpak": each hex digit as a letter of its own, for a name (names have no digits). One
 * letter per digit keeps the names as unique as the tag: a search by name in one test must never
 * find another test's account (with digits and the letters a–f sharing letters, four of them made
 * one name in 10,000, and a run's few hundred accounts met).
 */
const asLetters = (hex: string) => hex.replace(/[0-9a-f]/g, (d) => "abcdefghijklmnop"[Number.parseInt(d, 16)]!);

/** Unique account data for one test. */
export function newAccount(prefix = "u") {
  const tag = crypto.randomBytes(4).toString("hex");
  return {
    email: `${prefix}${tag}@example.com`,
    username: `${prefix}${tag}`,
    // names are letters only (docs/decisions/0061-*): the hex tag's digits become letters
    first: `Fname${asLetters(tag)}`,
    last: `Lname${asLetters(tag)}`,
    password: "secret12",
  };
}

const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * Zero axe violations on the page as the user sees it now. axe cannot run in a page with
 * JavaScript disabled (it hangs), so for the no-JS project the current DOM is copied into a
 * JS-enabled page whose own scripts are blocked, at the same URL (so the same CSS applies).
 * `colorScheme`: the theme the page was opened in (its context's colorScheme), so that the copy
 * checks the same colours.
 */
/**
 * The page axe checks a no-JavaScript page in: axe needs the page's JavaScript, so it runs on a copy
 * of the page's HTML, served to a page with JavaScript on whose own scripts never load (as the page
 * without JavaScript, nothing hydrates). One per worker, reused: a new browser context per check
 * cost about 0.7 s of the 1.1 s each no-JavaScript check took.
 */
let axeCopy: { browser: Browser; page: Page; document: { url: string; html: string } } | null = null;

async function axeCopyOf(page: Page, browser: Browser, colorScheme: "light" | "dark"): Promise<Page> {
  if (!axeCopy || axeCopy.browser !== browser || axeCopy.page.isClosed()) {
    const ctx = await browser.newContext({ javaScriptEnabled: true });
    const copy = await ctx.newPage();
    const document = { url: "", html: "" };
    await copy.route("**/*", async (route) => {
      const r = route.request();
      if (r.resourceType() === "script") return route.abort();
      if (r.url() === document.url && r.resourceType() === "document") {
        return route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: document.html });
      }
      return route.continue();
    });
    axeCopy = { browser, page: copy, document };
  }
  const { page: copy, document } = axeCopy;
  // a request's URL has no fragment: the copy is loaded at the page's URL without it
  document.url = page.url().replace(/#.*$/, "");
  document.html = await page.content();
  const viewport = page.viewportSize();
  if (viewport) await copy.setViewportSize(viewport);
  // the copy sees the page in the same theme (prefers-color-scheme) as the original
  await copy.emulateMedia({ colorScheme });
  // its scripts never load: it is not waited for as a page that hydrates
  await copy.goto(document.url, { waitUntil: "commit" });
  await copy.waitForLoadState("load");
  return copy;
}

export async function expectAccessible(page: Page, browser: Browser, options: { colorScheme?: "light" | "dark" } = {}) {
  const target =
    base.info().project.use.javaScriptEnabled === false
      ? await axeCopyOf(page, browser, options.colorScheme ?? "light")
      : page;
  const results = await new AxeBuilder({ page: target }).withTags(AXE_TAGS).analyze();
  const summary = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
  );
  expect(summary, `axe violations on ${page.url()}`).toEqual([]);
}

/** Opens the sign-up modal and fills it in (not sent); answers the dialog. */
export async function fillSignUp(page: Page, account: ReturnType<typeof newAccount>) {
  await page.goto("/?modal=signup");
  const dialog = page.getByRole("dialog", { name: "Create your account" });
  await dialog.getByLabel("Email").fill(account.email);
  await dialog.getByLabel("Username").fill(account.username);
  await dialog.getByLabel("First name").fill(account.first);
  await dialog.getByLabel("Last name").fill(account.last);
  await dialog.getByLabel("Password", { exact: true }).fill(account.password);
  await dialog.getByLabel("Confirm password").fill(account.password);
  return dialog;
}

/** Signs up through the standalone page's modal variant (works with and without JavaScript). */
export async function signUpThroughForm(page: Page, account = newAccount()) {
  const dialog = await fillSignUp(page, account);
  await dialog.getByRole("button", { name: "Register" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  return account;
}

/**
 * A new account signed in on `page`, for the specs that are not about signing up: made through
 * /api/auth/signup on the page's own cookies (the same `signUp` of the model as the form), then My
 * Kids opened and, with JavaScript, hydrated, as after Register (`javaScript`: false for a page
 * whose context has it off in the js project). Two page loads fewer than the form
 * (docs/decisions/0069-ci-time.md). The form itself is tested with `signUpThroughForm` and
 * `fillSignUp` (auth.spec.ts, double-submit.spec.ts, real-names.spec.ts).
 */
export async function signUp(page: Page, account = newAccount(), { javaScript = true } = {}) {
  const res = await page.request.post("/api/auth/signup", {
    data: {
      email: account.email,
      username: account.username,
      password: account.password,
      first_name: account.first,
      last_name: account.last,
    },
  });
  if (!res.ok()) throw new Error(`sign-up of ${account.email} refused: ${res.status()} ${await res.text()}`);
  await page.goto("/my-kids-list");
  await expect(page).toHaveURL(/\/my-kids-list$/);
  if (javaScript) await hydrated(page);
  return account;
}

export async function logIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
}

export async function logOut(page: Page) {
  await page.getByRole("group").or(page.locator("details.profile-menu")).first().locator("summary").click();
  await page.getByRole("button", { name: "Log Out" }).click();
  await expect(page).toHaveURL(/\/$/);
}

/** WCAG contrast ratio of two computed CSS colours ("rgb(r, g, b)" or "rgba(…)"). */
export function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r = 0, g = 0, bl = 0] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
