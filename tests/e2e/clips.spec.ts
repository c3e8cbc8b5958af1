import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { apiCreateKid, manage } from "./kids-helpers";
import { expectAccessible, expect, freshPage, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { closeE2eDb, e2eDb } from "./e2e-db";

// Video clips (docs/decisions/0064-video-clips.md) on a phone, JavaScript on and off: a parent posts
// a clip from the moment form, sees it being prepared (with its poster once there is one), then
// playing (its poster, its first range), in the photo viewer, adds captions, and deletes the moment;
// a stranger gets no byte of it. The clip is made by Debian's ffmpeg here, with a location in it.

test.use({ viewport: { width: 390, height: 844 } });

test.afterAll(async () => {
  await closeE2eDb();
});

/** A 2-second phone-like MP4 with a location atom. */
function phoneClip(): { name: string; mimeType: string; buffer: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-e2e-clip-"));
  try {
    const file = path.join(dir, "IMG_0002.mp4");
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-nostdin",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=640x360:rate=25:duration=2",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=2",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-metadata",
      "location=+48.8577+002.2950/",
      file,
    ]);
    return { name: "IMG_0002.mp4", mimeType: "video/mp4", buffer: fs.readFileSync(file) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Holds this machine's clip preparer (its lease, app/video/prepare.server.ts) while `during` runs, so a
 * clip posted then stays "being prepared": waits until the lease is free (no clip being prepared, no
 * other test holding it), then holds it under a name of this test's own.
 */
async function withPreparerHeld(holder: string, during: () => Promise<void>): Promise<void> {
  const name = `video-transcode:${os.hostname()}`;
  const take = async () => {
    const now = Date.now();
    const rows = await e2eDb()("job_leases")
      .insert({ name, holder, expires_at: new Date(now + 90_000).toISOString() })
      .onConflict("name")
      .merge(["holder", "expires_at"])
      .where("job_leases.expires_at", "<=", new Date(now).toISOString())
      .returning(["holder"]);
    return rows.length;
  };
  await expect.poll(take, { timeout: 60_000 }).toBe(1);
  try {
    await during();
  } finally {
    await e2eDb()("job_leases").where({ name, holder }).delete();
  }
}

test("a parent posts a clip; it is prepared, plays, gets captions and goes with its moment", async ({
  page,
  browser,
}, testInfo) => {
  const account = newAccount("clip");
  await signUp(page, account);
  const kid = await apiCreateKid(page.request, { name: "Ivo", birth_date: "2022-02-02", relationship: "Dad" });

  await page.goto(`/kids/${kid.id}/dailyLogs/new`);
  await hydrated(page);
  if (isNoJs(testInfo)) {
    // a refused form (no title) is a new page whose file field is empty: it says so beside the field
    await page.getByLabel("Clip", { exact: true }).setInputFiles(phoneClip());
    await page.getByLabel("Description of the clip").fill("Ivo walks to the sofa");
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    const again = page.getByText(
      "The form was not saved, so your clip was not kept: if you chose one, please choose it again.",
    );
    await expect(again).toBeVisible();
    const describedBy = await page.getByLabel("Clip", { exact: true }).getAttribute("aria-describedby");
    expect(describedBy?.split(" ")).toContain(await again.getAttribute("id"));
  }
  await page.getByLabel("Title").fill("First steps");
  await page.getByLabel("Content").fill("Look at him go.");
  await page.getByLabel("Clip", { exact: true }).setInputFiles(phoneClip());
  await page.getByLabel("Description of the clip").fill("Ivo walks to the sofa");
  // the moment is there at once, its clip being prepared (the preparer held meanwhile)
  await withPreparerHeld(account.email, async () => {
    await page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
    await expect(page.locator("article.moment .clip--processing")).toContainText(
      "Ivo walks to the sofa — being prepared, it will play here shortly.",
    );
    await expect(page.locator("article.moment video")).toHaveCount(0);
  });
  const momentPath = new URL(page.url()).pathname;

  // prepared in the background: reload until it plays (a second or two)
  const video = page.locator("article.moment video");
  await expect(async () => {
    await page.reload();
    await expect(video).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await expect(page.locator("article.moment figcaption", { hasText: "Ivo walks to the sofa" })).toBeVisible();
  await expectAccessible(page, browser);
  // nothing loads before play but the poster; the small rendition is first on a phone
  await expect(video).toHaveAttribute("preload", "none");
  const poster = (await video.getAttribute("poster"))!;
  const small = (await video.locator("source").first().getAttribute("src"))!;
  expect(small).toMatch(/\/videos\/[A-Za-z0-9_-]+\/small\.mp4$/);
  const key = small.split("/")[2]!;
  const first = await page.request.get(small, { headers: { Range: "bytes=0-1023" } });
  expect(first.status()).toBe(206);
  expect(first.headers()["content-range"]).toMatch(/^bytes 0-1023\/\d+$/);
  const whole = await page.request.get(small);
  expect((await whole.body()).includes(Buffer.from("+48.8577"))).toBe(false);

  // played (the browser's own player): the poster, then the small rendition from its first byte
  const posterLoaded = page.waitForResponse((r) => r.url().endsWith(poster) && r.status() === 200);
  const firstRange = page.waitForResponse(
    async (r) =>
      r.url().endsWith(small) && r.status() === 206 && /^bytes=0-/.test((await r.request().allHeaders()).range ?? ""),
  );
  await page.reload();
  await posterLoaded;
  // the player's own keys (JavaScript on or off): Space plays the focused clip
  await video.focus();
  await page.keyboard.press("Space");
  await firstRange;

  // a stranger gets nothing of it
  const stranger = await freshPage(browser, testInfo);
  await signUp(stranger, newAccount("nosy"));
  expect((await stranger.request.get(small)).status()).toBe(404);
  expect((await stranger.request.get(poster)).status()).toBe(404);
  await stranger.close();

  // a clip being prepared shows its poster once there is one: the state the preparer leaves while it
  // transcodes (the poster made first), held by a claim of another process
  const row = { key };
  await e2eDb()("videos").where(row).update({ status: "processing", claimed_until: "2999-01-01T00:00:00.000Z" });
  try {
    await page.reload();
    await expect(page.locator("article.moment .clip--processing img")).toHaveAttribute("src", poster);
  } finally {
    await e2eDb()("videos").where(row).update({ status: "ready", claimed_until: null });
  }

  // the photo viewer: the clip is the moment's first item, with the same player
  await page.reload();
  await hydrated(page);
  await page.getByRole("link", { name: /^In the viewer\W+Ivo walks to the sofa$/ }).click();
  await expect(page).toHaveURL(new RegExp(`${momentPath}/photos/1$`));
  const viewer = page.locator(".photo-viewer");
  await expect(viewer.getByRole("status")).toHaveText("Video 1 of 1");
  await expect(viewer.locator("video")).toHaveAttribute("poster", poster);
  await expect(viewer.locator("video source").first()).toHaveAttribute("src", small);
  await expect(viewer.locator("video track")).toHaveAttribute("kind", "captions");
  await expectAccessible(page, browser);
  await viewer.getByRole("link", { name: "Back to the moment" }).click();
  await expect(page).toHaveURL(new RegExp(`${momentPath}$`));

  // captions, from the update form
  await page.goto(`${momentPath}/update`);
  await hydrated(page);
  const captions = page.getByLabel("Captions of “Ivo walks to the sofa” (optional)");
  await captions.fill("Nonsense");
  await page.getByRole("button", { name: "Update" }).click();
  await expect(page.getByText("Line 1: start with the time, like 0:05, then the words.").first()).toBeVisible();
  await page.getByLabel("Captions of “Ivo walks to the sofa” (optional)").fill("0:00 Go, Ivo!\n0:01 Yes!");
  await page.getByRole("button", { name: "Update" }).click();
  await expect(page).toHaveURL(new RegExp(`${momentPath}$`));
  const track = page.locator("article.moment video track");
  await expect(track).toHaveAttribute("kind", "captions");
  await expect(track).toHaveAttribute("default", "");
  const vtt = await page.request.get((await track.getAttribute("src"))!);
  expect(await vtt.text()).toContain("Go, Ivo!");

  // it goes with its moment
  await page.goto(`/kids/${kid.id}/dailyLogs`);
  await hydrated(page);
  const card = page.locator("article.moment", { hasText: "First steps" });
  await manage(card, "First steps");
  await card.getByRole("link", { name: /^Delete/ }).click();
  await page.getByRole("button", { name: /^Yes/ }).click();
  await expect(page.getByText("First steps")).toHaveCount(0);
  expect((await page.request.get(small)).status()).toBe(404);
  expect((await page.request.get(poster)).status()).toBe(404);
  if (isNoJs(testInfo)) expect(await page.locator("body.js-enabled").count()).toBe(0);
});
