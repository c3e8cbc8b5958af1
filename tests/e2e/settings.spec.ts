import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import sharp from "sharp";
import yauzl from "yauzl";
import type { Page } from "@playwright/test";
import { expectAccessible, expect, isNoJs, logIn, signUp, test } from "./utils";
import { mailTo } from "./mail";
import { closeE2eDb, e2eDb } from "./e2e-db";

// docs/spec.md §2 "Settings" and "Your data", end to end with JavaScript on and off: each field
// changed after a validation error, another session signed out, the export downloaded and its
// offline album opened from disk (file://), and an account deleted (with a password, and without
// one: confirmed by an emailed sign-in link).

test.afterAll(async () => {
  await closeE2eDb();
});

async function openSettings(page: Page) {
  await page.locator("details.profile-menu summary").click();
  await page.locator(".profile-menu").getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
}

/** The error summary of the page shows `message`, has focus, and the message sits beside its field. */
async function expectError(page: Page, message: string) {
  const summary = page.locator(".error-summary");
  await expect(summary.getByRole("link", { name: message })).toBeVisible();
  await expect(summary).toBeFocused();
  await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
}

async function unzipTo(file: string, dir: string) {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (e, z) => (e || !z ? reject(e) : resolve(z))),
  );
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      const dest = path.join(dir, entry.fileName);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      zip.openReadStream(entry, (e, s) => {
        if (e || !s) return reject(e);
        pipeline(s, fs.createWriteStream(dest)).then(() => zip.readEntry(), reject);
      });
    });
    zip.on("end", resolve);
    zip.on("error", reject);
    zip.readEntry();
  });
}

test.describe("settings", () => {
  test("change each field after a validation error, and sign out another session", async ({
    page,
    browser,
  }, testInfo) => {
    const account = await signUp(page);
    await openSettings(page);
    await expectAccessible(page, browser);
    const details = page.locator("form", { has: page.locator('input[name="intent"][value="profile"]') });

    // names: a digit is not a letter
    await details.getByLabel("First name").fill("Al9");
    await details.getByLabel("Last name").fill("Lopez-Garcia");
    await details.getByRole("button", { name: "Save details" }).click();
    await expectError(page, "First name can contain only letters, spaces, hyphens, apostrophes and periods.");
    if (isNoJs(testInfo)) await expect(page).toHaveTitle(/^Error: Settings/);
    await expectAccessible(page, browser);
    await details.getByLabel("First name").fill("Alicia");
    await details.getByLabel("Last name").fill("Lopez-Garcia");
    await details.getByRole("button", { name: "Save details" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Your details have been saved." })).toBeVisible();
    await expect(details.getByLabel("First name")).toHaveValue("Alicia");

    // email: not an email, then without the current password, then with it
    const newEmail = `moved.${account.email}`;
    const newUsername = `${account.username}x`;
    await details.getByLabel("Email").fill("not-an-email");
    await details.getByRole("button", { name: "Save details" }).click();
    await expectError(page, "Please provide a valid email.");
    await details.getByLabel("Email").fill(newEmail);
    await details.getByLabel("Username").fill("ab");
    await details.getByRole("button", { name: "Save details" }).click();
    await expectError(page, "Username must be between 3 and 30 characters.");
    await details.getByLabel("Email").fill(newEmail);
    await details.getByLabel("Username").fill(newUsername);
    await details.getByRole("button", { name: "Save details" }).click();
    await expectError(page, "Enter your current password to change your username or email.");
    await expectAccessible(page, browser);
    await details.getByLabel("Email").fill(newEmail);
    await details.getByLabel("Username").fill(newUsername);
    await details.getByLabel("Current password").fill(account.password);
    await details.getByRole("button", { name: "Save details" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Your details have been saved." })).toBeVisible();
    await expect(page.locator(".profile-menu__username")).toHaveText(newUsername);

    // password: too short, then the wrong current one, then right
    const pw = page.locator("form", { has: page.locator('input[name="intent"][value="password"]') });
    await pw.getByLabel("Current password").fill(account.password);
    await pw.getByLabel("New password", { exact: true }).fill("abc");
    await pw.getByLabel("Confirm new password").fill("abc");
    await pw.getByRole("button", { name: "Change password" }).click();
    await expectError(page, "Password must be between 6 and 128 characters.");
    await pw.getByLabel("Current password").fill("wrong-one");
    await pw.getByLabel("New password", { exact: true }).fill("better-secret");
    await pw.getByLabel("Confirm new password").fill("better-secret");
    await pw.getByRole("button", { name: "Change password" }).click();
    await expectError(page, "The current password is incorrect.");
    await pw.getByLabel("Current password").fill(account.password);
    await pw.getByLabel("New password", { exact: true }).fill("better-secret");
    await pw.getByLabel("Confirm new password").fill("better-secret");
    await pw.getByRole("button", { name: "Change password" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Your password has been saved." })).toBeVisible();

    // another session (another browser), then signed out from here
    const other = await browser.newContext({ javaScriptEnabled: !isNoJs(testInfo) });
    const otherPage = await other.newPage();
    await logIn(otherPage, newEmail, "better-secret");
    await page.goto("/settings");
    const sessions = page.locator(".session");
    await expect(sessions).toHaveCount(2);
    await expect(sessions.filter({ hasText: "(this device)" })).toHaveCount(1);
    await expectAccessible(page, browser);
    await sessions
      .filter({ hasNotText: "(this device)" })
      .getByRole("button", { name: /^Sign out/ })
      .click();
    await expect(page.getByRole("status").filter({ hasText: "That session has been signed out." })).toBeVisible();
    await expect(sessions).toHaveCount(1);
    await otherPage.goto("/my-kids-list");
    await expect(otherPage).toHaveURL(/\/login\?redirectTo=/);
    await other.close();
  });

  test("export: the ZIP's offline album opens from disk with the kid's photos and comments", async ({
    page,
    browser,
  }) => {
    await signUp(page);
    // a kid with a photo, a moment with a photo, and a comment: through the API of this session
    const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#48a" } })
      .jpeg()
      .toBuffer();
    const kid = await page.request.post("/api/kids/new", {
      multipart: {
        name: "Elsa",
        birth_date: "2020-01-02",
        relationship: "Mom",
        image: { name: "elsa.jpg", mimeType: "image/jpeg", buffer: photo },
      },
    });
    expect(kid.status()).toBe(201);
    const kidId = (await kid.json()).id;
    const moment = await page.request.post(`/api/kids/${kidId}/daily_logs/new`, {
      multipart: {
        title: "First steps",
        content: "Across the room!",
        image: { name: "steps.jpg", mimeType: "image/jpeg", buffer: photo },
      },
    });
    expect(moment.status()).toBe(201);
    const comment = await page.request.post(`/api/comments/${(await moment.json()).id}/new-comment`, {
      data: { comment: "Proud mum moment" },
    });
    expect(comment.status()).toBe(201);

    await openSettings(page);
    const downloading = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download all my data" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^sweet-moments-.+-\d{4}-\d{2}-\d{2}\.zip$/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-e2e-export-"));
    try {
      const file = path.join(dir, "export.zip");
      await download.saveAs(file);
      await unzipTo(file, path.join(dir, "out"));
      const [folder] = fs.readdirSync(path.join(dir, "out"));
      const index = path.join(dir, "out", folder!, "index.html");

      await page.goto(`file://${index}`);
      await expect(page.getByRole("heading", { level: 1 })).toContainText("Sweet Moments");
      await page.getByRole("link", { name: /Elsa/ }).click();
      await expect(page).toHaveURL(/\/kids\/elsa\.html$/);
      await expect(page.getByRole("heading", { level: 1, name: "Elsa" })).toBeVisible();
      await expect(page.getByRole("heading", { level: 2, name: "First steps" })).toBeVisible();
      await expect(page.getByText("Proud mum moment")).toBeVisible();
      const img = page.getByRole("img", { name: "First steps" });
      await expect(img).toBeVisible();
      expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
      await expectAccessible(page, browser);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("delete my account", async ({ page, browser }) => {
    const account = await signUp(page);
    await openSettings(page);
    await page.getByRole("link", { name: "Delete my account" }).click();
    await expect(page).toHaveURL(/\/settings\/delete$/);
    await expect(page.getByText("and every place you are logged in")).toBeVisible();
    await expectAccessible(page, browser);
    const submit = page.getByRole("button", { name: "Delete my account and everything in it" });
    await submit.click();
    await expectError(page, "Enter your password to delete your account.");
    await page.getByLabel("Your password").fill("not-it");
    await submit.click();
    await expectError(page, "The password is incorrect.");
    await expectAccessible(page, browser);
    await page.getByLabel("Your password").fill(account.password);
    await submit.click();
    await expect(page).toHaveURL(/\/\?deleted=1$/);
    await expect(page.getByText("Your account and everything in it have been deleted.")).toBeVisible();
    await expectAccessible(page, browser);

    await page.goto("/login");
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.locator(".error-summary")).toContainText("Invalid email or password.");
  });

  test("delete an account without a password: an emailed sign-in link confirms it", async ({ page, browser }) => {
    const account = await signUp(page);
    // as an account made by an invitation, without a password, whose session signed in an hour ago
    const user = await e2eDb()("users").where("email_normalized", account.email.toLowerCase()).first("id");
    await e2eDb()("users").where("id", user.id).update({ password_hash: "" });
    await e2eDb()("sessions")
      .where("user_id", user.id)
      .update({ created_at: new Date(Date.now() - 60 * 60_000).toISOString() });
    await openSettings(page);
    await page.getByRole("link", { name: "Delete my account" }).click();
    await expect(page.getByText("your invitations and sign-in links")).toBeVisible();
    await expect(page.getByLabel("Your password")).toHaveCount(0);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect(page).toHaveURL(/\/settings\/delete\?sent=1$/);
    await expect(
      page.getByRole("status").filter({ hasText: `We have sent a sign-in link to ${account.email}` }),
    ).toBeVisible();
    await expectAccessible(page, browser);

    const mail = await mailTo(account.email);
    const url = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}\?then=delete/.exec(mail.text ?? "")![0];
    await page.goto(url);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/settings\/delete$/);
    await expect(page.getByText("You signed in a moment ago: you can delete your account now")).toBeVisible();
    await page.getByRole("button", { name: "Delete my account and everything in it" }).click();
    await expect(page).toHaveURL(/\/\?deleted=1$/);
    await expect(page.getByText("Your account and everything in it have been deleted.")).toBeVisible();
    expect(await e2eDb()("users").where("id", user.id).first()).toBeUndefined();
  });
});
