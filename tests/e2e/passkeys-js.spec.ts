import { type ChildProcess, spawn } from "node:child_process";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import config from "../../playwright.config";
import { closeE2eDb, e2eDb } from "./e2e-db";
import { mailTo } from "./mail";
import { expect, logOut, newAccount, signUp, test } from "./utils";

// Passkeys in Chromium with its virtual authenticator (the DevTools protocol's WebAuthn domain),
// nothing of the WebAuthn library mocked (docs/decisions/0055-passkeys.md). WebAuthn's relying
// party must be a domain name and the suite's server is at 127.0.0.1, so this file starts a
// second server on the same database with ORIGIN=http://localhost:<E2E port + 1>; every other
// setting is the suite's (playwright.config.ts). js project only: passkeys need the page's scripts
// (the check that the log-in page has no passkey button without them is the last test here).

const port = Number(process.env.E2E_PORT ?? 3311) + 1;
const origin = `http://localhost:${port}`;
let server: ChildProcess | null = null;

test.beforeAll(async () => {
  const suiteServer = Array.isArray(config.webServer) ? config.webServer[0] : config.webServer;
  server = spawn(process.execPath, ["server/index.mjs"], {
    env: { ...process.env, ...suiteServer?.env, PORT: String(port), ORIGIN: origin },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${origin}/favicon.svg`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the passkey server on ${origin} did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

test.afterAll(async () => {
  server?.kill();
  await closeE2eDb();
});

/** A context on the localhost server whose browser has one platform authenticator (face, fingerprint). */
async function withAuthenticator(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: origin, javaScriptEnabled: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

test("create a passkey, sign out, sign in with it, rename and remove it; the last way in stays", async ({
  browser,
}) => {
  const { context, page } = await withAuthenticator(browser);
  const account = await signUp(page, newAccount("pk"));

  await page.goto("/settings");
  const section = page.locator("#passkeys");
  await expect(section.getByText("You have no passkey yet.")).toBeVisible();
  await section.getByLabel("Passkey name").fill("My laptop");
  await section.getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice--success")).toContainText("Your passkey has been saved.");
  await expect(section.locator(".session__device")).toHaveText(["My laptop"]);
  await expect(section.getByText(/not used yet/)).toBeVisible();

  await logOut(page);
  await page.goto("/login");
  const answer = page.waitForRequest((r) => r.url().endsWith("/api/auth/passkey") && r.method() === "POST");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  const replayed = (await answer).postData();

  // the new session is like a password's: listed, and this device's
  await page.goto("/settings");
  await expect(page.getByRole("region", { name: "Where you are logged in" }).getByText("(this device)")).toBeVisible();
  await expect(section.getByText(/last used/)).toBeVisible();

  // the same signed answer sent again is refused: its challenge was used
  const again = await page.request.post("/api/auth/passkey", {
    data: replayed ?? "",
    headers: { "Content-Type": "application/json", Origin: origin },
  });
  expect(again.status()).toBe(401);

  await section.getByLabel("New name for My laptop").fill("Work laptop");
  await section.getByRole("button", { name: "Rename My laptop" }).click();
  await expect(page.locator(".notice--success")).toContainText("The passkey has been renamed.");
  await expect(section.locator(".session__device")).toHaveText(["Work laptop"]);

  // without a password, the only passkey is the last way in this account set up: kept
  const db = e2eDb();
  const user = await db("users").where("email_normalized", account.email.toLowerCase()).first("id", "password_hash");
  await db("users").where("id", user.id).update({ password_hash: "" });
  await section.getByRole("button", { name: "Remove Work laptop" }).click();
  await expect(section.getByRole("alert")).toContainText("This is the last passkey of an account without a password");
  await expect(section.locator(".session__device")).toHaveText(["Work laptop"]);

  await db("users").where("id", user.id).update({ password_hash: user.password_hash });
  await page.goto("/settings");
  await section.getByRole("button", { name: "Remove Work laptop" }).click();
  await expect(page.locator(".notice--success")).toContainText("The passkey has been removed.");
  await expect(section.getByText("You have no passkey yet.")).toBeVisible();

  // removed: it signs in no more
  await logOut(page);
  await page.goto("/login");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await context.close();
});

test("after signing in by an emailed link, a passkey is offered; next time it signs in, also from the log-in modal", async ({
  browser,
}) => {
  const { context, page } = await withAuthenticator(browser);
  const account = await signUp(page, newAccount("pl"));
  await logOut(page);
  await page.goto("/login/email");
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  const mail = await mailTo(account.email);
  const url = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? "")![0];
  expect(url.startsWith(origin)).toBe(true);
  await page.goto(url);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  const offer = page.locator(".passkey-offer");
  await expect(offer.getByRole("heading", { name: "Next time, sign in with your face or fingerprint" })).toBeVisible();
  await offer.getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice--success")).toContainText("Your passkey has been saved.");
  await expect(offer).toHaveCount(0);
  // once: another page does not offer it again
  await page.goto("/my-kids-list");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(offer).toHaveCount(0);

  await logOut(page);
  await page.goto("/?modal=login");
  const dialog = page.getByRole("dialog", { name: "Log In" });
  await dialog.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  await page.goto("/settings");
  await expect(page.locator("#passkeys").getByText(/last used/)).toBeVisible();
  await context.close();
});

test("without JavaScript the log-in page has no passkey button and logging in still works", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: origin, javaScriptEnabled: false });
  const page = await context.newPage();
  const account = await signUp(page, newAccount("pn"));
  await page.goto("/settings");
  await expect(page.locator("#passkeys").getByText("You have no passkey yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create a passkey" })).toHaveCount(0);
  await logOut(page);
  await page.goto("/login");
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toHaveCount(0);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  await context.close();
});
