import { expect, expectAccessible, hydrated, isNoJs, signUp, test } from "./utils";
import { apiCreateKid, jpegFile } from "./kids-helpers";

// Small things a family notices, with JavaScript on and off: the milestone's "Label for Other"
// only with Other, photo previews in the photo's own shape, "Share" through the device's share
// sheet beside "Copy link", and the landing page's buttons in line with its text on a desktop.

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the milestone's label shows with Other (hidden otherwise once scripts run; optional without them), and a photo's preview keeps its shape", async ({
    page,
    browser,
  }, testInfo) => {
    await signUp(page);
    const kid = await apiCreateKid(page.request, { name: "Mia", birth_date: "2022-02-02", relationship: "Mom" });
    await page.goto(`/kids/${kid.id}/dailyLogs/new`);
    const select = page.getByLabel("Is this one of Mia's milestones?");
    if (isNoJs(testInfo)) {
      await expect(page.getByLabel("Label for Other (optional)")).toBeVisible();
      await expect(page.getByText("Used only when you choose Other")).toBeVisible();
      await expectAccessible(page, browser);
      return; // no preview without JavaScript: the server judges the file
    }
    await hydrated(page);
    await expect(select).toHaveValue("none");
    await expect(page.getByLabel(/Label for Other/)).toHaveCount(0);
    await select.selectOption("Other");
    await expect(page.getByLabel("Label for Other", { exact: true })).toBeVisible();
    await expectAccessible(page, browser);
    await select.selectOption("First steps");
    await expect(page.getByLabel(/Label for Other/)).toHaveCount(0);

    // a wide photo is previewed wide, not cut to a circle
    await page.getByLabel("Image Upload").setInputFiles(await jpegFile("wide.jpg", 300, 150));
    const preview = page.getByRole("img", { name: /^Preview/ });
    await expect(preview).toBeVisible();
    const box = (await preview.boundingBox())!;
    expect(box.width / box.height).toBeCloseTo(2, 1);
    expect(await preview.evaluate((img) => getComputedStyle(img).borderRadius)).not.toBe("50%");
  });

  test("a new invitation link: Share opens the device's share sheet where there is one, Copy link as before", async ({
    page,
  }, testInfo) => {
    // Chromium on Linux has no Web Share: a page script stands in for the share sheet and says what it was given
    await page.addInitScript(() => {
      const shared: unknown[] = [];
      Object.assign(window, { sharedForTest: shared });
      Object.defineProperty(navigator, "share", {
        value: (data: unknown) => {
          shared.push(data);
          return Promise.resolve();
        },
      });
    });
    await signUp(page);
    await page.goto("/current/friends");
    await hydrated(page);
    const region = page.getByRole("region", { name: "Invite family" });
    await region.getByRole("button", { name: "Create invitation link" }).click();
    const field = region.getByLabel("Invitation link");
    await expect(field).toBeVisible();
    if (isNoJs(testInfo)) {
      await expect(region.getByRole("button", { name: "Share" })).toHaveCount(0);
      await expect(region.getByRole("button", { name: "Copy link" })).toHaveCount(0);
      return;
    }
    await expect(region.getByRole("button", { name: "Copy link" })).toBeVisible();
    await region.getByRole("button", { name: "Share" }).click();
    const shared = await page.evaluate(() => (window as unknown as { sharedForTest: unknown[] }).sharedForTest);
    expect(shared).toEqual([{ title: "Sweet Moments", url: await field.inputValue() }]);
  });
});

test.describe("on a desktop", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("the landing page's buttons start where its text starts", async ({ page }, testInfo) => {
    await page.goto("/");
    const left = async (selector: string) => (await page.locator(selector).first().boundingBox())!.x;
    const title = await left(".hero__title");
    expect(Math.abs((await left(".hero__lead")) - title)).toBeLessThan(1);
    expect(Math.abs((await left(".hero .button-row .button")) - title)).toBeLessThan(1);
    expect(Math.abs((await left(".hero__promise")) - title)).toBeLessThan(1);
    await testInfo.attach("landing-1280", { body: await page.screenshot(), contentType: "image/png" });
  });
});
