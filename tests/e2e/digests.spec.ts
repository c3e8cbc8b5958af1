import sharp from "sharp";
import type { Browser, Page } from "@playwright/test";
import { ageText } from "../../app/lib/dates";
import { expectAccessible, expect, freshPage, newAccount, signUp, test } from "./utils";
import { userIdByEmail } from "./friends-helpers";
import { apiCreateKid } from "./kids-helpers";
import { jpegWithGps } from "./profile-picture-helpers";
import { mailTo } from "./mail";
import { befriend, closeE2eDb, e2eDb } from "./e2e-db";

// Email digests (docs/decisions/0027-*) in a browser, JavaScript on and off: the email settings
// page (the GOV.UK form pattern, axe); a digest that the e2e server's own scheduler sends over SMTP
// to the test SMTP server (playwright.config.ts sets DIGEST_CHECK_SECONDS=1, so a digest the test
// makes due goes out within a second; the test polls the SMTP server, never a fixed wait): the
// moment with its kid's name and age, title and link, an inline thumbnail without metadata, a
// plain-text part, the List-Unsubscribe headers; then the message's own unsubscribe link, opened
// signed out.

test.afterAll(closeE2eDb);

/** Chooses how often the digest comes and its hour on the email settings page (signed in on `page`). */
async function chooseDigest(page: Page, browser: Browser, choice: "Daily" | "Weekly (on Sundays)", hour: string) {
  await page.goto("/notifications");
  await page.getByRole("link", { name: "Email settings" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Email settings");
  // a new account's defaults: new moments in a daily digest
  await expect(
    page
      .getByRole("group", { name: "New moments of the kids you follow" })
      .getByRole("radio", { name: "In my digest" }),
  ).toBeChecked();
  const frequency = page.getByRole("group", { name: "How often does your digest come?" });
  await expect(frequency.getByRole("radio", { name: "Daily" })).toBeChecked();
  await expectAccessible(page, browser);
  await frequency.getByRole("radio", { name: choice }).check();
  await page.getByLabel("At what time (UTC)?").selectOption(hour);
  await page.getByRole("button", { name: "Save email settings" }).click();
  await expect(page.getByRole("status")).toHaveText("Your email settings are saved.");
  await expect(frequency.getByRole("radio", { name: choice })).toBeChecked();
  await expect(page.getByLabel("At what time (UTC)?")).toHaveValue(hour);
  await expectAccessible(page, browser);
}

test("choose a weekly digest and its hour", async ({ page, browser }) => {
  const account = await signUp(page, newAccount("digest"));
  await chooseDigest(page, browser, "Weekly (on Sundays)", "18");
  const id = await userIdByEmail(account.email);
  expect(await e2eDb()("email_preferences").where("user_id", id).first("digest", "hour")).toEqual({
    digest: "weekly",
    hour: 18,
  });
});

test("a relative's daily digest arrives with the new moment and an inline thumbnail without location; its unsubscribe link works", async ({
  page,
  browser,
}, testInfo) => {
  // the relative chooses a daily digest (the news start now)
  const oma = await freshPage(browser, testInfo);
  const relative = await signUp(oma, newAccount("oma"));
  await chooseDigest(oma, browser, "Daily", "7");
  const relativeId = await userIdByEmail(relative.email);

  // a parent, friends with the relative, posts a moment with a photo that carries GPS EXIF
  const parent = await signUp(page, newAccount("parent"));
  await befriend(await userIdByEmail(parent.email), relativeId);
  const kid = await apiCreateKid(page.request, { name: "Mila", birth_date: "2021-03-04", relationship: "Mom" });
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await page.getByLabel("Title").fill("Picking strawberries");
  await page.getByLabel("Content").fill("A whole basket, and most of them eaten.");
  await page
    .getByLabel("Image Upload")
    .setInputFiles({ name: "garden.jpg", mimeType: "image/jpeg", buffer: await jpegWithGps() });
  await page.getByLabel("Alt text of photo 1", { exact: true }).fill("Mila with a basket of strawberries");
  await page.getByRole("button", { name: "Add your new dailyLog" }).click();
  await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
  const momentId = Number(/\/dailyLogs\/(\d+)$/.exec(page.url())![1]);

  // the relative's digest is due now: the server's scheduler sends it
  await e2eDb()("email_preferences")
    .where("user_id", relativeId)
    .update({ next_digest_at: new Date(Date.now() - 1000).toISOString() });
  const mail = await mailTo(relative.email, { timeout: 30_000 });
  expect(mail.subject).toBe("Your daily Sweet Moments: 1 new moment");

  // the moment: kid name and age, title, the sharer, a link to it, in the HTML and the plain text
  const origin = /^(https?:\/\/[^/]+)\/settings\/email$/.exec(
    /Change what you get by email: (\S+)/.exec(mail.text ?? "")![1]!,
  )![1]!;
  const link = `${origin}/dailyLogs/${momentId}`;
  const kidLine = `Mila, ${ageText("2021-03-04", new Date().toISOString().slice(0, 10))}`; // TIME_ZONE is UTC
  const html = String(mail.html);
  expect(html).toContain(`<a href="${link}">Picking strawberries</a>`);
  expect(html).toContain(`${kidLine} · shared by ${parent.first} ${parent.last}`);
  expect(mail.text).toContain(
    `- Picking strawberries (${kidLine}, shared by ${parent.first} ${parent.last})\n  ${link}`,
  );
  expect(mail.text).not.toContain("<");

  // one inline thumbnail, referred to by cid: in the HTML, without EXIF, GPS or camera data
  expect(mail.attachments).toHaveLength(1);
  const [thumbnail] = mail.attachments;
  expect(thumbnail!.contentDisposition).toBe("inline");
  expect(thumbnail!.contentType).toBe("image/jpeg");
  expect(thumbnail!.cid).toBeTruthy();
  expect(html).toContain(`<img src="cid:${thumbnail!.cid}" alt="Photo: Picking strawberries"`);
  const meta = await sharp(thumbnail!.content).metadata();
  expect(meta.format).toBe("jpeg");
  expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(320);
  expect(meta.exif).toBeUndefined();
  expect(meta.xmp).toBeUndefined();
  const bytes = thumbnail!.content.toString("latin1");
  for (const needle of ["Exif", "GPS", "Phone 15", "PhoneMaker", "2024:06:06"]) expect(bytes).not.toContain(needle);
  // no photo URL anywhere in the message
  expect(html).not.toContain("/images/");

  // one-click unsubscribe: the headers name the same signed link as the message's own
  const header = (key: string) => mail.headerLines.find((h) => h.key === key)?.line.replace(/^[^:]+:\s*/, "");
  const unsubscribe = /^<(\S+)>$/.exec(header("list-unsubscribe") ?? "")![1]!;
  expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
  expect(unsubscribe).toMatch(new RegExp(`^${origin}/email/unsubscribe\\?u=${relativeId}&s=[A-Za-z0-9_-]{43}$`));
  expect(mail.text).toContain(`Unsubscribe: ${unsubscribe}`);
  expect(html).toContain(`<a href="${unsubscribe.replace(/&/g, "&amp;")}">Unsubscribe</a>`);

  // the message's link, opened in a browser without a session
  const visitor = await freshPage(browser, testInfo);
  await visitor.goto(unsubscribe);
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("Unsubscribe from emails");
  await expectAccessible(visitor, browser);
  await visitor.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");
  await expectAccessible(visitor, browser);
  expect(
    await e2eDb()("email_preferences").where("user_id", relativeId).first("moments", "comments", "replies"),
  ).toEqual({ moments: "off", comments: "off", replies: "off" });
  await oma.goto("/settings/email");
  await expect(oma.getByRole("radio", { name: "No email" })).toHaveCount(3);
  for (const radio of await oma.getByRole("radio", { name: "No email" }).all()) await expect(radio).toBeChecked();

  // the same link with another signature does nothing
  await visitor.goto(unsubscribe.replace(/s=[^&]+$/, "s=forged"));
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("This unsubscribe link does not work");
  await expectAccessible(visitor, browser);
});
