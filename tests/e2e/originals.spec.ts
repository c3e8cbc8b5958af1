import fs from "node:fs";
import sharp from "sharp";
import { expectAccessible, expect, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment } from "./kids-helpers";
import { closeE2eDb } from "./e2e-db";

// "Download original" (docs/decisions/0063-full-size-originals.md): a phone photo posted with its
// location in EXIF and stored sideways comes back from the photo viewer as a full-size JPEG, upright,
// with no location and no other metadata; on a phone, with JavaScript on (the viewer as a dialog)
// and off (the viewer's own page).

test.use({ viewport: { width: 390, height: 844 } });

test.afterAll(async () => {
  await closeE2eDb();
});

/** A 2400 × 1800 camera JPEG stored sideways (orientation 6), red left half, with GPS and camera EXIF. */
async function phonePhoto() {
  const width = 2400;
  const height = 1800;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) raw.set(i % width < width / 2 ? [220, 40, 40] : [40, 40, 220], i * 3);
  const buffer = await sharp(raw, { raw: { width, height, channels: 3 } })
    .withExif({
      IFD0: { Make: "Phone", Model: "Phone 15" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 2400/100",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 300/100",
      },
    })
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { name: "IMG_0001.jpg", mimeType: "image/jpeg", buffer };
}

test("'Download original' gives a full-size photo without location", async ({ page, browser }, testInfo) => {
  await signUp(page, newAccount("orig"));
  const kid = await apiCreateKid(page.request, { name: "Ada", birth_date: "2021-05-04", relationship: "Mom" });
  const moment = await apiCreateMoment(
    page.request,
    kid.id,
    { title: "Park day", content: "Swings." },
    await phonePhoto(),
  );

  // the moment's page offers it too
  await page.goto(`/dailyLogs/${moment.id}`);
  await expect(page.locator("article.moment").getByRole("link", { name: "Download original" })).toBeVisible();

  // the viewer: its own page without JavaScript, a dialog over the moment's page with it
  await page.locator("article.moment").getByRole("link", { name: "Park day" }).first().click();
  await expect(page).toHaveURL(new RegExp(`/dailyLogs/${moment.id}/photos/1$`));
  const viewer = page.locator(".photo-viewer");
  if (!isNoJs(testInfo)) {
    await expect(page.getByRole("dialog", { name: "Park day" }).locator(".photo-viewer")).toBeVisible();
    await hydrated(page);
  }
  const link = viewer.getByRole("link", { name: "Download original" });
  await expect(link).toBeVisible();
  await expectAccessible(page, browser);

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^\d{4}-\d\d-\d\d Ada - Park day\.jpg$/);
  const bytes = fs.readFileSync((await download.path())!);
  const meta = await sharp(bytes).metadata();
  // full size and upright: every pixel of the 2400 × 1800 photo, turned as the camera meant
  expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1800, 2400]);
  for (const field of ["exif", "xmp", "iptc", "icc", "orientation"] as const) expect(meta[field]).toBeUndefined();
  const text = bytes.toString("latin1");
  for (const needle of ["Exif", "GPS", "Phone"]) expect(text).not.toContain(needle);
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const red = data.subarray((100 * info.width + 900) * 3, (100 * info.width + 900) * 3 + 3);
  expect(red[0]).toBeGreaterThan(180); // the top is the red (formerly left) half
  // the page is still there (a download is not a navigation)
  await expect(link).toBeVisible();
});
