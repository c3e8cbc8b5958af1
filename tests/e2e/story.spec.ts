import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectAccessible, expect, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, jpegFile, myId } from "./kids-helpers";
import { befriend, closeE2eDb } from "./e2e-db";

// The family's story (docs/decisions/0028-*): a back-dated milestone moment, seen in a friend's
// feed with the kid's age on its date, the kid's milestones and timeline; the feed's empty state.
// Runs with JavaScript on and off (the two projects), every page checked with axe.

test.afterAll(async () => {
  await closeE2eDb();
});

async function otherUser(browser: Browser, testInfo: TestInfo, prefix: string) {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: !isNoJs(testInfo),
  });
  const page = await context.newPage();
  await signUp(page, newAccount(prefix));
  return { page, context, id: await myId(page.request) };
}

async function summaryHas(page: Page, message: string) {
  const summary = page.locator(".error-summary");
  await expect(summary.getByRole("link", { name: message, exact: true })).toBeVisible();
  await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
}

test.describe("the family's story", () => {
  test("a new user's feed says what to do next", async ({ page, browser }) => {
    await signUp(page, newAccount("lonely"));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Feed" }).click();
    await expect(page).toHaveURL(/\/feed$/);
    await expect(page.getByRole("heading", { level: 1, name: "Feed" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Nothing here yet" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Add your kid" })).toHaveAttribute("href", "/kids/add-new");
    await expect(page.getByRole("link", { name: "Find friends" })).toHaveAttribute("href", "/friendships/new");
    await expectAccessible(page, browser);
  });

  test("post a back-dated milestone, see it in a friend's feed with the right age, milestones and timeline", async ({
    page,
    browser,
  }, testInfo) => {
    await signUp(page, newAccount("story"));
    const me = await myId(page.request);
    const kid = await apiCreateKid(page.request, { name: "Leo", birth_date: "2021-08-02", relationship: "Dad" });
    await page.goto(`/kids/${kid.id}/dailyLogs/new`);
    await expectAccessible(page, browser);

    // a date in the future and Other without a label: clear messages
    await page.getByLabel("Title").fill("First steps!");
    await page.getByLabel("Content").fill("Three steps to the sofa.");
    await page.getByLabel("Date of the moment").fill("2999-01-01");
    await page.getByLabel("Is this one of Leo's milestones?").selectOption("Other");
    await page.getByLabel("Image Upload").setInputFiles(await jpegFile("steps.jpg"));
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await summaryHas(page, "Milestone label is required when the milestone is Other");
    await page.getByLabel("Is this one of Leo's milestones?").selectOption("First steps");
    // the photo is kept with the form: nothing to choose again
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await summaryHas(page, "Date can not be in the future");
    await expect(page).toHaveTitle(/^Error: /);
    await expectAccessible(page, browser);

    // back-dated, a milestone
    await page.getByLabel("Date of the moment").fill("2023-05-04");
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
    const momentPath = new URL(page.url()).pathname;
    await expect(page.getByRole("heading", { level: 1, name: "First steps!" })).toBeVisible();
    await expect(page.locator(".moment__date")).toHaveText("Leo · 4 May 2023 · Leo was 1 year, 9 months");
    await expect(page.locator(".moment time")).toHaveAttribute("dateTime", "2023-05-04");
    await expect(page.locator(".milestone-badge")).toHaveText(/First steps/);
    await expectAccessible(page, browser);

    // the update form keeps them; Other with a label
    await page.goto(`${momentPath}/update`);
    await expect(page.getByLabel("Date of the moment")).toHaveValue("2023-05-04");
    await expect(page.getByLabel("Is this one of Leo's milestones?")).toHaveValue("First steps");
    await page.getByLabel("Date of the moment").fill("2020-01-01");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await summaryHas(page, "Date cannot be more than 1 year before Leo's birth date");
    await expectAccessible(page, browser);
    await page.getByLabel("Date of the moment").fill("2023-05-05");
    await page.getByLabel("Is this one of Leo's milestones?").selectOption("Other");
    await page.getByLabel("Label for Other").fill("First walk to the sofa");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${momentPath}$`));
    await expect(page.locator(".milestone-badge")).toHaveText(/First walk to the sofa/);

    // a friend sees it in their feed, with the age on the moment's date, and likes it there
    const friend = await otherUser(browser, testInfo, "grandma");
    await befriend(me, friend.id);
    await friend.page.goto("/my-kids-list");
    const news = friend.page.getByRole("region", { name: "Family news" });
    await expect(news.getByRole("link", { name: "First steps!" })).toBeVisible();
    // without kids of her own she sees the family's kid instead of "No kids found"
    await expect(
      friend.page.getByRole("region", { name: "Kids you see" }).getByRole("link", { name: /Leo/ }),
    ).toBeVisible();
    await expect(friend.page.getByRole("link", { name: "Add your own kid" })).toBeVisible();
    await expectAccessible(friend.page, browser);
    await news.getByRole("link", { name: "See everything new" }).click();
    await expect(friend.page).toHaveURL(/\/feed$/);
    const entry = friend.page.locator("article.feed-entry", { hasText: "First steps!" });
    await expect(entry.getByRole("link", { name: "Leo · 1 year, 9 months" })).toHaveAttribute(
      "href",
      `/kids/${kid.id}/dailyLogs`,
    );
    await expect(entry.locator(".milestone-badge")).toHaveText(/First walk to the sofa/);
    await expect(entry.getByRole("img", { name: "Photo: First steps!" })).toBeVisible();
    await expectAccessible(friend.page, browser);
    await entry.getByRole("button", { name: "Like" }).click();
    await expect(entry.getByText("1 like")).toBeVisible();
    await expect(friend.page).toHaveURL(/\/feed(#moment-\d+)?$/);

    // the kid's milestones and timeline, as the friend
    await friend.page.goto(`/kids/${kid.id}/dailyLogs`);
    await friend.page.getByRole("link", { name: "Milestones" }).click();
    await expect(friend.page.getByRole("heading", { level: 1, name: "Leo's Milestones" })).toBeVisible();
    await expect(friend.page.locator("article.moment .moment__date")).toHaveText(
      "5 May 2023 · Leo was 1 year, 9 months",
    );
    await expectAccessible(friend.page, browser);
    await friend.page.getByRole("link", { name: "Timeline by age" }).click();
    await friend.page.getByRole("link", { name: "Age 1" }).click();
    await expect(friend.page).toHaveURL(/\/timeline\?age=1$/);
    await expect(friend.page.getByRole("heading", { level: 2, name: "Moments of Age 1" })).toBeVisible();
    await expect(friend.page.getByRole("link", { name: "First steps!" })).toBeVisible();
    await friend.page.getByRole("link", { name: /May 2023/ }).click();
    await expect(friend.page.getByRole("heading", { level: 2, name: "Moments of May 2023" })).toBeVisible();
    await expect(friend.page.getByRole("link", { name: "First steps!" })).toBeVisible();
    await expectAccessible(friend.page, browser);
    await friend.context.close();
  });
});
