import { expectAccessible, expect, freshPage, hydrated, newAccount, PHONE, photosSent, signUp, test } from "./utils";
import { apiCreateKid, jpegFile } from "./kids-helpers";
import { mailTo } from "./mail";
import { closeE2eDb } from "./e2e-db";

// A partner in one step (docs/decisions/0060-co-parent-invitations.md), on a phone, JavaScript on
// and off: the parent invites their partner from "Invite family" as co-parent of one of two kids;
// the invitation mail and page say so; the partner joins with the emailed link, is told in the app
// and by mail which kid they now co-parent, and posts a moment on that kid. axe on the new pages.

test.use({ viewport: PHONE });

test.afterAll(async () => {
  await closeE2eDb();
});

test("a partner invited as co-parent in one step posts a moment on the kid", async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  const parent = await signUp(page, newAccount("copa"));
  const parentName = `${parent.first} ${parent.last}`;
  const mia = await apiCreateKid(page.request, { name: "Mia", birth_date: "2023-05-06", relationship: "Mom" });
  await apiCreateKid(page.request, { name: "Leo", birth_date: "2021-02-03", relationship: "Mom" });
  const partnerEmail = newAccount("partner").email;

  // ---- "Invite family": the partner's address and the kid to co-parent, one form
  await page.goto("/current/friends");
  await hydrated(page);
  const region = page.getByRole("region", { name: "Invite family" });
  const kids = region.getByRole("group", { name: "Also make them a co-parent of (optional)" });
  await expect(kids.getByRole("checkbox")).toHaveCount(2);
  await region.getByLabel("Their email address (optional)").fill(partnerEmail);
  await kids.getByRole("checkbox", { name: "Mia" }).check();
  await expectAccessible(page, browser);
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page).toHaveURL(/\/current\/friends#new-link$/);
  await expect(
    page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem").filter({ hasText: partnerEmail }),
  ).toContainText("co-parent of Mia");

  // ---- the mail says what the invitation gives, and carries the link
  const invitation = await mailTo(partnerEmail);
  expect(invitation.subject).toBe(`${parentName} invited you to Sweet Moments`);
  expect(invitation.text).toContain(`${parentName} invites you as co-parent of Mia:`);
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]{43}/.exec(invitation.text ?? "")![0];

  // ---- the partner opens it on their phone and joins: friend and co-parent at once
  const partner = await freshPage(browser, testInfo, { viewport: PHONE });
  await partner.goto(new URL(link).pathname);
  await expect(partner.getByText(`${parentName} invites you as co-parent of Mia:`)).toBeVisible();
  await expectAccessible(partner, browser);
  await hydrated(partner);
  await partner.getByLabel("Your name").fill("Bo");
  await partner.getByLabel("Your email address").fill(partnerEmail);
  await partner.getByRole("button", { name: "Join and see the photos" }).click();
  await expect(partner).not.toHaveURL(/\/invite\//);

  // ---- told in the app and by mail, naming the kid
  await partner.goto("/notifications");
  const told = partner.getByRole("link", { name: `${parentName} made you a co-parent of Mia` });
  await expect(told).toBeVisible();
  await expectAccessible(partner, browser);
  const added = await mailTo(partnerEmail);
  expect(added.subject).toBe("You are now a co-parent of Mia on Sweet Moments");

  // ---- and posts a moment on Mia, from My Kids
  await told.click();
  await expect(partner).toHaveURL(/\/my-kids-list$/);
  await partner.getByRole("link", { name: "Mia", exact: true }).click();
  await expect(partner).toHaveURL(new RegExp(`/kids/${mia.id}/dailyLogs$`));
  await partner.getByRole("link", { name: "Add Sweet Moment" }).click();
  await hydrated(partner);
  await partner.getByLabel("Title").fill("First word");
  await partner.getByLabel("Content").fill("She said “ball”.");
  await partner.getByLabel("Image Upload").setInputFiles(await jpegFile("ball.jpg"));
  await photosSent(partner, 1);
  await partner.getByRole("button", { name: "Add your new dailyLog" }).click();
  await expect(partner).toHaveURL(/\/dailyLogs\/\d+$/);
  await expect(partner.getByRole("heading", { level: 1, name: "First word" })).toBeVisible();

  // the parent sees it on Mia's page, and the partner among Mia's co-parents
  await page.goto(`/kids/${mia.id}/dailyLogs`);
  await expect(page.getByRole("link", { name: "First word", exact: true })).toBeVisible();
  await page.goto(`/kids/${mia.id}/co-parents`);
  await expect(page.getByRole("list", { name: "Co-parents" })).toContainText("Bo");
  await expectAccessible(page, browser);
});
