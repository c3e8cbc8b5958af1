import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectAccessible, expect, hydrated, isNoJs, newAccount, photosSent, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, insertMoments, jpegFile, manage, myId, textFile } from "./kids-helpers";
import { befriend, closeE2eDb } from "./e2e-db";

test.afterAll(async () => {
  await closeE2eDb();
});

/** Each message in the error summary (as a link) and beside its field. */
async function expectErrors(page: Page, messages: string[]) {
  const summary = page.locator(".error-summary");
  await expect(summary).toBeVisible();
  for (const message of messages) {
    await expect(summary.getByRole("link", { name: message, exact: true })).toBeVisible();
    await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
  }
  await expect(summary.getByRole("listitem")).toHaveCount(messages.length);
}

/** Today in UTC (the e2e server's TIME_ZONE), as the birth-date selects offer it. */
function todayParts() {
  const d = new Date();
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

async function chooseBirthDate(page: Page, year: string, month: string, day: string) {
  await page.getByLabel("Year").selectOption(year);
  await page.getByLabel("Month").selectOption(month);
  await page.getByLabel("Day").selectOption(day);
}

/** A second signed-in user in a context of their own, with the same JavaScript setting. */
async function otherUser(browser: Browser, testInfo: TestInfo) {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: !isNoJs(testInfo),
  });
  const page = await context.newPage();
  await signUp(page, newAccount("kf"));
  return { page, context, id: await myId(page.request) };
}

test.describe("kids", () => {
  test("the kid form's photo picker: a preview for an image, a clear message for a file that is not one; without JavaScript a refused form says to choose the photo again", async ({
    page,
    browser,
  }, testInfo) => {
    await signUp(page, newAccount("kp"));
    await page.goto("/kids/add-new");
    const picker = page.getByLabel("Profile Image Upload");
    const again = page.getByText("please choose it again");
    if (!isNoJs(testInfo)) {
      await hydrated(page); // the picker listens once the page is hydrated
      // a text file: a message tied to the field, never a broken preview
      await picker.setInputFiles(textFile);
      await expect(page.getByRole("status").filter({ hasText: "Only image files are accepted." })).toBeVisible();
      await expect(picker).toHaveAccessibleDescription(/Only image files are accepted\./);
      await expect(page.locator(".picture-form__preview")).toHaveCount(0);
      // a photo: its preview, drawn (not a broken image), and the message gone
      await picker.setInputFiles(await jpegFile("elsa.jpg", 320, 240));
      const preview = page.getByRole("img", { name: "Preview of the chosen photo" });
      await expect(preview).toBeVisible();
      await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
      await expect(page.getByRole("status").filter({ hasText: "Only image files are accepted." })).toHaveCount(0);
      await expectAccessible(page, browser);
      // a refused form (no name): the page stays, the photo stays chosen, no note to choose it again
      await page.getByRole("button", { name: "Add a new kid" }).click();
      await expect(page.locator(".error-summary")).toBeVisible();
      await expect(again).toHaveCount(0);
      expect(await picker.evaluate((el: HTMLInputElement) => el.files?.length)).toBe(1);
      return;
    }
    // without JavaScript: no preview, and the answer to a refused form (no name) is a new page whose
    // file input is empty, so the note beside the field says to choose the photo again
    await picker.setInputFiles(await jpegFile("elsa.jpg", 320, 240));
    await expect(page.locator(".picture-form__preview")).toHaveCount(0);
    await page.getByRole("button", { name: "Add a new kid" }).click();
    await expect(page.locator(".error-summary")).toBeVisible();
    await expect(again).toBeVisible();
    await expect(picker).toHaveAccessibleDescription(/choose it again/);
    expect(await picker.evaluate((el: HTMLInputElement) => el.files?.length)).toBe(0);
    await expectAccessible(page, browser);
  });

  test("add, update and remove a kid, with every validation message", async ({ page, browser }) => {
    await signUp(page, newAccount("kid"));
    await expect(page.getByRole("heading", { level: 1, name: "My Kids" })).toBeVisible();
    await expect(page.getByText("No kids found. Please add your kid.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Friends", exact: true }).first()).toBeVisible();
    await expectAccessible(page, browser);

    await page.getByRole("link", { name: "Add Kid" }).click();
    await expect(page).toHaveURL(/\/kids\/add-new$/);
    const years = page.getByLabel("Year").locator("option:not([value=''])");
    await expect(years).toHaveCount(100);
    await expect(years.first()).toHaveText(String(todayParts().year));
    await expect(page.getByLabel("Day").locator("option").nth(1)).toHaveText("01");
    await expect(page.getByLabel("Relationship").locator("option:not([value=''])")).toHaveText([
      "Mom",
      "Dad",
      "Grandpa",
      "Grandma",
      "Other",
    ]);
    await expect(page.getByLabel("Profile Image Upload")).toHaveAttribute("accept", "image/*");
    await expectAccessible(page, browser);

    // nothing filled in: every add message
    await page.getByRole("button", { name: "Add a new kid" }).click();
    await expectErrors(page, [
      "Name is required",
      "Select Year",
      "Select Month",
      "Select Day",
      "Please choose a relationship",
    ]);
    await expect(page).toHaveTitle(/^Error: /);
    await expectAccessible(page, browser);

    // too long, an impossible date, not an image
    await page.getByLabel("Name").fill("x".repeat(51));
    await chooseBirthDate(page, "2023", "02", "31");
    await page.getByLabel("Relationship").selectOption("Mom");
    await page.getByLabel("Profile Image Upload").setInputFiles(textFile);
    await page.getByRole("button", { name: "Add a new kid" }).click();
    await expectErrors(page, [
      "Name can not be more than 50 characters",
      "February 2023 has only 28 days. Please choose a real date",
      "Only image files are accepted.",
    ]);

    // a future date, when this year still has a day after today
    const t = todayParts();
    const tomorrow = new Date(Date.UTC(t.year, t.month - 1, t.day + 1));
    if (tomorrow.getUTCFullYear() === t.year) {
      await page.getByLabel("Name").fill("Future");
      await chooseBirthDate(
        page,
        String(t.year),
        String(tomorrow.getUTCMonth() + 1).padStart(2, "0"),
        String(tomorrow.getUTCDate()).padStart(2, "0"),
      );
      await page.getByLabel("Relationship").selectOption("Mom");
      await page.getByLabel("Profile Image Upload").setInputFiles([]);
      await page.getByRole("button", { name: "Add a new kid" }).click();
      await expectErrors(page, ["Birth date cannot be in the future"]);
    }

    // valid, with a photo
    await page.getByLabel("Name").fill("Elsa");
    await chooseBirthDate(page, "2019", "03", "14");
    await page.getByLabel("Relationship").selectOption("Mom");
    await page.getByLabel("Profile Image Upload").setInputFiles(await jpegFile("elsa.jpg"));
    await page.getByRole("button", { name: "Add a new kid" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    const card = page.locator(".kid-card", { hasText: "Elsa" });
    await expect(card.getByRole("link", { name: "Elsa", exact: true })).toHaveAttribute(
      "href",
      /^\/kids\/\d+\/dailyLogs$/,
    );
    await expect(card.locator("img")).toHaveAttribute("src", /^\/images\//);
    // the age and its tooltip, reachable by keyboard and described for screen readers
    const age = card.getByRole("button", { name: /^Age: \d+ years?, \d+ months?, \d+ days?$/ });
    await expect(age).toBeVisible();
    const tipId = await age.getAttribute("aria-describedby");
    const tip = page.locator(`[id="${tipId}"]`);
    await expect(tip).toHaveRole("tooltip");
    await expect(tip).toHaveText("Born on 14 March 2019");
    await expect(tip.locator("time")).toHaveAttribute("dateTime", "2019-03-14");
    await expect(tip).toBeHidden();
    await age.focus();
    await expect(tip).toBeVisible();
    await expectAccessible(page, browser);

    // update: prefilled, update wording, then saved
    await card.getByRole("link", { name: "Update Elsa" }).click();
    await expect(page).toHaveURL(/\/kids\/\d+\/update$/);
    await expect(page.getByLabel("Name")).toHaveValue("Elsa");
    await expect(page.getByLabel("Year")).toHaveValue("2019");
    await expect(page.getByLabel("Month")).toHaveValue("03");
    await expect(page.getByLabel("Day")).toHaveValue("14");
    await expect(page.getByLabel("Relationship")).toHaveValue("Mom");
    await expect(page.getByRole("img", { name: "Elsa's current picture" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Cancel" })).toHaveAttribute("href", "/my-kids-list");
    await expectAccessible(page, browser);
    await page.getByLabel("Name").fill("y".repeat(51));
    await page.getByLabel("Day").selectOption("");
    await page.getByLabel("Relationship").selectOption("");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expectErrors(page, [
      "Name cannot be more than 50 characters",
      "Please choose a day",
      "Please choose a relationship",
    ]);
    await page.getByLabel("Name").fill("");
    await page.getByLabel("Year").selectOption("");
    await page.getByLabel("Month").selectOption("");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expectErrors(page, [
      "Name is required",
      "Please choose a year",
      "Please choose a month",
      "Please choose a day",
      "Please choose a relationship",
    ]);
    await expectAccessible(page, browser);
    await page.getByLabel("Name").fill("Elsa Marie");
    await chooseBirthDate(page, "2019", "03", "15");
    await page.getByLabel("Relationship").selectOption("Dad");
    await page.getByLabel("New Profile Image (optional)").setInputFiles(await jpegFile("new.jpg", 200, 200, "#36c"));
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    const updated = page.locator(".kid-card", { hasText: "Elsa Marie" });
    await expect(updated).toBeVisible();
    await expect(updated.getByRole("tooltip", { includeHidden: true })).toHaveText("Born on 15 March 2019");

    // remove: the confirm dialog, "No" keeps, "Yes" removes
    await updated.getByRole("link", { name: "Remove Elsa Marie" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm Remove" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText("Are you sure you want to remove this kid from your kids list?")).toBeVisible();
    await expectAccessible(page, browser);
    await dialog.getByRole("link", { name: "No (Keep Kid)" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(updated).toBeVisible();
    await updated.getByRole("link", { name: "Remove Elsa Marie" }).click();
    await page
      .getByRole("dialog", { name: "Confirm Remove" })
      .getByRole("button", { name: "Yes (Remove Kid)" })
      .click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(page.getByText("No kids found. Please add your kid.")).toBeVisible();
  });

  test("add, update and delete a moment, with every validation message", async ({ page, browser }) => {
    await signUp(page, newAccount("mom"));
    const kid = await apiCreateKid(page.request, { name: "Leo", birth_date: "2021-08-02", relationship: "Dad" });
    await page.goto(`/kids/${kid.id}/dailyLogs`);
    await expect(page.getByRole("heading", { level: 1, name: "Leo's Moments" })).toBeVisible();
    await expect(page.getByText("No Moments found")).toBeVisible();
    await expectAccessible(page, browser);

    await page.getByRole("link", { name: "Add Sweet Moment" }).click();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs/new$`));
    await expect(page.getByLabel("Image Upload")).toHaveAttribute("accept", "image/*");
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expectErrors(page, ["Title is required", "Content is required", "Image is required"]);
    await expectAccessible(page, browser);
    await page.getByLabel("Title").fill("t".repeat(51));
    await page.getByLabel("Content").fill("c".repeat(2001));
    await page.getByLabel("Image Upload").setInputFiles(textFile);
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expectErrors(page, [
      "Title can not be more than 50 characters",
      "Content can not be more than 2000 characters",
      "Only image files are accepted.",
    ]);

    await page.getByLabel("Title").fill("First day at the park");
    await page.getByLabel("Content").fill("Chased every pigeon.\nThen slept.");
    await page.getByLabel("Image Upload").setInputFiles(await jpegFile("park.jpg"));
    await photosSent(page, 1);
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
    const momentUrl = page.url();
    await expect(page.getByRole("heading", { level: 1, name: "First day at the park" })).toBeVisible();
    await expect(page.getByRole("img", { name: "Photo: First day at the park" })).toHaveAttribute("src", /^\/images\//);
    await expect(page.locator(".moment time")).toHaveAttribute("dateTime", /^\d{4}-\d{2}-\d{2}$/);
    await expect(page.locator(".moment time")).toHaveText(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
    await expect(page.getByRole("link", { name: "Leo's Moments" })).toBeVisible();
    await expectAccessible(page, browser);
    // owner-only buttons survive a hard reload
    await page.reload();
    await expect(page.getByRole("link", { name: "Update First day at the park" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Delete First day at the park" })).toBeVisible();

    // update: "cannot" wording, cancel goes to the kid's moments, then saved
    await page.getByRole("link", { name: "Update First day at the park" }).click();
    await expect(page).toHaveURL(/\/dailyLogs\/\d+\/update$/);
    await expect(page.getByLabel("Title")).toHaveValue("First day at the park");
    await expect(page.getByRole("link", { name: "Cancel" })).toHaveAttribute("href", `/kids/${kid.id}/dailyLogs`);
    await expectAccessible(page, browser);
    await page.getByLabel("Title").fill("t".repeat(51));
    await page.getByLabel("Content").fill("c".repeat(2001));
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expectErrors(page, [
      "Title cannot be more than 50 characters",
      "Content cannot be more than 2000 characters",
    ]);
    await page.getByLabel("Title").fill(" ");
    await page.getByLabel("Content").fill("");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expectErrors(page, ["Title is required", "Content is required"]);
    await page.getByLabel("Title").fill("Park day");
    await page.getByLabel("Content").fill("Pigeons everywhere.");
    // a second photo: several photos need an alt text each (in place with JavaScript, asked next without)
    await page.getByLabel("Add photos").setInputFiles(await jpegFile("new.jpg", 200, 150, "#3a3"));
    if (isNoJs(test.info())) {
      await page.getByRole("button", { name: "Update", exact: true }).click();
      await expectErrors(page, ["Enter the alt text of photo 2 (a short description for people who cannot see it)"]);
    }
    await page.getByLabel("Alt text of photo 2").fill("Leo on the grass");
    await photosSent(page, 1);
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expect(page).toHaveURL(momentUrl);
    await expect(page.getByRole("heading", { level: 1, name: "Park day" })).toBeVisible();
    await expect(page.getByText("Pigeons everywhere.")).toBeVisible();

    // the list shows it with its date, detail link and owner buttons
    await page.getByRole("link", { name: "Leo's Moments" }).click();
    const moment = page.locator("article.moment", { hasText: "Park day" });
    await expect(moment.getByRole("link", { name: "Park day", exact: true })).toHaveAttribute(
      "href",
      new URL(momentUrl).pathname,
    );
    await expect(moment.locator("time")).toBeVisible();
    await expectAccessible(page, browser);

    // delete from the list (in the moment's "Manage" disclosure): confirm dialog, No keeps, Yes
    // deletes and stays on the kid's moments
    await manage(moment, "Park day");
    await expect(moment.getByRole("link", { name: "Update", exact: true })).toHaveAttribute(
      "href",
      `${new URL(momentUrl).pathname}/update`,
    );
    await moment.getByRole("link", { name: "Delete", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm Delete" });
    await expect(dialog.getByText("Are you sure you want to delete this moment?")).toBeVisible();
    await expectAccessible(page, browser);
    await dialog.getByRole("link", { name: "No (Keep Daily Log)" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await manage(moment, "Park day");
    await moment.getByRole("link", { name: "Delete", exact: true }).click();
    await page
      .getByRole("dialog", { name: "Confirm Delete" })
      .getByRole("button", { name: "Yes (Remove Daily Log)" })
      .click();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs$`));
    await expect(page.getByText("No Moments found")).toBeVisible();

    // delete from the detail page
    const second = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Snow", content: "Eleven flakes" },
      await jpegFile(),
    );
    await page.goto(`/dailyLogs/${second.id}`);
    await page.getByRole("link", { name: "Delete Snow" }).click();
    await expect(page.getByRole("dialog", { name: "Confirm Delete" })).toBeVisible();
    await page.getByRole("button", { name: "Yes (Remove Daily Log)" }).click();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs$`));
    await expect(page.getByText("No Moments found")).toBeVisible();
    await page.goto(`/dailyLogs/${second.id}`);
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  });

  test("newest 20 moments first, then Older moments", async ({ page, browser }, testInfo) => {
    await signUp(page, newAccount("pg"));
    const kid = await apiCreateKid(page.request, { name: "Ava", birth_date: "2022-05-09", relationship: "Mom" });
    await insertMoments(kid.id, 23);
    await page.goto(`/kids/${kid.id}/dailyLogs`);
    const titles = page.locator("article.moment h2");
    await expect(titles).toHaveCount(20);
    await expect(titles.first()).toHaveText("Moment 23");
    await expect(titles.last()).toHaveText("Moment 4");
    await expectAccessible(page, browser);
    await page.getByRole("link", { name: "Older moments" }).click();
    await expect(page).toHaveURL(/\?before=/);
    await expect(titles).toHaveText(["Moment 3", "Moment 2", "Moment 1"]);
    await expectAccessible(page, browser);
    await expect(page.getByRole("link", { name: "Older moments" })).toHaveCount(0);
    await page.getByRole("link", { name: "Back to the newest moments" }).click();
    await expect(titles.first()).toHaveText("Moment 23");

    // a moment's title is a plain link: with JavaScript it navigates without reloading the
    // document (one click listener in the root), without JavaScript it is an ordinary link
    if (!isNoJs(testInfo)) await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
    await page.getByRole("link", { name: "Moment 22", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Moment 22" })).toBeVisible();
    if (!isNoJs(testInfo))
      expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
    // and Back returns to the list
    await page.goBack();
    await expect(titles.first()).toHaveText("Moment 23");
  });

  test("owner, accepted friend and stranger see different things", async ({ page, browser }, testInfo) => {
    await signUp(page, newAccount("own"));
    const ownerId = await myId(page.request);
    const kid = await apiCreateKid(
      page.request,
      { name: "Noah", birth_date: "2018-11-20", relationship: "Dad" },
      await jpegFile(),
    );
    const moment = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Lost tooth", content: "During dinner." },
      await jpegFile(),
    );

    const friend = await otherUser(browser, testInfo);
    const stranger = await otherUser(browser, testInfo);
    try {
      await befriend(ownerId, friend.id);

      // the friend sees the kid, its moments and the moment, but no owner buttons
      await friend.page.goto(`/kids/${kid.id}/dailyLogs`);
      await expect(friend.page.getByRole("heading", { level: 1, name: "Noah's Moments" })).toBeVisible();
      await expect(friend.page.getByRole("link", { name: "Lost tooth" })).toBeVisible();
      await expect(friend.page.getByRole("link", { name: "Add Sweet Moment" })).toHaveCount(0);
      await expect(friend.page.locator("summary", { hasText: "Manage" })).toHaveCount(0);
      await expect(friend.page.getByRole("link", { name: /^(Update|Delete)/ })).toHaveCount(0);
      await expectAccessible(friend.page, browser);
      await friend.page.goto(`/dailyLogs/${moment.id}`);
      await expect(friend.page.getByRole("heading", { level: 1, name: "Lost tooth" })).toBeVisible();
      await expect(friend.page.getByRole("link", { name: /^(Update|Delete)/ })).toHaveCount(0);
      await expectAccessible(friend.page, browser);
      // owner-only pages and a forged delete are refused
      await friend.page.goto(`/kids/${kid.id}/dailyLogs/new`);
      await expect(
        friend.page.getByRole("heading", { level: 1, name: "Only the owner can change this kid and its moments." }),
      ).toBeVisible();
      const refused = await friend.page.goto(`/dailyLogs/${moment.id}/update`);
      expect(refused?.status()).toBe(403);
      await expect(
        friend.page.getByRole("heading", { level: 1, name: "Only the owner can change this kid and its moments." }),
      ).toBeVisible();
      await expectAccessible(friend.page, browser);
      const forged = await friend.page.request.delete(`/api/daily_logs/${moment.id}`);
      expect(forged.status()).toBe(403);
      // the friend's own list is not the owner's: without kids of their own, the kids they see
      await friend.page.goto("/my-kids-list");
      await expect(friend.page.getByRole("region", { name: "Kids you see" }).getByRole("listitem")).toHaveCount(1);
      await expect(friend.page.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
      await expect(friend.page.getByText("No kids found. Please add your kid.")).toHaveCount(0);

      // a stranger gets the plain not-found page, the same as for a kid that does not exist
      for (const url of [
        `/kids/${kid.id}/dailyLogs`,
        `/dailyLogs/${moment.id}`,
        `/kids/${kid.id}/update`,
        "/kids/999999/dailyLogs",
      ]) {
        const res = await stranger.page.goto(url);
        expect(res?.status()).toBe(404);
        await expect(stranger.page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
        await expect(stranger.page.getByText("Noah")).toHaveCount(0);
      }
      await expectAccessible(stranger.page, browser);

      // the owner still has everything
      await page.goto(`/kids/${kid.id}/DailyLogs`);
      await expect(page.getByRole("link", { name: "Add Sweet Moment" })).toHaveAttribute(
        "href",
        `/kids/${kid.id}/dailyLogs/new`,
      );
      await manage(page.locator("article.moment", { hasText: "Lost tooth" }), "Lost tooth");
      await expect(page.getByRole("link", { name: "Update", exact: true })).toBeVisible();
    } finally {
      await friend.context.close();
      await stranger.context.close();
    }
  });
});
