import type { Route } from "@playwright/test";
import { apiCreateKid, jpegFile } from "./kids-helpers";
import { expect, newAccount, signUp, test } from "./utils";

// What only the page's scripts do with photos on their way (app/components/photo-uploads.tsx): the
// nojs project leaves this file out (playwright.config.ts), a form without JavaScript sends its
// photos with the form.

test("a photo removed while it is on its way stops being sent, and the next one goes", async ({ page }) => {
  await signUp(page, newAccount("up"));
  const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2021-05-04", relationship: "Mom" });
  // the first upload is held on its way (a slow link), until the page stops it; the others go through
  let held: Route | null = null;
  await page.route(/\/pending_photos$/, async (route) => {
    if (!held) {
      held = route;
      return;
    }
    await route.continue();
  });
  const stopped = page.waitForEvent("requestfailed", (r) => r.url().endsWith("/pending_photos"));
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await page
    .getByLabel("Image Upload")
    .setInputFiles([await jpegFile("lion.jpg", 300, 200, "#c93"), await jpegFile("bear.jpg", 300, 200, "#963")]);
  const lion = page.getByRole("progressbar", { name: "Photo 1 (lion.jpg)" });
  await expect(lion.locator("xpath=..")).toContainText("% sent");
  await expect(page.getByRole("progressbar", { name: "Photo 2 (bear.jpg)" }).locator("xpath=..")).toContainText(
    "Waiting",
  );

  await page.getByRole("button", { name: "Remove photo 1" }).click();
  expect((await stopped).url()).toMatch(new RegExp(`/api/kids/${kid.id}/pending_photos$`));
  await expect(lion).toHaveCount(0);
  const bear = page.getByRole("progressbar", { name: "Photo 1 (bear.jpg)" });
  await expect(bear.locator("xpath=..")).toContainText("Sent");
  await expect(page.getByRole("status").filter({ hasText: "1 of 1 photo sent (100%)" })).toBeVisible();
});

test("a submit while a photo is on its way is held, then posts the moment once the photo is sent", async ({ page }) => {
  await signUp(page, newAccount("held"));
  const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2021-05-04", relationship: "Mom" });
  // the photo is held on its way (a slow link) until the test lets it go
  let held: Route | null = null;
  await page.route(/\/pending_photos$/, async (route) => {
    held = route;
  });
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await page.getByLabel("Title").fill("First word");
  await page.getByLabel("Content").fill("She said ball.");
  await page.getByLabel("Image Upload").setInputFiles(await jpegFile("ball.jpg"));
  await expect.poll(() => held !== null).toBe(true);
  await page.getByRole("button", { name: "Add your new dailyLog" }).click();
  // the page says it sends the photo first, and stays
  await expect(page.getByRole("status").filter({ hasText: "0 of 1 photo sent" })).toContainText(
    "Sending your photos first…",
  );
  await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs/new$`));
  await (held as unknown as Route).continue();
  await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: "First word" })).toBeVisible();
  await expect(page.getByRole("img", { name: /ball|First word/ }).first()).toBeVisible();
});
