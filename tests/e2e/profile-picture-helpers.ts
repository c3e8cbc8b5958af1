import sharp from "sharp";
import { expect, type Locator, type Page } from "@playwright/test";

// Helpers for tests/e2e/profile-picture.spec.ts: real JPEGs made with sharp, and the header's avatar.

/** A JPEG of `width` × `height` in one colour. */
export async function jpeg(width: number, height: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A JPEG that carries GPS position, camera and date in its EXIF. */
export async function jpegWithGps(): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 900, height: 600, channels: 3, background: "#3a7" } })
    .withExif({
      IFD0: { Make: "PhoneMaker", Model: "Phone 15", ImageDescription: "Our house" },
      IFD2: { DateTimeOriginal: "2024:06:06 18:04:05" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 2400/100",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 300/100",
      },
    })
    .jpeg()
    .toBuffer();
  const meta = await sharp(bytes).metadata();
  expect(meta.exif?.toString("latin1")).toContain("Phone 15"); // the fixture really carries EXIF
  return bytes;
}

/** The avatar image in the header (absent when the user has no picture). */
export function avatar(page: Page): Locator {
  return page.locator("details.profile-menu summary img.avatar");
}

/** Opens the profile menu and follows its picture link ("Add profile picture" or "Update/Delete profile picture"). */
export async function openPictureModal(page: Page, linkName: "Add profile picture" | "Update/Delete profile picture") {
  await page.locator("details.profile-menu summary").click();
  await page.locator(".profile-menu").getByRole("link", { name: linkName }).click();
  const title =
    linkName === "Add profile picture" ? "Add Your Profile Picture" : "Update Or Delete Your Profile Picture";
  const dialog = page.getByRole("dialog", { name: title });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Every derivative URL of an <img> (its srcset). */
export async function srcsetUrls(img: Locator): Promise<string[]> {
  const srcset = (await img.getAttribute("srcset")) ?? "";
  return srcset
    .split(",")
    .map((s) => s.trim().split(/\s+/)[0]!)
    .filter(Boolean);
}
