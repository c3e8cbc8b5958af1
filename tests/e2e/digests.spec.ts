import crypto from "node:crypto";
import { expectAccessible, expect, newAccount, signUp, test } from "./utils";
import { closeE2eDb, e2eDb, userIdByEmail } from "./friends-helpers";

// Issue #16.4 in a browser, JavaScript on and off: the email settings page (the GOV.UK form
// pattern, axe) and the digest's signed unsubscribe link, opened signed out. The digest itself
// (content, inline thumbnail without metadata, headers) is tested against a real SMTP server in
// app/mail/digest.server.test.ts and tests/unit/mail-processes.test.ts.

test.afterAll(async () => {
  await closeE2eDb();
});

/** The digest's unsubscribe path for a user, signed as the e2e server signs it (playwright.config.ts's SESSION_SECRET). */
function unsubscribePath(userId: number): string {
  const s = crypto.createHmac("sha256", "e2e-only-secret-not-for-production").update(`unsubscribe:${userId}`).digest("base64url");
  return `/email/unsubscribe?u=${userId}&s=${s}`;
}

test("choose a weekly digest and its hour; unsubscribe by the signed link while signed out", async ({ page, browser }) => {
  const account = await signUp(page, newAccount("digest"));
  await page.goto("/notifications");
  await page.getByRole("link", { name: "Email settings" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Email settings");
  await expect(page.getByRole("radio", { name: "No email" })).toBeChecked();
  await expectAccessible(page, browser);
  await page.getByRole("radio", { name: "A weekly digest (on Sundays)" }).check();
  await page.getByLabel("At what time (UTC)?").selectOption("18");
  await page.getByRole("button", { name: "Save email settings" }).click();
  await expect(page.getByRole("status")).toHaveText("Your email settings are saved.");
  await expect(page.getByRole("radio", { name: "A weekly digest (on Sundays)" })).toBeChecked();
  await expect(page.getByLabel("At what time (UTC)?")).toHaveValue("18");
  await expectAccessible(page, browser);

  const id = await userIdByEmail(account.email);
  expect(await e2eDb()("email_preferences").where("user_id", id).first("digest", "hour")).toEqual({ digest: "weekly", hour: 18 });

  await page.context().clearCookies();
  await page.goto(unsubscribePath(id));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unsubscribe from digests");
  await expectAccessible(page, browser);
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");
  await expectAccessible(page, browser);
  expect((await e2eDb()("email_preferences").where("user_id", id).first("digest")).digest).toBe("none");

  await page.goto(`/email/unsubscribe?u=${id}&s=forged`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This unsubscribe link does not work");
});
