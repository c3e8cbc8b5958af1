import path from "node:path";
import type { Page } from "@playwright/test";
import { expectAccessible, expect, freshPage, hydrated, isNoJs, newAccount, PHONE, signUp, test } from "./utils";
import { userIdByEmail } from "./friends-helpers";
import { apiCreateKid, jpegFile } from "./kids-helpers";
import { mailTo } from "./mail";
import { befriend, closeE2eDb, e2eDb } from "./e2e-db";

// A new moment tells a relative, on a phone, JavaScript on and off
// (docs/decisions/0062-new-moments-and-notification-choices.md): Grandma chooses "Right away" for
// new moments on the email settings page (a plain form; the GOV.UK pattern, axe), her grandchild's
// parent posts a moment with the moment form, and she finds it on her Notifications page (which
// leads to the moment) and in a mail the e2e server's own sender delivers over SMTP to the test
// SMTP server, with its link to the moment and the one-click unsubscribe. The settings page at
// 390 px is also saved as a screenshot for the docs (docs/screenshots/).

test.use({ viewport: PHONE });
test.afterAll(closeE2eDb);

const SCREENSHOT = path.resolve(import.meta.dirname, "../../docs/screenshots/notification-settings-phone.png");

/** On the email settings page (signed in on `page`): new moments "Right away", the rest as they are. */
async function newMomentsRightAway(page: Page, browser: Parameters<typeof expectAccessible>[1]) {
  await page.goto("/notifications");
  await page.getByRole("link", { name: "Email settings" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Email settings");
  // a new account's defaults: new moments and replies in a daily digest, comments right away
  const moments = page.getByRole("group", { name: "New moments of the kids you follow" });
  const comments = page.getByRole("group", { name: "Comments on your moments" });
  await expect(moments.getByRole("radio", { name: "In my digest" })).toBeChecked();
  await expect(comments.getByRole("radio", { name: "Right away" })).toBeChecked();
  await expect(
    page.getByRole("group", { name: "How often does your digest come?" }).getByRole("radio", { name: "Daily" }),
  ).toBeChecked();
  await expectAccessible(page, browser);
  await hydrated(page);
  await moments.getByRole("radio", { name: "Right away" }).check();
  await page.getByRole("button", { name: "Save email settings" }).click();
  await expect(page.getByRole("status")).toHaveText("Your email settings are saved.");
  await expect(moments.getByRole("radio", { name: "Right away" })).toBeChecked();
  await expectAccessible(page, browser);
  // nothing wider than the phone
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

test("a new moment notifies a relative in the app and in her chosen mail", async ({ page, browser }, testInfo) => {
  // Grandma, on her phone, wants new moments right away
  const oma = await freshPage(browser, testInfo, { viewport: PHONE });
  const grandma = await signUp(oma, newAccount("oma"));
  await newMomentsRightAway(oma, browser);
  if (!isNoJs(testInfo)) await oma.screenshot({ path: SCREENSHOT, fullPage: true });
  const grandmaId = await userIdByEmail(grandma.email);

  // the parent, friends with her and filing her as Family, posts a Family moment from the phone
  const parent = await signUp(page, newAccount("parent"));
  const parentId = await userIdByEmail(parent.email);
  await befriend(parentId, grandmaId);
  const pair = { low: Math.min(parentId, grandmaId), high: Math.max(parentId, grandmaId) };
  await e2eDb()("friendships")
    .where({ user_low: pair.low, user_high: pair.high })
    .update({ [parentId === pair.low ? "low_circle" : "high_circle"]: "family" });
  const kid = await apiCreateKid(page.request, { name: "Mila", birth_date: "2021-03-04", relationship: "Mom" });
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await hydrated(page);
  await page.getByLabel("Title").fill("Picking strawberries");
  await page.getByLabel("Content").fill("A whole basket.");
  await page.getByRole("radio", { name: /^Family/ }).check();
  await page.getByLabel("Image Upload").setInputFiles(await jpegFile("basket.jpg"));
  await page.getByLabel("Alt text of photo 1", { exact: true }).fill("Mila with a basket");
  await page.getByRole("button", { name: "Add your new dailyLog" }).click();
  await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
  const momentId = Number(/\/dailyLogs\/(\d+)$/.exec(page.url())![1]);
  const told = `${parent.first} ${parent.last} shared a new moment of Mila: “Picking strawberries”`;

  // in the app: one new notification, which leads to the moment
  await oma.goto("/notifications");
  await expect(oma.getByRole("status")).toHaveText("1 new notification");
  const item = oma.getByRole("link", { name: told });
  await expect(item).toBeVisible();
  await expectAccessible(oma, browser);
  await item.click();
  await expect(oma).toHaveURL(new RegExp(`/dailyLogs/${momentId}$`));
  await expect(oma.getByRole("heading", { name: "Picking strawberries" })).toBeVisible();

  // in her mail, right away: the moment's link and the one-click unsubscribe
  const mail = await mailTo(grandma.email, { timeout: 30_000 });
  expect(mail.subject).toBe(told);
  const link = /See it on Sweet Moments: (\S+)/.exec(mail.text ?? "")![1]!;
  expect(link).toMatch(new RegExp(`^https?://[^/]+/dailyLogs/${momentId}$`));
  expect(String(mail.html)).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  const header = (key: string) => mail.headerLines.find((h) => h.key === key)?.line.replace(/^[^:]+:\s*/, "");
  expect(header("list-unsubscribe")).toMatch(
    new RegExp(`^<https?://[^/]+/email/unsubscribe\\?u=${grandmaId}&s=[A-Za-z0-9_-]{43}>$`),
  );
  expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
  await oma.goto(new URL(link).pathname);
  await expect(oma.getByRole("heading", { name: "Picking strawberries" })).toBeVisible();

  // one mail for the moment, and none to the parent who posted it
  const rows = await e2eDb()("mail_messages")
    .where("kind", "news-moment")
    .whereIn("to_address", [grandma.email, parent.email]);
  expect(rows.map((r) => r.to_address)).toEqual([grandma.email]);
});
