import { type ChildProcess, spawn } from "node:child_process";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import config from "../../playwright.config";
import { closeE2eDb, e2eDb } from "./e2e-db";
import { mailTo } from "./mail";
import { expect, hydrated, logOut, newAccount, signUp, test } from "./utils";

// Passkeys in Chromium with its virtual authenticator (the DevTools protocol's WebAuthn domain),
// nothing of the WebAuthn library mocked (docs/decisions/0055-passkeys.md). WebAuthn's relying
// party must be a domain name and the suite's server is at 127.0.0.1, so this file starts a
// second server on the same database with ORIGIN=http://localhost:<E2E port + 1>; every other
// setting is the suite's (playwright.config.ts), its database included: the SQLite file, or the
// PostgreSQL database of E2E_DATABASE_URL (scripts/test.sh runs this file there too; the "last way
// in" step writes through e2eDb() what this server must then read). js project only: passkeys need
// the page's scripts (the check that the log-in page has no passkey button without them is the
// last test here).

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

type Cdp = Awaited<ReturnType<BrowserContext["newCDPSession"]>>;
const AUTHENTICATOR = {
  protocol: "ctap2",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

/**
 * A context on the localhost server whose browser has one platform authenticator (face,
 * fingerprint), and every message the page writes to its console as an error (and every uncaught
 * exception), to be none.
 */
async function withAuthenticator(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; cdp: Cdp; authenticatorId: string; consoleErrors: string[] }> {
  const context = await browser.newContext({ baseURL: origin, javaScriptEnabled: true });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(String(error)));
  // notes each call of navigator.credentials.get (its mediation and challenge) in the tab's session
  // storage, so it outlives the page's navigations; the call itself goes on unchanged
  await page.addInitScript(() => {
    const credentials = navigator.credentials;
    const get = credentials.get.bind(credentials);
    credentials.get = (options?: CredentialRequestOptions) => {
      const raw = options?.publicKey?.challenge;
      const bytes =
        raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array(raw?.buffer ?? new ArrayBuffer(0));
      const challenge = btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
      const calls = JSON.parse(sessionStorage.getItem("credential-gets") ?? "[]") as unknown[];
      calls.push({ mediation: options?.mediation ?? "", challenge });
      sessionStorage.setItem("credential-gets", JSON.stringify(calls));
      return get(options);
    };
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", { options: AUTHENTICATOR });
  return { context, page, cdp, authenticatorId, consoleErrors };
}

/**
 * Opens the log-in page with the autofill request waiting and unanswered, then gives the browser
 * its passkey: Chromium's virtual authenticator answers a conditional (autofill) request at once
 * when it holds a passkey of the site (as a person picking it from the suggestions would), and
 * leaves it waiting when it holds none, also once one is added. So the passkey moves to a new,
 * empty authenticator before the page opens and comes back once the request waits. Answers the
 * new authenticator's id.
 */
async function logInPageWithAutofillWaiting(page: Page, cdp: Cdp, authenticatorId: string, path = "/login") {
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
  const fresh = await cdp.send("WebAuthn.addVirtualAuthenticator", { options: AUTHENTICATOR });
  await page.goto(path);
  await hydrated(page);
  await expect(page.getByLabel("Email")).toHaveAttribute("autocomplete", "username webauthn");
  // the page has called navigator.credentials.get with conditional mediation (noted by
  // withAuthenticator's init script); the browser process starts the request a moment later, and a
  // passkey given before that would answer it
  await expect.poll(async () => (await credentialGets(page)).at(-1)?.mediation).toBe("conditional");
  await page.waitForTimeout(1000);
  for (const credential of credentials) {
    await cdp.send("WebAuthn.addCredential", { authenticatorId: fresh.authenticatorId, credential });
  }
  return fresh.authenticatorId;
}

/** The page's calls of navigator.credentials.get in this tab so far (withAuthenticator's init script). */
function credentialGets(page: Page): Promise<{ mediation: string; challenge: string }[]> {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem("credential-gets") ?? "[]"));
}

/** The challenge a sign-in answer (the body of POST /api/auth/passkey) signed. */
function signedChallenge(body: string | null): string {
  const answer = JSON.parse(body ?? "{}") as { response: { response: { clientDataJSON: string } } };
  return JSON.parse(Buffer.from(answer.response.response.clientDataJSON, "base64url").toString()).challenge;
}

test("create a passkey, sign out, sign in with it, rename and remove it; the last way in stays", async ({
  browser,
}) => {
  const { context, page, cdp, authenticatorId, consoleErrors } = await withAuthenticator(browser);
  const account = await signUp(page, newAccount("pk"));

  await page.goto("/settings");
  const section = page.locator("#passkeys");
  await expect(section.getByText("You have no passkey yet.")).toBeVisible();
  await section.getByLabel("Passkey name").fill("My laptop");
  await section.getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice--success")).toContainText("Your passkey has been saved.");
  await expect(section.locator(".session__device")).toHaveText(["My laptop"]);
  await expect(section.getByText(/not used yet/)).toBeVisible();

  // the button, pressed while the email field's autofill request waits: it aborts that request
  // and signs in with a challenge of its own
  await logOut(page);
  const before = (await credentialGets(page)).length;
  await logInPageWithAutofillWaiting(page, cdp, authenticatorId);
  const answer = page.waitForRequest((r) => r.url().endsWith("/api/auth/passkey") && r.method() === "POST");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  const replayed = (await answer).postData();
  const [autofill, button, ...more] = (await credentialGets(page)).slice(before);
  expect([autofill?.mediation, button?.mediation, more]).toEqual(["conditional", "", []]);
  expect(button?.challenge).not.toBe(autofill?.challenge);
  expect(signedChallenge(replayed)).toBe(button?.challenge);

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

  // removed: it signs in no more, by autofill (the authenticator answers the waiting request at
  // once) or by the button
  await logOut(page);
  await page.goto("/login");
  const refused = page.locator(".passkey-sign-in").getByRole("alert");
  await expect(refused).toHaveText("That passkey is not known here. Sign in another way, then add it in Settings.");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(refused).toHaveText("That passkey is not known here. Sign in another way, then add it in Settings.");
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeEnabled();
  await expect(page).toHaveURL(/\/login$/);
  // the refused removal (400) and the refused sign-ins (401) are answers the page shows
  expect(consoleErrors.filter((e) => !/status of 40[01] /.test(e))).toEqual([]);
  await context.close();
});

test("passkey autofill: picking the passkey from the email field's suggestions signs in, to where the visitor was going", async ({
  browser,
}) => {
  const { context, page, consoleErrors } = await withAuthenticator(browser);
  await signUp(page, newAccount("pa"));
  await page.goto("/settings");
  // its name is prefilled from this device
  await expect(page.locator("#passkeys").getByLabel("Passkey name")).toHaveValue("Chrome on Linux");
  await page.locator("#passkeys").getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice--success")).toContainText("Your passkey has been saved.");
  await logOut(page);

  // the virtual authenticator answers the page's conditional request as a person picking the
  // passkey would: no click, one sign-in begun, and its answer signed that request's challenge
  const before = (await credentialGets(page)).length;
  const answer = page.waitForRequest((r) => r.url().endsWith("/api/auth/passkey") && r.method() === "POST");
  await page.goto("/login?redirectTo=%2Fsettings");
  await expect(page).toHaveURL(/\/settings$/);
  const calls = (await credentialGets(page)).slice(before);
  expect(calls.map((c) => c.mediation)).toEqual(["conditional"]);
  expect(signedChallenge((await answer).postData())).toBe(calls[0]?.challenge);
  await expect(page.getByRole("region", { name: "Where you are logged in" }).getByText("(this device)")).toBeVisible();
  expect(consoleErrors).toEqual([]);
  await context.close();
});

test("an expired challenge, another browser's challenge and an answer made on another origin are refused", async ({
  browser,
}) => {
  const { context, page, consoleErrors } = await withAuthenticator(browser);
  await signUp(page, newAccount("pr"));
  await page.goto("/settings");
  await page.locator("#passkeys").getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice--success")).toContainText("Your passkey has been saved.");
  await logOut(page);
  // the log-in modal: its button, with no autofill request (the authenticator would answer that at once)
  await page.goto("/?modal=login");
  const dialog = page.getByRole("dialog", { name: "Log In" });
  const button = dialog.getByRole("button", { name: "Sign in with a passkey" });
  const alert = dialog.locator(".passkey-sign-in").getByRole("alert");

  // expired: the challenge's five minutes are over by the time the answer arrives
  await page.route("**/api/auth/passkey", async (route) => {
    await e2eDb()("webauthn_challenges").update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    await route.continue();
  });
  await button.click();
  await expect(alert).toHaveText("That took too long. Try again.");
  await page.unroute("**/api/auth/passkey");

  // another browser's challenge: this browser is handed the options another browser asked for
  // (its real answer, as a relay would), signs them, and answers with its own cookie
  const other = await browser.newContext({ baseURL: origin });
  const theirs = await (
    await other.request.post("/api/auth/passkey/options", { data: {}, headers: { Origin: origin } })
  ).text();
  await page.route("**/api/auth/passkey/options", (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: theirs }),
  );
  const relayed = page.waitForRequest((r) => r.url().endsWith("/api/auth/passkey") && r.method() === "POST");
  await button.click();
  await expect(alert).toHaveText("That took too long. Try again.");
  expect(signedChallenge((await relayed).postData())).toBe(JSON.parse(theirs).options.challenge);
  await page.unroute("**/api/auth/passkey/options");
  await other.close();

  // another origin: a page at http://localhost:<other port> (served by the test) may use the same
  // relying party ID, so the authenticator signs for it; the answer names that page's origin
  const phishing = `http://localhost:${port + 2}`;
  await page.route(`${phishing}/**`, (route) =>
    route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Log In</title><h1>Log In</h1>" }),
  );
  await page.goto(`${phishing}/login`);
  const asked = await page.request.post(`${origin}/api/auth/passkey/options`, {
    data: {},
    headers: { Origin: origin },
  });
  const { options } = (await asked.json()) as { options: { challenge: string; rpId: string } };
  const answer = await page.evaluate(async (o) => {
    const bytes = (text: string) =>
      Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const text = (buffer: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    const credential = (await navigator.credentials.get({
      publicKey: { challenge: bytes(o.challenge), rpId: o.rpId, userVerification: "preferred" },
    })) as PublicKeyCredential;
    const response = credential.response as AuthenticatorAssertionResponse;
    return {
      id: credential.id,
      rawId: text(credential.rawId),
      type: credential.type,
      clientExtensionResults: {},
      response: {
        authenticatorData: text(response.authenticatorData),
        clientDataJSON: text(response.clientDataJSON),
        signature: text(response.signature),
        userHandle: response.userHandle ? text(response.userHandle) : undefined,
      },
    };
  }, options);
  const clientData = JSON.parse(Buffer.from(answer.response.clientDataJSON, "base64url").toString());
  expect([clientData.origin, clientData.challenge]).toEqual([phishing, options.challenge]);
  const phished = await page.request.post(`${origin}/api/auth/passkey`, {
    data: { response: answer },
    headers: { Origin: origin },
  });
  expect([phished.status(), await phished.json()]).toEqual([
    401,
    { passkey: ["That passkey could not be checked. Try again."] },
  ]);

  // and the passkey itself is fine: on the site, it signs in
  await page.goto(`${origin}/?modal=login`);
  await button.click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  expect(consoleErrors.filter((e) => !/status of 401 /.test(e))).toEqual([]);
  await context.close();
});

test("after signing in by an emailed link, a passkey is offered; next time it signs in, also from the log-in modal", async ({
  browser,
}) => {
  const { context, page, consoleErrors } = await withAuthenticator(browser);
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
  // it comes after the page, so its arrival moves nothing the visitor may be about to tap
  const pageTop = await page.getByRole("heading", { level: 1 }).boundingBox();
  const offerTop = await offer.boundingBox();
  expect(offerTop!.y).toBeGreaterThan(pageTop!.y);
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
  expect(consoleErrors).toEqual([]);
  await context.close();
});

test("without JavaScript the log-in page has no passkey button and logging in still works", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: origin, javaScriptEnabled: false });
  const page = await context.newPage();
  const account = await signUp(page, newAccount("pn"), { javaScript: false });
  await page.goto("/settings");
  await expect(page.locator("#passkeys").getByText("You have no passkey yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create a passkey" })).toHaveCount(0);
  await logOut(page);
  await page.goto("/login");
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toHaveCount(0);
  // and no passkey autofill: the email field is as it always was
  await expect(page.getByLabel("Email")).toHaveAttribute("autocomplete", "email");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  await context.close();
});
