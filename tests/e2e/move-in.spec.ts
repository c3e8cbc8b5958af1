import { expect, expectAccessible, hydrated, isNoJs, logOut, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile, textFile } from "./kids-helpers";

// "Move in" (docs/spec.md §2, docs/decisions/0066-imports.md), end to end with JavaScript on and
// off: one account's export is downloaded, another account finds "Move in" on its empty kids list,
// is told why a file that is no ZIP was refused, imports the export, reads the result, and finds
// the kid with its moment.

test("move in: an export of another account, after a refused file", async ({ page, browser }, testInfo) => {
  await signUp(page);
  const kid = await apiCreateKid(page.request, { name: "Maya", birth_date: "2022-04-05", relationship: "Mom" });
  await apiCreateMoment(page.request, kid.id, { title: "Park day", content: "Swings." }, await jpegFile("park.jpg"));
  const exported = await page.request.get("/settings/export");
  expect(exported.status()).toBe(200);
  const zip = await exported.body();
  await logOut(page);

  await signUp(page);
  await page.getByRole("link", { name: "Move in from another server" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Move in" })).toBeVisible();

  // a file that is no ZIP: the error summary (focused) and the message on the field; nothing imported
  if (!isNoJs(testInfo)) await hydrated(page);
  await page.getByLabel("ZIP file").setInputFiles(textFile);
  await page.getByRole("button", { name: "Import" }).click();
  const message = "That file is not a ZIP archive. Choose the ZIP file you downloaded.";
  const summary = page.locator(".error-summary");
  await expect(summary.getByRole("link", { name: message })).toBeVisible();
  await expect(summary).toBeFocused();
  await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
  await expect(page).toHaveTitle(/^Error: Move in/);
  await expectAccessible(page, browser);

  // the export: the result page says what came and what did not
  if (!isNoJs(testInfo)) await hydrated(page);
  await page.getByLabel("ZIP file").setInputFiles({ name: "export.zip", mimeType: "application/zip", buffer: zip });
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Moved in" })).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: /^1 kid$/ })).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: "1 moment with 1 photo" })).toBeVisible();
  await expectAccessible(page, browser);

  await page.getByRole("link", { name: "See your kids" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  await page.getByRole("link", { name: "Maya", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Park day" })).toBeVisible();
  await expect(page.getByRole("img", { name: "Photo: Park day" })).toBeVisible();
});
