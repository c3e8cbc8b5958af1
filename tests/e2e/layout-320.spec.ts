// Nothing scrolls a 320-px phone sideways (long unbroken names, titles and comments wrap; empty
// states and the story views too), and the red danger link-button stays readable on hover
// (docs/design.md).
import type { Page } from "@playwright/test";
import { contrast, expect, hydrated, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile, myId } from "./kids-helpers";
import { otherPerson } from "./social-helpers";
import { closeE2eDb, e2eDb } from "./e2e-db";

const PHONE = { width: 320, height: 640 };
// each as long as the forms allow (50 characters), without a space
const LONG_NAME = "Maximiliandrakontopoulosvanderbergenschmidtkowski".padEnd(50, "x");
const LONG_TITLE = "Firststepsacrossthewholelivingroomwithoutfallingxx".slice(0, 50);
const LONG_COMMENT = "Sooooooooooooooooooooooooooooooooooooooooooooooooooooooooo-proud!".repeat(3);

test.use({ viewport: PHONE });
test.afterAll(closeE2eDb);

/** The page's width, the widest element that sticks out (for the failure message). */
async function sideways(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const wide = [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5 || el.scrollWidth > root.clientWidth)
      .slice(-4)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });
}

async function expectNoSidewaysScroll(page: Page, path: string) {
  await page.goto(path);
  await expect(page.locator("h1").first()).toBeVisible();
  const w = await sideways(page);
  expect(w.scrollWidth, `${path} scrolls sideways at 320 px: ${w.wide.join(", ")}`).toBeLessThanOrEqual(w.clientWidth);
}

test("no page scrolls sideways at 320 px, long unbroken words included", async ({ page, browser }, testInfo) => {
  for (const path of ["/", "/login", "/signup", "/?modal=signup", "/?modal=login"])
    await expectNoSidewaysScroll(page, path);

  await signUp(page, newAccount("w"));
  // the empty states (drawing, sentence, next action) fit too
  for (const path of ["/my-kids-list", "/feed", "/current/friends"]) await expectNoSidewaysScroll(page, path);
  await expect(page.locator(".empty-state__art").first()).toBeVisible();
  const kid = await apiCreateKid(
    page.request,
    { name: LONG_NAME, birth_date: "2021-03-04", relationship: "Mom" },
    await jpegFile("kid.jpg", 400, 300),
  );
  const moment = await apiCreateMoment(
    page.request,
    kid.id,
    { title: LONG_TITLE, content: LONG_COMMENT },
    await jpegFile("m.jpg", 300, 600, "#36c"),
  );

  // a friend whose kid also has a long name (the friend's own page shows it), who commented one long word
  const friend = await otherPerson(browser, testInfo, "f");
  try {
    const mine = await myId(page.request);
    const now = new Date().toISOString();
    await e2eDb()("friendships").insert({
      user_id: mine,
      friend_id: friend.account.id,
      status: "accepted",
      created_at: now,
      updated_at: now,
    });
    await e2eDb()("kids").insert({
      user_id: friend.account.id,
      name: LONG_NAME,
      birth_date: "2020-01-02",
      relationship: "Dad",
      created_at: now,
    });
    await e2eDb()("comments").insert({
      daily_log_id: moment.id,
      user_id: friend.account.id,
      comment: LONG_COMMENT,
      created_at: now,
      updated_at: now,
    });
  } finally {
    await friend.close();
  }

  for (const path of [
    "/my-kids-list",
    "/feed",
    "/kids/add-new",
    `/kids/${kid.id}/update`,
    `/kids/${kid.id}/dailyLogs`,
    `/kids/${kid.id}/dailyLogs/new`,
    `/kids/${kid.id}/milestones`,
    `/kids/${kid.id}/timeline`,
    `/dailyLogs/${moment.id}`,
    `/dailyLogs/${moment.id}/photos/1`,
    `/dailyLogs/${moment.id}/update`,
    "/notifications",
    "/settings",
    "/current/friends",
    `/current/friends/${friend.account.id}`,
    `/friendships/new?q=${encodeURIComponent(friend.account.username.slice(0, 4))}`,
    "/profile/picture",
  ]) {
    await expectNoSidewaysScroll(page, path);
  }
  // the long words are really on the pages checked (the check would pass on an empty page)
  await page.goto("/my-kids-list");
  await expect(page.getByText(LONG_NAME).first()).toBeVisible();
  await page.goto(`/kids/${kid.id}/dailyLogs`);
  await expect(page.getByText(LONG_TITLE).first()).toBeVisible();
  await page.goto(`/dailyLogs/${moment.id}`);
  await expect(page.getByText(LONG_COMMENT).first()).toBeVisible();
  await page.goto(`/dailyLogs/${moment.id}/photos/1`);
  await expect(page.getByRole("heading", { level: 1, name: LONG_TITLE })).toBeVisible();

  // a refused form (no title) at 320 px: the error summary and the errors fit too
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await page.getByRole("button", { name: "Add your new dailyLog" }).click();
  await expect(page.getByRole("alert").or(page.locator(".error-summary")).first()).toBeVisible();
  const w = await sideways(page);
  expect(w.scrollWidth, `refused form scrolls sideways: ${w.wide.join(", ")}`).toBeLessThanOrEqual(w.clientWidth);
});

test("the danger link-button is readable at rest and on hover; a refused photo form says to choose the photo again", async ({
  page,
}, testInfo) => {
  await signUp(page, newAccount("d"));
  const kid = await apiCreateKid(page.request, { name: "Elsa", birth_date: "2021-03-04", relationship: "Mom" });
  await page.goto("/my-kids-list");
  const remove = page.locator("a.button--danger").first();
  await expect(remove).toBeVisible();
  const colours = () =>
    remove.evaluate((el) => {
      const s = getComputedStyle(el);
      return { color: s.color, background: s.backgroundColor };
    });
  const rest = await colours();
  expect(contrast(rest.color, rest.background), `rest ${JSON.stringify(rest)}`).toBeGreaterThanOrEqual(4.5);
  await remove.hover();
  const hover = await colours();
  expect(hover.background).not.toBe("rgba(0, 0, 0, 0)");
  expect(contrast(hover.color, hover.background), `hover ${JSON.stringify(hover)}`).toBeGreaterThanOrEqual(4.5);

  // a refused form keeps its photo, with JavaScript or without: nothing to choose again
  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await hydrated(page);
  await page.getByLabel("Image Upload").setInputFiles(await jpegFile());
  await page.getByRole("button", { name: "Add your new dailyLog" }).click();
  await expect(page.locator(".error-summary")).toBeVisible();
  await expect(page.getByText("please choose it again")).toHaveCount(0);
  if (testInfo.project.name === "nojs") {
    await expect(page.getByRole("group", { name: "Your new photo" }).getByRole("img")).toBeVisible();
  } else {
    await expect(page.getByRole("status").filter({ hasText: "1 of 1 photo sent (100%)" })).toBeVisible();
  }
});
