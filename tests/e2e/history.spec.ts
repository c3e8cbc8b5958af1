// Back after Log Out, or after deleting a moment, must not show what is gone
// (docs/decisions/0019-*): signed-in pages are `no-store`, so the browser fetches them again
// instead of redisplaying them from its history cache. The no-JavaScript browser is where that
// cache shows (with JavaScript, React Router navigates client-side and loads fresh data anyway).
import { expect, logOut, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile } from "./kids-helpers";
import { closeE2eDb } from "./e2e-db";

test.afterAll(async () => {
  await closeE2eDb();
});

test("Back after Log Out does not show the signed-in page again", async ({ page }) => {
  const account = await signUp(page, newAccount("back"));
  await page.goto("/my-kids-list");
  const shown = page.waitForResponse((r) => new URL(r.url()).pathname === "/current/friends");
  await page.goto("/current/friends");
  expect((await shown).headers()["cache-control"]).toContain("no-store");
  await expect(page.locator(".profile-menu__username")).toHaveText(account.username);

  await logOut(page);
  await page.goBack();
  // fetched again, signed out: the log-in page, and nobody's name
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fcurrent%2Ffriends$/);
  await expect(page.getByRole("heading", { level: 1, name: "Log In" })).toBeVisible();
  await expect(page.getByText(account.username)).toHaveCount(0);
});

test("Back after Log Out from a kid's page, which the browser keeps for revisits, does not show it again", async ({
  page,
}) => {
  // The kid's moments page, a moment and the feed are `private, no-cache` with an ETag (revisits
  // answered 304, docs/decisions/0034-conditional-pages.md), not `no-store`: the browser keeps them,
  // but must ask again before showing one (and log-out's `Clear-Site-Data: "cache"` empties what it
  // kept), so Back after Log Out gets the log-in page, never the kept copy.
  const account = await signUp(page, newAccount("backkid"));
  const kid = await apiCreateKid(page.request, { name: "Noor", birth_date: "2021-05-06", relationship: "Dad" });
  await apiCreateMoment(page.request, kid.id, { title: "Puddle jumping", content: "Splash" }, await jpegFile());
  const shown = page.waitForResponse((r) => new URL(r.url()).pathname === `/kids/${kid.id}/dailyLogs`);
  await page.goto(`/kids/${kid.id}/dailyLogs`);
  const headers = (await shown).headers();
  expect(headers["cache-control"]).toContain("no-cache");
  expect(headers["etag"]).toBeTruthy();
  await expect(page.getByRole("link", { name: "Puddle jumping", exact: true })).toBeVisible();

  await logOut(page);
  await page.goBack();
  await expect(page.getByRole("heading", { level: 1, name: "Log In" })).toBeVisible();
  await expect(page.getByText("Puddle jumping")).toHaveCount(0);
  await expect(page.getByText(account.username)).toHaveCount(0);
});

test("Back after deleting a moment does not show it again, nor its confirm dialog", async ({ page }) => {
  await signUp(page, newAccount("del"));
  const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2022-03-04", relationship: "Mom" });
  const moment = await apiCreateMoment(
    page.request,
    kid.id,
    { title: "Kite day", content: "It flew" },
    await jpegFile(),
  );
  await page.goto(`/dailyLogs/${moment.id}`);
  await page.getByRole("link", { name: "Delete Kite day" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm Delete" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Yes (Remove Daily Log)" }).click();
  await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/dailyLogs$`));

  await page.goBack();
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("dialog", { name: "Confirm Delete" })).toHaveCount(0);
  await expect(page.getByText("Kite day")).toHaveCount(0);
});
