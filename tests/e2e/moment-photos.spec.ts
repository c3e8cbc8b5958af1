import { expectAccessible, expect, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile, textFile } from "./kids-helpers";
import { closeE2eDb } from "./e2e-db";

// Several photos per moment (docs/decisions/0030-several-photos-per-moment.md), chosen in one
// control (docs/decisions/0067-one-photo-control.md): post a moment with three photos and alt
// texts (the next step without JavaScript, in place with it, each photo's progress shown), see them
// as a grid, reorder and remove one, with JavaScript on and off.

test.afterAll(async () => {
  await closeE2eDb();
});

test.describe("several photos per moment", () => {
  // a phone: the photo list, its progress and alt text fields fit a narrow screen
  test.use({ viewport: { width: 390, height: 844 } });

  test("three photos chosen at once, their alt texts next (in place with JavaScript), a missing one refused on its field; reorder and remove", async ({
    page,
    browser,
  }, testInfo) => {
    await signUp(page, newAccount("mp"));
    const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2021-05-04", relationship: "Mom" });

    await page.goto(`/kids/${kid.id}/dailyLogs/new`);
    await hydrated(page);
    await page.getByLabel("Title").fill("At the zoo");
    await page.getByLabel("Content").fill("Lions, a bear and a seal.");
    const photos = [
      await jpegFile("lion.jpg", 300, 200, "#c93"),
      await jpegFile("bear.jpg", 300, 200, "#963"),
      await jpegFile("seal.jpg", 300, 200, "#69c"),
    ];
    // one control takes them all
    const control = page.getByLabel("Image Upload");
    await expect(control).toHaveAttribute("multiple", "");
    // bytes that only claim to be a photo: the server refuses that one file, the others go on
    const fake = { name: "fake.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not a photo at all") };
    await control.setInputFiles(isNoJs(testInfo) ? photos : [photos[0]!, fake, photos[1]!, photos[2]!]);
    if (isNoJs(testInfo)) {
      // the first photo's alt text beside the control, as with one photo; the others come next
      await page.getByLabel("Alt text of photo 1", { exact: true }).fill("A lion asleep");
      await page.getByRole("button", { name: "Add your new dailyLog" }).click();
      await expect(page.getByRole("group", { name: "Your new photos" })).toBeVisible();
      // the photos were kept: shown (to their sender only) with their alt text fields
      await expect(page.getByRole("img", { name: "New photo 3" })).toHaveJSProperty("complete", true);
      await expect(page.getByRole("img", { name: "New photo 3" })).not.toHaveJSProperty("naturalWidth", 0);
      await expect(page.getByLabel("Alt text of photo 1", { exact: true })).toHaveValue("A lion asleep");
    } else {
      // each photo: its preview, its own progress, and the total
      await expect(page.getByRole("status").filter({ hasText: "3 of 3 photos sent (100%)" })).toBeVisible();
      for (const [i, name] of ["lion.jpg", "bear.jpg", "seal.jpg"].entries()) {
        const bar = page.getByRole("progressbar", { name: `Photo ${i + 1} (${name})` });
        // the bytes really sent: the file and its part's few headers, all of them
        const max = Number(await bar.getAttribute("max"));
        expect(max).toBeGreaterThan(photos[i]!.buffer.length);
        expect(max).toBeLessThan(photos[i]!.buffer.length + 1024);
        await expect(bar).toHaveAttribute("value", String(max));
        await expect(bar.locator("xpath=..")).toContainText("Sent");
        await expect(page.getByRole("img", { name: `Preview ${i + 1} (${name})` })).toBeVisible();
      }
      await expect(page.locator(".photo-upload--refused")).toContainText("fake.jpg");
      await expect(page.locator(".photo-upload--refused .photo-upload__reason")).toHaveText(
        "Error: Only image files are accepted.",
      );
      await page.getByRole("button", { name: "Remove fake.jpg" }).click();
      await expect(page.locator(".photo-upload--refused")).toHaveCount(0);
      await page.getByLabel("Alt text of photo 1", { exact: true }).fill("A lion asleep");
    }
    await page.getByLabel("Alt text of photo 3").fill("A seal on a rock");
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();

    // photo 2 has no alt text: the summary links to its field, the message stands beside it
    const missing = "Enter the alt text of photo 2 (a short description for people who cannot see it)";
    await expect(page.locator(".error-summary").getByRole("link", { name: missing })).toBeVisible();
    await expect(page.locator(".field-error", { hasText: missing })).toBeVisible();
    // nothing to choose again: the photos are kept with their alt texts
    await expect(page.getByLabel("Alt text of photo 1", { exact: true })).toHaveValue("A lion asleep");
    await expect(page.getByLabel("Alt text of photo 3")).toHaveValue("A seal on a rock");
    await expectAccessible(page, browser);
    await page.getByLabel("Alt text of photo 2").fill("A brown bear");
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();

    await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
    const grid = page.locator(".moment .photo-grid");
    await expect(grid.getByRole("img")).toHaveCount(3);
    await expect(grid.getByRole("img", { name: "A lion asleep" })).toHaveAttribute("sizes", /50vw/);
    await expect(grid.getByRole("img", { name: "A brown bear" })).toHaveAttribute("width", "300");
    await expect(grid.getByRole("img", { name: "A seal on a rock" })).toHaveAttribute("loading", "lazy");
    await expectAccessible(page, browser);

    // the kid's page shows the same grid
    await page.goto(`/kids/${kid.id}/dailyLogs`);
    await expect(page.locator("article.moment .photo-grid").getByRole("img")).toHaveCount(3);

    // update: the seal first, the bear removed
    const momentUrl = `/dailyLogs/${/\d+/.exec((await page.locator("article.moment").first().getAttribute("id")) ?? "")![0]}`;
    await page.goto(`${momentUrl}/update`);
    await expect(page.getByRole("img", { name: "Photo 2: A brown bear" })).toBeVisible();
    await expectAccessible(page, browser);
    await page.getByLabel("Place of photo 3").fill("1");
    await page.getByLabel("Remove photo 2").check();
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}$`));
    await expect(grid.getByRole("img")).toHaveCount(2);
    await expect(grid.getByRole("img").first()).toHaveAccessibleName("A seal on a rock");
    await expect(grid.getByRole("img").nth(1)).toHaveAccessibleName("A lion asleep");
    await expectAccessible(page, browser);

    // the photo viewer: a real page per photo, previous/next within the moment; with JavaScript a
    // dialog over the moment's page whose URL bar shows that page's URL
    await grid.getByRole("link", { name: "A seal on a rock" }).click();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}/photos/1$`));
    const viewer = page.locator(".photo-viewer");
    if (isNoJs(testInfo)) {
      await expect(page.getByRole("heading", { level: 1, name: "At the zoo" })).toBeVisible();
    } else {
      await expect(page.getByRole("dialog", { name: "At the zoo" }).locator(".photo-viewer")).toBeVisible();
      await expect(page.locator("article.moment")).toHaveCount(1); // the moment's page stays below
    }
    await expect(viewer.getByText("Photo 1 of 2")).toBeVisible();
    await expect(viewer.locator(".moment__date")).toContainText("Ivy");
    await expect(viewer.getByRole("img", { name: "A seal on a rock" })).toHaveAttribute("srcset", /1280w|300w/);
    await expect(viewer.getByRole("link", { name: "Previous photo" })).toHaveCount(0);
    await expectAccessible(page, browser);
    await viewer.getByRole("link", { name: "Next photo" }).click();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}/photos/2$`));
    await expect(viewer.getByRole("img", { name: "A lion asleep" })).toBeVisible();
    await expect(viewer.getByRole("link", { name: "Next photo" })).toHaveCount(0);
    await viewer.getByRole("link", { name: "Previous photo" }).click();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}/photos/1$`));
    await viewer.getByRole("link", { name: "Back to the moment" }).click();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}$`));
    if (isNoJs(testInfo)) return;

    // the dialog: the arrow keys step through it, Escape closes it, focus returns to the photo that opened it
    await grid.getByRole("link", { name: "A seal on a rock" }).click();
    await expect(page.getByRole("dialog").getByText("Photo 1 of 2")).toBeVisible();
    await page.keyboard.press("ArrowRight");
    await expect(page).toHaveURL(new RegExp(`${momentUrl}/photos/2$`));
    await expect(page.getByRole("dialog").getByText("Photo 2 of 2")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(new RegExp(`${momentUrl}$`));
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(grid.getByRole("link", { name: "A seal on a rock" })).toBeFocused();
    // its URL is the viewer's own page: a reload opens that page
    await grid.getByRole("link", { name: "A seal on a rock" }).click();
    await expect(page.getByRole("dialog").getByText("Photo 1 of 2")).toBeVisible();
    await page.reload();
    await expect(page).toHaveURL(new RegExp(`${momentUrl}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "At the zoo" })).toBeVisible();
    await expect(page.locator("article.moment")).toHaveCount(0);
  });

  test("the viewer goes on to the kid's neighbouring moments; with JavaScript arrow keys, Escape and swipe, no reload", async ({
    page,
    browser,
  }, testInfo) => {
    await signUp(page, newAccount("mv"));
    const kid = await apiCreateKid(page.request, { name: "Noa", birth_date: "2022-03-03", relationship: "Mom" });
    // created in this order: the kid's page shows "Swings" above "Sandpit"
    const older = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Sandpit", content: "Sand" },
      await jpegFile("sand.jpg", 200, 150, "#cb8"),
    );
    const newer = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Swings", content: "High" },
      await jpegFile("swing.jpg", 200, 150, "#8bc"),
    );

    await page.goto(`/dailyLogs/${newer.id}/photos/1`);
    await expect(page.getByRole("link", { name: "Previous moment" })).toHaveCount(0);
    await page.getByRole("link", { name: "Next moment" }).click();
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${older.id}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "Sandpit" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Next moment" })).toHaveCount(0);
    await expectAccessible(page, browser);
    await page.getByRole("link", { name: "Previous moment" }).click();
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${newer.id}/photos/1$`));
    // the view that matches the URL (the URL changes first; a key before the view is dropped)
    await expect(page.getByRole("heading", { level: 1, name: "Swings" })).toBeVisible();
    if (isNoJs(testInfo)) return;

    // keys: client navigations (the page's own window survives), focus on the viewer's heading
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    const sameDocument = () =>
      page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true);
    await page.keyboard.press("ArrowRight");
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${older.id}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "Sandpit" })).toBeFocused();
    await expect(page.getByRole("status").filter({ hasText: "Photo 1 of 1" })).toBeVisible();
    await page.keyboard.press("ArrowRight"); // the last photo of the last moment: nothing further
    await page.keyboard.press("ArrowLeft");
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${newer.id}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "Swings" })).toBeFocused();
    expect(await sameDocument()).toBe(true);

    // a swipe to the left on a touch screen: the next photo
    const figure = page.locator(".photo-viewer__figure");
    const box = (await figure.boundingBox())!;
    const at = (x: number) => ({
      pointerType: "touch",
      pointerId: 7,
      isPrimary: true,
      clientX: box.x + x,
      clientY: box.y + box.height / 2,
      bubbles: true,
    });
    await figure.dispatchEvent("pointerdown", at(box.width - 10));
    await figure.dispatchEvent("pointerup", at(box.width - 120));
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${older.id}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "Sandpit" })).toBeVisible();
    // a swipe to the right goes back
    await figure.dispatchEvent("pointerdown", at(10));
    await figure.dispatchEvent("pointerup", at(120));
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${newer.id}/photos/1$`));
    await expect(page.getByRole("heading", { level: 1, name: "Swings" })).toBeVisible();

    // Escape: back to the moment
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${newer.id}$`));
    expect(await sameDocument()).toBe(true);
  });

  test("the photo control never shows a broken preview: a clear message for a file that is not an image", async ({
    page,
  }, testInfo) => {
    await signUp(page, newAccount("mq"));
    const kid = await apiCreateKid(page.request, { name: "Ada", birth_date: "2022-02-02", relationship: "Dad" });
    if (!isNoJs(testInfo)) {
      // With JavaScript, the file is chosen before the page's scripts run (held back here, as on a slow
      // phone): the control judges it once they do.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\/assets\/.+\.js$/, async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`/kids/${kid.id}/dailyLogs/new`, { waitUntil: "commit" });
      await page.getByLabel("Image Upload").setInputFiles(textFile);
      await expect(page.locator(".photo-upload")).toHaveCount(0);
      release();
    } else {
      await page.goto(`/kids/${kid.id}/dailyLogs/new`);
      await page.getByLabel("Image Upload").setInputFiles(textFile);
    }
    if (isNoJs(testInfo)) {
      // no preview without JavaScript: the server's answer names the file's field
      await page.getByLabel("Title").fill("Notes");
      await page.getByLabel("Content").fill("Not a photo");
      await page.getByRole("button", { name: "Add your new dailyLog" }).click();
      await expect(page.locator(".field-error", { hasText: "Only image files are accepted." })).toBeVisible();
      await expect(page.locator(".picture-form__preview")).toHaveCount(0);
      return;
    }
    await expect(page.locator(".photo-upload--refused")).toContainText("notes.txt");
    await expect(page.locator(".photo-upload--refused .photo-upload__reason")).toHaveText(
      "Error: Only image files are accepted.",
    );
    await expect(page.locator(".photo-upload img")).toHaveCount(0);
    await page.getByLabel("Image Upload").setInputFiles(await jpegFile("ok.jpg"));
    await expect(page.getByRole("img", { name: "Preview 1 (ok.jpg)" })).toBeVisible();
    // the refused file left with the choice it came in
    await expect(page.locator(".photo-upload--refused")).toHaveCount(0);
  });
});
