import { expect, hydrated, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile } from "./kids-helpers";

// Dialogs and focus with JavaScript (docs/spec.md §11), in the js project only (playwright.config.ts):
// focus comes back to the avatar button after a modal opened from the profile menu (without
// JavaScript a modal is a page of its own: there is no focus to bring back), Escape dismisses the
// kid-age tooltip (dismissing needs the page's script; without it the tip follows focus and hover
// only), and Back after deleting a moment does not lead to "Page not found" (the delete replaces the
// moment's history entry; without JavaScript the browser's history holds the deleted moment's pages).

test.describe("dialogs and focus with JavaScript", () => {
  test("focus comes back to the avatar button when a modal opened from the profile menu closes", async ({ page }) => {
    await page.goto("/");
    await hydrated(page);
    const avatar = page.locator("details.profile-menu > summary");
    // Escape, the close link, and a click on the background
    for (const close of ["Escape", "link", "background"] as const) {
      await avatar.click();
      await page.locator("details.profile-menu").getByRole("link", { name: "Log In" }).click();
      const dialog = page.getByRole("dialog", { name: "Log In" });
      await expect(dialog.getByLabel("Email")).toBeFocused();
      if (close === "Escape") await page.keyboard.press("Escape");
      else if (close === "link") await dialog.getByRole("link", { name: "Close" }).click();
      else await page.mouse.click(5, 5);
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect(avatar).toBeFocused();
    }
    // signed in: the picture modal's Cancel
    await signUp(page, newAccount("fb"));
    await hydrated(page);
    await avatar.click();
    await page.locator("details.profile-menu").getByRole("link", { name: "Add profile picture" }).click();
    await page.getByRole("dialog", { name: "Add Your Profile Picture" }).getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(avatar).toBeFocused();
  });

  test("Escape dismisses the kid-age tooltip while the age keeps focus", async ({ page }) => {
    await signUp(page, newAccount("tt"));
    await apiCreateKid(page.request, { name: "Rue", birth_date: "2020-08-08", relationship: "Dad" });
    await page.goto("/my-kids-list");
    await hydrated(page);
    const age = page.getByRole("button", { name: /^Age: / });
    const tip = page.getByRole("tooltip");
    await age.focus();
    await expect(tip).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(tip).toBeHidden();
    await expect(age).toBeFocused();
    // it comes back with the next focus
    await age.blur();
    await age.focus();
    await expect(tip).toBeVisible();
  });

  test("after deleting a moment on its page, Back leads to the page before it, not to 'Page not found'", async ({
    page,
  }) => {
    await signUp(page, newAccount("bk"));
    const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2019-09-09", relationship: "Mom" });
    const moment = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Puddles", content: "All of them" },
      await jpegFile(),
    );
    await page.goto(`/kids/${kid.id}/dailyLogs`);
    await hydrated(page);
    await page.getByRole("link", { name: "Puddles", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${moment.id}$`));
    await page.getByRole("link", { name: "Delete Puddles" }).click();
    await page
      .getByRole("dialog", { name: "Confirm Delete" })
      .getByRole("button", { name: "Yes (Remove Daily Log)" })
      .click();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs$`));
    await expect(page.getByText("No Moments found")).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs$`));
    await expect(page.getByRole("heading", { level: 1, name: "Ivy's Moments" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Page not found" })).toHaveCount(0);
  });
});
