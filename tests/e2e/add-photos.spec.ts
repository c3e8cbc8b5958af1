import sharp from "sharp";
import { expect, expectAccessible, freshPage, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, myId, textFile, type FilePayload } from "./kids-helpers";
import { befriend, closeE2eDb } from "./e2e-db";

// "Add photos" (docs/decisions/0065-drafts.md) on a phone, with JavaScript on and off: twelve
// photos from three days become three drafts; a refused file is listed; move a photo, merge two
// drafts, publish; a relative's feed shows the moments with their days and the kid's ages.

test.use({ viewport: { width: 390, height: 844 } });

test.afterAll(async () => {
  await closeE2eDb();
});

/** A small real JPEG taken at `day` (EXIF DateTimeOriginal), `n` minutes past nine. */
async function photoOn(day: string, n: number): Promise<FilePayload> {
  const buffer = await sharp({
    create: { width: 120, height: 90, channels: 3, background: `#${(n * 37 + 40).toString(16).padStart(2, "0")}8844` },
  })
    .jpeg()
    .withExif({ IFD2: { DateTimeOriginal: `${day.replaceAll("-", ":")} 09:${String(n).padStart(2, "0")}:00` } })
    .toBuffer();
  return { name: `${day}-${n}.jpg`, mimeType: "image/jpeg", buffer };
}

test("add twelve photos from three days, review, move, merge, publish, and a relative sees them", async ({
  page,
  browser,
}, testInfo) => {
  test.slow(); // twelve photos through the pipeline on a busy machine
  await signUp(page, newAccount("addp"));
  const me = await myId(page.request);
  const kid = await apiCreateKid(page.request, { name: "Maya", birth_date: "2022-11-10", relationship: "Mom" });

  // the kid's page leads to the form: one file control with its own label and hint
  await page.goto(`/kids/${kid.id}/dailyLogs`);
  await hydrated(page);
  await page.getByRole("link", { name: "Add photos" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Add photos for Maya" })).toBeVisible();
  const files = page.getByLabel("Photos");
  await expect(files).toHaveAttribute("multiple", "");
  await expect(files).toHaveAccessibleDescription(/Up to 50 photos at a time/);
  await expectAccessible(page, browser);

  // nothing chosen: the GOV.UK error, nothing added
  await hydrated(page);
  await page.getByRole("button", { name: "Add photos", exact: true }).click();
  await expect(page.locator(".error-summary").getByRole("link", { name: "Choose at least one photo." })).toBeVisible();
  await expect(page).toHaveTitle(/^Error: /);

  const chosen: FilePayload[] = [];
  for (let i = 0; i < 5; i++) chosen.push(await photoOn("2024-05-10", i));
  for (let i = 0; i < 4; i++) chosen.push(await photoOn("2024-05-11", i));
  for (let i = 0; i < 3; i++) chosen.push(await photoOn("2024-05-12", i));
  await files.setInputFiles([...chosen, textFile]);
  await hydrated(page);
  // with JavaScript the photos go to the API by XMLHttpRequest, each with its progress bar
  const sent = isNoJs(testInfo)
    ? null
    : page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith(`/api/kids/${kid.id}/imports`));
  await page.getByRole("button", { name: "Add photos", exact: true }).click();
  if (sent) await sent;

  // the review page: three drafts, newest day first, and what was not added
  // twelve photos through the pipeline: more than the usual wait on a busy machine
  await expect(page).toHaveURL(new RegExp(`/kids/${kid.id}/drafts$`), { timeout: 30_000 });
  await expect(page.getByRole("heading", { level: 1, name: "Drafts for Maya" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Not added" })).toContainText(
    "notes.txt: Only image files are accepted.",
  );
  const draft = (heading: RegExp) =>
    page.locator("section.draft", { has: page.getByRole("heading", { level: 2, name: heading }) });
  await expect(page.getByRole("heading", { level: 2 }).filter({ hasText: /May 2024/ })).toHaveText([
    "12 May 2024 · 3 photos",
    "11 May 2024 · 4 photos",
    "10 May 2024 · 5 photos",
  ]);
  await expect(draft(/^10 May 2024/).getByLabel("Title", { exact: true })).toHaveValue("10 May 2024");
  await expectAccessible(page, browser);

  // move the first photo of the 12th to the 11th
  await hydrated(page);
  await draft(/^12 May 2024/)
    .getByLabel("Move photo 1 to")
    .selectOption({ label: "11 May 2024" });
  await draft(/^12 May 2024/)
    .getByRole("button", { name: "Move photo 1", exact: true })
    .click();
  await expect(draft(/^11 May 2024/).getByRole("heading", { level: 2 })).toHaveText("11 May 2024 · 5 photos");
  await expect(draft(/^12 May 2024/).getByRole("heading", { level: 2 })).toHaveText("12 May 2024 · 2 photos");

  // merge the 11th into the 10th: one draft of ten photos
  await hydrated(page);
  await draft(/^11 May 2024/)
    .getByLabel("Merge this draft into")
    .selectOption({ label: "10 May 2024" });
  await draft(/^11 May 2024/)
    .getByRole("button", { name: "Merge", exact: true })
    .click();
  await expect(page.getByRole("heading", { level: 2 }).filter({ hasText: /May 2024/ })).toHaveText([
    "12 May 2024 · 2 photos",
    "10 May 2024 · 10 photos",
  ]);

  // publishing asks what a moment needs, on the fields
  const weekend = draft(/^10 May 2024/);
  await hydrated(page);
  await weekend.getByRole("button", { name: "Publish this moment", exact: true }).click();
  await expect(
    page.locator(".error-summary").getByRole("link", { name: "Enter the moment's text before publishing it" }),
  ).toBeVisible();
  await expect(weekend.locator(".field-error", { hasText: "Enter the alt text of photo 10" })).toBeVisible();
  await expectAccessible(page, browser);

  await weekend.getByLabel("Title", { exact: true }).fill("Picnic weekend");
  await weekend.getByLabel("Text", { exact: true }).fill("Two days in the park with grandpa.");
  for (let i = 1; i <= 10; i++)
    await weekend.getByLabel(`Alt text of photo ${i}`, { exact: true }).fill(`Maya in the park, ${i}`);
  await weekend.getByLabel("Everyone", { exact: true }).check();
  await hydrated(page);
  await weekend.getByRole("button", { name: "Publish this moment", exact: true }).click();
  await expect(page.getByRole("heading", { level: 2 }).filter({ hasText: /May 2024/ })).toHaveText([
    "12 May 2024 · 2 photos",
  ]);

  const sunday = draft(/^12 May 2024/);
  await sunday.getByLabel("Text", { exact: true }).fill("Feeding the ducks.");
  await sunday.getByLabel("Alt text of photo 1", { exact: true }).fill("Maya and a duck");
  await sunday.getByLabel("Alt text of photo 2", { exact: true }).fill("Ducks on the pond");
  await sunday.getByLabel("Everyone", { exact: true }).check();
  await hydrated(page);
  await sunday.getByRole("button", { name: "Publish this moment", exact: true }).click();
  await expect(page.getByText("No drafts.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Add photos" })).toBeVisible();

  // a relative's feed: the two moments with their days and Maya's age on each
  const relative = await freshPage(browser, testInfo);
  await signUp(relative, newAccount("addr"));
  await befriend(me, await myId(relative.request));
  await relative.goto("/feed");
  const picnic = relative.locator("article.feed-entry", { hasText: "Picnic weekend" });
  const ducks = relative.locator("article.feed-entry", { hasText: "Feeding the ducks." });
  await expect(picnic.locator("time").first()).toHaveAttribute("dateTime", "2024-05-10");
  await expect(ducks.locator("time").first()).toHaveAttribute("dateTime", "2024-05-12");
  await expect(picnic.getByRole("link", { name: "Maya · 1 year, 6 months" })).toBeVisible();
  await expect(ducks.getByRole("img", { name: "Maya and a duck" })).toBeVisible();
  await expect(picnic.getByRole("img", { name: "Maya in the park, 1", exact: true })).toBeVisible();
  await relative.context().close();
});
