import sharp from "sharp";
import { expectAccessible, expect, isNoJs, signUp, test } from "./utils";
import { avatar, jpeg, jpegWithGps, openPictureModal, srcsetUrls } from "./profile-picture-helpers";

// docs/spec.md §2, the profile picture modal, end to end, with JavaScript on and off: add (after "Image is
// required" and a non-image), the header's avatar, update (new URL, the old one 404s), delete
// through the confirmation ("No (Keep Image)" keeps it), and no EXIF in what is served.

test.describe("profile picture", () => {
  test("add, update and delete the profile picture", async ({ page, browser }, testInfo) => {
    const noJs = isNoJs(testInfo);
    await signUp(page);
    await expect(avatar(page)).toHaveCount(0);

    // ---- add: the empty modal
    let dialog = await openPictureModal(page, "Add profile picture");
    const input = dialog.getByLabel("Choose a picture");
    await expect(input).toHaveAttribute("type", "file");
    await expect(input).toHaveAttribute("accept", "image/*");
    await expect(dialog.getByRole("button", { name: "Upload" })).toBeVisible();
    await expect(dialog.getByRole("link", { name: "Cancel" })).toBeVisible();
    await expectAccessible(page, browser);

    // nothing chosen: "Image is required" (in the modal with JS; on /profile/picture without)
    await dialog.getByRole("button", { name: "Upload" }).click();
    let scope = noJs ? page.locator("main") : dialog;
    if (noJs) await expect(page).toHaveURL(/\/profile\/picture$/);
    const summary = scope.locator(".error-summary");
    await expect(summary.getByRole("link", { name: "Image is required" })).toBeVisible();
    await expect(scope.locator(".field-error", { hasText: "Image is required" })).toBeVisible();
    await expect(summary).toBeFocused();
    if (noJs) {
      await expect(page).toHaveTitle(/^Error: Add Your Profile Picture/);
      await expect(page.getByRole("heading", { level: 1, name: "Add Your Profile Picture" })).toBeVisible();
    }
    const describedBy = await scope.getByLabel("Choose a picture").getAttribute("aria-describedby");
    expect(describedBy).toContain(`${await scope.getByLabel("Choose a picture").getAttribute("id")}-error`);
    await expectAccessible(page, browser);

    // a text file: refused with the image module's message (checked in the browser with JS)
    await scope
      .getByLabel("Choose a picture")
      .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
    await scope.getByRole("button", { name: "Upload" }).click();
    scope = noJs ? page.locator("main") : dialog;
    await expect(scope.locator(".field-error", { hasText: "Only image files are accepted." })).toBeVisible();

    // text that claims to be a JPEG: only the server can tell, and it says the same
    await scope.getByLabel("Choose a picture").setInputFiles({
      name: "holiday.jpg",
      mimeType: "image/jpeg",
      buffer: Buffer.from("this is not a photo at all"),
    });
    await scope.getByRole("button", { name: "Upload" }).click();
    await expect(scope.locator(".field-error", { hasText: "Only image files are accepted." })).toBeVisible();
    await expect(
      scope.locator(".error-summary").getByRole("link", { name: "Only image files are accepted." }),
    ).toBeVisible();

    // a real JPEG: uploaded; with JS a preview shows first
    await scope
      .getByLabel("Choose a picture")
      .setInputFiles({ name: "me.jpg", mimeType: "image/jpeg", buffer: await jpeg(800, 600, "#c33") });
    if (!noJs) {
      const preview = scope.getByRole("img", { name: "Preview of the chosen picture" });
      await expect(preview).toBeVisible();
      await expect(preview).toHaveAttribute("src", /^blob:/);
    }
    const sent = noJs
      ? null
      : page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/profile/picture");
    await scope.getByRole("button", { name: "Upload" }).click();
    if (sent) {
      // with JS the form's FormData went by XMLHttpRequest (for its progress events), asking for JSON
      const request = await sent;
      expect(request.resourceType()).toBe("xhr");
      expect(request.headers()["x-picture-upload"]).toBe("1");
    }
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(avatar(page)).toBeVisible();
    const firstSrc = (await avatar(page).getAttribute("src"))!;
    expect(firstSrc).toMatch(/^\/images\/[A-Za-z0-9_-]+\/160\.webp$/);
    expect((await page.request.get(firstSrc)).status()).toBe(200);

    // ---- update: the modal shows the current picture
    dialog = await openPictureModal(page, "Update/Delete profile picture");
    await expect(dialog.getByRole("img", { name: "Your current profile picture" })).toBeVisible();
    await expect(dialog.getByRole("link", { name: "Delete Image" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Update" })).toBeVisible();
    await expect(dialog.getByRole("link", { name: "Cancel" })).toBeVisible();
    await expectAccessible(page, browser);
    await dialog
      .getByLabel("Choose a new picture")
      .setInputFiles({ name: "new.jpg", mimeType: "image/jpeg", buffer: await jpeg(640, 640, "#36c") });
    if (noJs) {
      await dialog.getByRole("button", { name: "Update" }).click();
    } else {
      // hold the upload on its way to show the progress indicator, then let it go
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route("**/profile/picture", async (route) => {
        await held;
        await route.continue();
      });
      await dialog.getByRole("button", { name: "Update" }).click();
      await expect(dialog.getByRole("status")).toContainText("Uploading…");
      await expect(dialog.getByRole("progressbar", { name: /Uploading/ })).toBeVisible();
      await expect(dialog.getByRole("button", { name: "Uploading…" })).toHaveAttribute("aria-disabled", "true");
      release();
      await expect(page).toHaveURL(/\/my-kids-list$/);
      await page.unroute("**/profile/picture");
    }
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(avatar(page)).not.toHaveAttribute("src", firstSrc);
    const secondSrc = (await avatar(page).getAttribute("src"))!;
    expect(secondSrc).toMatch(/^\/images\/[A-Za-z0-9_-]+\/160\.webp$/);
    expect((await page.request.get(secondSrc)).status()).toBe(200);
    expect((await page.request.get(firstSrc)).status()).toBe(404); // the replaced picture is gone

    // ---- delete: "No (Keep Image)" keeps it
    dialog = await openPictureModal(page, "Update/Delete profile picture");
    await dialog.getByRole("link", { name: "Delete Image" }).click();
    let confirm = page.getByRole("dialog", { name: "Confirm Delete" });
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText("Are you sure you want to delete your profile image?");
    await expectAccessible(page, browser);
    await confirm.getByRole("link", { name: "No (Keep Image)" }).click();
    await expect(page.getByRole("dialog", { name: "Update Or Delete Your Profile Picture" })).toBeVisible();
    await expect(avatar(page)).toHaveAttribute("src", secondSrc);
    expect((await page.request.get(secondSrc)).status()).toBe(200);

    // "Yes (Delete Image)" deletes it
    await page.getByRole("dialog").getByRole("link", { name: "Delete Image" }).click();
    confirm = page.getByRole("dialog", { name: "Confirm Delete" });
    await confirm.getByRole("button", { name: "Yes (Delete Image)" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(avatar(page)).toHaveCount(0);
    expect((await page.request.get(secondSrc)).status()).toBe(404);
    await page.locator("details.profile-menu summary").click();
    await expect(page.locator(".profile-menu").getByRole("link", { name: "Add profile picture" })).toBeVisible();
  });

  test("the /profile/picture page works on its own", async ({ page, browser }) => {
    await signUp(page);
    await page.goto("/profile/picture");
    await expect(page.getByRole("heading", { level: 1, name: "Add Your Profile Picture" })).toBeVisible();
    await expect(page).toHaveTitle(/^Add Your Profile Picture/);
    await expectAccessible(page, browser);
    const main = page.locator("main");
    await main.getByLabel("Choose a picture").setInputFiles({
      name: "me.png",
      mimeType: "image/png",
      buffer: await sharp(await jpeg(300, 200, "#fc0"))
        .png()
        .toBuffer(),
    });
    await main.getByRole("button", { name: "Upload" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(avatar(page)).toBeVisible(); // the header shows it at once

    await page.goto("/profile/picture");
    await expect(page.getByRole("heading", { level: 1, name: "Update Or Delete Your Profile Picture" })).toBeVisible();
    await expect(main.getByRole("img", { name: "Your current profile picture" })).toBeVisible();
    await main.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
  });

  test("Cancel closes the modal and changes nothing", async ({ page }) => {
    await signUp(page);
    const dialog = await openPictureModal(page, "Add profile picture");
    await dialog.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await expect(avatar(page)).toHaveCount(0);
  });

  test("a photo's GPS and camera EXIF never come back from its image URLs", async ({ page }) => {
    await signUp(page);
    const dialog = await openPictureModal(page, "Add profile picture");
    await dialog
      .getByLabel("Choose a picture")
      .setInputFiles({ name: "gps.jpg", mimeType: "image/jpeg", buffer: await jpegWithGps() });
    await dialog.getByRole("button", { name: "Upload" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);

    const current = (await openPictureModal(page, "Update/Delete profile picture")).getByRole("img", {
      name: "Your current profile picture",
    });
    const urls = await srcsetUrls(current);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const url of urls) {
      const res = await page.request.get(url);
      expect(res.status()).toBe(200);
      expect(res.headers()["content-type"]).toBe("image/webp");
      const body = await res.body();
      const meta = await sharp(body).metadata();
      expect(meta.format).toBe("webp");
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      const text = body.toString("latin1");
      for (const needle of ["Exif", "GPS", "Phone 15", "PhoneMaker", "2024:06:06"]) expect(text).not.toContain(needle);
    }
  });
});
