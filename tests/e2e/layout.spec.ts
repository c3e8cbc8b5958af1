import { expectAccessible, expect, hydrated, isNoJs, test } from "./utils";

test.describe("layout", () => {
  test("the log-in modal: opens from the menu, closes by link, Escape and background; focus comes back", async ({
    page,
    browser,
  }, testInfo) => {
    await page.goto("/");
    const menu = page.locator("details.profile-menu");
    await menu.locator("summary").click();
    const open = menu.getByRole("link", { name: "Log In" });
    await open.click();
    const dialog = page.getByRole("dialog", { name: "Log In" });
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/\?modal=login$/);
    await expect(dialog.getByRole("button", { name: "Demo User" })).toBeVisible();
    await expectAccessible(page, browser);

    if (isNoJs(testInfo)) {
      // without JavaScript the modal is a page state: its close link leads back
      await dialog.getByRole("link", { name: "Close" }).click();
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect(page).toHaveURL(/\/$/);
      return;
    }
    // focus moved into the dialog
    await expect(dialog.getByLabel("Email")).toBeFocused();
    // Escape closes it and focus returns to what opened it
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/$/);

    // a click on the background closes it too
    await page.goto("/?modal=signup");
    const signup = page.getByRole("dialog", { name: "Create your account" });
    await expect(signup).toBeVisible();
    // once the page is hydrated the dialog is a real modal in the top layer
    await expect.poll(() => signup.evaluate((d) => d.matches(":modal"))).toBe(true);
    await page.mouse.click(5, 5);
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });

  test("the profile menu opens by keyboard and closes on Escape or an outside click", async ({ page }, testInfo) => {
    await page.goto("/");
    await hydrated(page);
    const menu = page.locator("details.profile-menu");
    const summary = menu.locator("summary");
    await summary.focus();
    await page.keyboard.press("Enter");
    await expect(menu.getByRole("link", { name: "Sign Up" })).toBeVisible();
    if (isNoJs(testInfo)) {
      // a native disclosure: the same key closes it
      await page.keyboard.press("Enter");
      await expect(menu.getByRole("link", { name: "Sign Up" })).toBeHidden();
      return;
    }
    await page.keyboard.press("Escape");
    await expect(menu.getByRole("link", { name: "Sign Up" })).toBeHidden();
    await expect(summary).toBeFocused();
    await summary.click();
    await expect(menu.getByRole("link", { name: "Sign Up" })).toBeVisible();
    await page.getByRole("heading", { level: 1 }).click();
    await expect(menu.getByRole("link", { name: "Sign Up" })).toBeHidden();
  });

  test("header and footer", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("banner").getByRole("link", { name: "Sweet Moments" })).toHaveAttribute("href", "/");
    const footer = page.getByRole("contentinfo");
    await expect(footer).toContainText(/© \d{4}/);
    await expect(footer.getByRole("link", { name: "Code repository" })).toBeVisible();
    await expect(footer.getByRole("link", { name: "Professional profile" })).toBeVisible();
  });
});
