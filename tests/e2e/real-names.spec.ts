import crypto from "node:crypto";
import { request as apiRequest } from "@playwright/test";
import { expect, expectAccessible, fillSignUp, hydrated, logIn, newAccount, test } from "./utils";
import { mailTo } from "./mail";

// Real people's names and long passwords (docs/decisions/0061-real-names-and-long-passwords.md),
// on a phone, with JavaScript on and off: names of one and two letters and a 64-character
// password through sign-up, settings and /api; and after a sign-in by an emailed link the settings
// page asks no current password.

test.use({ viewport: { width: 390, height: 844 } });

/** 64 characters, as a password manager makes them (a different one each time). */
const longPassword = () => `${crypto.randomBytes(48).toString("base64")}`.slice(0, 62) + "!é";

test("names of one and two letters and a 64-character password work through sign-up, settings and /api", async ({
  page,
  browser,
  baseURL,
}) => {
  const account = { ...newAccount("names"), first: "Jo", last: "Li", password: longPassword() };
  expect([...account.password]).toHaveLength(64);

  // sign up as Jo Li
  const dialog = await fillSignUp(page, account);
  await hydrated(page);
  await dialog.getByRole("button", { name: "Register" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);

  // settings: one letter, another script, and every detail saved as it is
  await page.goto("/settings");
  const details = page.locator("form", { has: page.locator('input[name="intent"][value="profile"]') });
  await expect(details.getByLabel("First name")).toHaveValue("Jo");
  await expect(details.getByLabel("Last name")).toHaveValue("Li");
  await hydrated(page);
  await details.getByLabel("First name").fill("A");
  await details.getByLabel("Last name").fill("李");
  await details.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your details have been saved." })).toBeVisible();
  await expect(details.getByLabel("First name")).toHaveValue("A");
  await expect(details.getByLabel("Last name")).toHaveValue("李");
  await expectAccessible(page, browser);

  // a new 64-character password, with the current 64-character one
  const next = longPassword();
  const pw = page.locator("form", { has: page.locator('input[name="intent"][value="password"]') });
  await expect(pw.getByText("6 to 128 characters.")).toBeVisible();
  await pw.getByLabel("Current password").fill(account.password);
  await pw.getByLabel("New password", { exact: true }).fill(next);
  await pw.getByLabel("Confirm new password").fill(next);
  await pw.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your password has been saved." })).toBeVisible();

  // log out and back in with it
  await page.context().clearCookies();
  await logIn(page, account.email, next);

  // "Forgot your password?": the emailed link signs in, and no current password is asked
  await page.context().clearCookies();
  await page.goto("/login/email?reset=1");
  await hydrated(page);
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Check your email" })).toBeVisible();
  const mail = await mailTo(account.email);
  const link = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? "")![0];
  await page.goto(new URL(link).pathname);
  await hydrated(page);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/settings#password$/);
  await expect(page.getByLabel("Current password")).toHaveCount(0);
  await expect(page.locator("#password").getByText("You signed in with a link from your email")).toBeVisible();
  const third = longPassword();
  await hydrated(page);
  await pw.getByLabel("New password", { exact: true }).fill(third);
  await pw.getByLabel("Confirm new password").fill(third);
  await pw.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your password has been saved." })).toBeVisible();
  await expectAccessible(page, browser);

  // /api: the same rules for another client, signed up there as "Bo Li" with a 64-character password
  const api = await apiRequest.newContext({ baseURL });
  try {
    const tag = crypto.randomBytes(4).toString("hex");
    const password = longPassword();
    const body = { email: `api${tag}@example.com`, username: `api${tag}`, first_name: "Bo", last_name: "Li", password };
    const signup = await api.post("/api/auth/signup", { data: body });
    expect(signup.status()).toBe(200);
    expect(await signup.json()).toMatchObject({ first_name: "Bo", last_name: "Li" });
    const login = await api.post("/api/auth/login", { data: { email: body.email, password } });
    expect(login.status()).toBe(200);
    const renamed = await api.put("/api/users/current", {
      data: { first_name: "Ó", last_name: "Ng", username: body.username, email: body.email },
    });
    expect(renamed.status()).toBe(200);
    expect(await renamed.json()).toMatchObject({ first_name: "Ó", last_name: "Ng" });
    const refused = await api.put("/api/users/current", {
      data: { first_name: "B0", last_name: "Ng", username: body.username, email: body.email },
    });
    expect(refused.status()).toBe(400);
    expect(await refused.json()).toEqual({
      errors: { first_name: ["First name can contain only letters, spaces, hyphens, apostrophes and periods."] },
    });
    const changed = await api.put("/api/users/current/password", {
      data: { current_password: password, password: next, confirmPassword: next },
    });
    expect(changed.status()).toBe(200);
  } finally {
    await api.dispose();
  }
  // the page's account, seen through /api with the browser's session
  const me = await page.request.get("/api/auth/");
  expect(await me.json()).toMatchObject({ first_name: "A", last_name: "李" });
});
