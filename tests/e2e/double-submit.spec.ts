import type { Browser, Locator, Page, Route, TestInfo } from "@playwright/test";
import { expect, fillSignUp, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile, myId } from "./kids-helpers";
import { userIdByEmail } from "./friends-helpers";
import { otherPerson } from "./social-helpers";
import { befriend, closeE2eDb, e2eDb } from "./e2e-db";

// Every creating form submitted twice, 60 ms apart, as a double click does it, with JavaScript on
// and off: exactly one thing is created and the user sees the normal result
// (docs/decisions/0016-*). With JavaScript the form ignores the second submit (one request);
// without it the browser sends both and the server's one-time submission token makes the second
// answer the first's result.

test.afterAll(async () => {
  await closeE2eDb();
});

/**
 * Clicks `button` twice, 60 ms apart. The test forwards the browser's first request to the server
 * and holds its answer until the second click was made, so the second click always finds the form
 * still on screen, and the first request always reaches the server (a browser without JavaScript
 * drops the first navigation for the second, after the request was sent: exactly the double-click
 * case). Then waits for `settled`. Answers how many requests the browser sent.
 */
async function doubleClick(page: Page, url: RegExp, button: Locator, settled: () => Promise<void>): Promise<number> {
  const scripts = test.info().project.use.javaScriptEnabled !== false;
  let posts = 0;
  let release!: () => void;
  const secondClickMade = new Promise<void>((resolve) => (release = resolve));
  let sent!: () => void;
  const firstSent = new Promise<void>((resolve) => (sent = resolve));
  // every forwarded request is awaited before the test goes on, so none is still in flight when
  // the test (and its request context) ends
  const inFlight: Promise<void>[] = [];
  const forward = async (route: Route, n: number) => {
    const response = await route.fetch({ maxRedirects: 0 });
    if (n === 1) await secondClickMade;
    await route.fulfill({ response }).catch(() => {}); // the browser may have dropped it
  };
  const handler = async (route: Route) => {
    if (route.request().method() !== "POST") return route.fallback();
    const n = ++posts;
    if (n === 1) sent();
    const forwarded = forward(route, n);
    inFlight.push(forwarded);
    await forwarded;
  };
  await page.route(url, handler);
  try {
    // Real mouse clicks. Without JavaScript the page waits for the first answer, so the second
    // click goes to the same place (a locator would first wait for that navigation). With
    // JavaScript the button may have changed ("Adding…"): the second click finds it again, and
    // clicks even though it says it is busy (aria-disabled), as a person would.
    await button.scrollIntoViewIfNeeded();
    const box = await button.boundingBox();
    if (!box) throw new Error("the submit button is not on screen");
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.mouse.click(x, y);
    // the second click 60 ms after the first request left (on a busy machine the browser may take
    // longer than that to send it, and a click before would only replace a submission not yet sent)
    await firstSent;
    await page.waitForTimeout(60);
    if (scripts) await button.click({ force: true });
    else await page.mouse.click(x, y);
    release();
    await settled();
  } finally {
    release();
    await page.unroute(url, handler);
    await Promise.allSettled(inFlight);
  }
  return posts;
}

const count = async (table: string, where: Record<string, unknown>) =>
  Number((await e2eDb()(table).where(where).count({ n: "*" }).first())?.n ?? 0);

/** An invitation link made by someone else (POST /api/invites), and that inviter. */
async function invitationLink(browser: Browser, testInfo: TestInfo) {
  const inviter = await otherPerson(browser, testInfo, "di");
  const res = await inviter.page.request.post("/api/invites", { data: { note: "Come and see" } });
  expect(res.status()).toBe(201);
  const { url } = (await res.json()) as { url: string };
  await inviter.close();
  return { inviter: inviter.account, path: new URL(url).pathname };
}

/** One request with JavaScript (the form ignored the second submit), two without (the server's token did the rest). */
const expectedPosts = (testInfo: Parameters<typeof isNoJs>[0]) => (isNoJs(testInfo) ? 2 : 1);

test.describe("a double click creates one thing", () => {
  test("Add a kid", async ({ page }, testInfo) => {
    const me = await signUp(page, newAccount("dk"));
    const myId = await userIdByEmail(me.email);
    await page.goto("/kids/add-new");
    await hydrated(page);
    await page.getByLabel("Name").fill("Twinkle");
    await page.getByLabel("Year").selectOption("2021");
    await page.getByLabel("Month").selectOption("06");
    await page.getByLabel("Day").selectOption("01");
    await page.getByLabel("Relationship").selectOption("Dad");
    await page.getByLabel("Profile Image Upload").setInputFiles(await jpegFile("twinkle.jpg"));
    const posts = await doubleClick(
      page,
      /\/kids\/add-new/,
      page.locator("form.kid-form button[type=submit]"),
      async () => {
        await expect(page).toHaveURL(/\/my-kids-list$/);
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.locator(".kid-card", { hasText: "Twinkle" })).toHaveCount(1);
    expect(await count("kids", { user_id: myId })).toBe(1);
    expect(await count("images", { owner_id: myId, kind: "kid" })).toBe(1);
  });

  test("Add a moment", async ({ page }, testInfo) => {
    await signUp(page, newAccount("dm"));
    const kid = await apiCreateKid(page.request, { name: "Pip", birth_date: "2022-02-02", relationship: "Mom" });
    await page.goto(`/kids/${kid.id}/dailyLogs/new`);
    await hydrated(page);
    await page.getByLabel("Title").fill("First steps");
    await page.getByLabel("Content").fill("Three of them!");
    await page.getByLabel("Image Upload").setInputFiles(await jpegFile("steps.jpg"));
    const posts = await doubleClick(
      page,
      /\/dailyLogs\/new/,
      page.locator("form.moment-form button[type=submit]"),
      async () => {
        await expect(page).toHaveURL(/\/dailyLogs\/\d+$/);
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByRole("heading", { level: 1, name: "First steps" })).toBeVisible();
    expect(await count("daily_logs", { kid_id: kid.id })).toBe(1);
  });

  test("Register: the new account is signed in, never told its own email is in use", async ({ page }, testInfo) => {
    const account = newAccount("dr");
    const dialog = await fillSignUp(page, account);
    await hydrated(page);
    const posts = await doubleClick(page, /\/signup/, dialog.locator("button[type=submit]"), async () => {
      await expect(page).toHaveURL(/\/my-kids-list$/);
    });
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByRole("heading", { level: 1, name: "My Kids" })).toBeVisible();
    await expect(page.getByText("already in use")).toHaveCount(0);
    expect((await (await page.request.get("/api/auth")).json()).username).toBe(account.username);
    expect(await count("users", { email_normalized: account.email })).toBe(1);
  });

  test("Add friend: the success message, not 'Friendship already exists'", async ({ page, browser }, testInfo) => {
    const other = await browser.newContext({
      baseURL: testInfo.project.use.baseURL,
      javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
    });
    const friend = await signUp(await other.newPage(), newAccount("df"));
    await other.close();
    const me = await signUp(page, newAccount("dg"));
    await page.goto(`/friendships/new?q=${encodeURIComponent(friend.first)}`);
    await hydrated(page);
    const hit = page
      .getByRole("region", { name: "Search Results" })
      .getByRole("listitem")
      .filter({ hasText: `${friend.first} ${friend.last}` });
    const message = page.getByText(`Friend request sent successfully to ${friend.first} ${friend.last}!`);
    const posts = await doubleClick(
      page,
      /\/friendships\/new/,
      hit.locator("button[type=submit]").first() /* Add friend; Block comes after it */,
      async () => {
        await expect(message).toBeVisible();
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByText("Friendship already exists")).toHaveCount(0);
    await expect(hit.getByText("Request sent", { exact: true })).toBeVisible();
    expect(await count("friendships", { user_id: await userIdByEmail(me.email) })).toBe(1);
  });

  test("a comment", async ({ page }, testInfo) => {
    await signUp(page, newAccount("dc"));
    const kid = await apiCreateKid(page.request, { name: "Bo", birth_date: "2020-01-01", relationship: "Dad" });
    const moment = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Cake", content: "All of it" },
      await jpegFile(),
    );
    await page.goto(`/dailyLogs/${moment.id}`);
    await hydrated(page);
    const block = page.locator(`.moment-social[data-moment="${moment.id}"]`);
    await block.getByRole("textbox", { name: "Write a comment" }).fill("Yum!");
    const posts = await doubleClick(
      page,
      /\/social/,
      block.locator("form.comment-new button[type=submit]"),
      async () => {
        await expect(block.locator(".comment__text")).toHaveText(["Yum!"]);
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(block.getByText("1 comment", { exact: true })).toBeVisible();
    expect(await count("comments", { daily_log_id: moment.id })).toBe(1);
  });
  test("Create invitation link: one invitation, its link shown", async ({ page }, testInfo) => {
    const me = await signUp(page, newAccount("dl"));
    const myUserId = await userIdByEmail(me.email);
    await page.goto("/current/friends");
    await hydrated(page);
    await page.getByLabel("Note (optional)").fill("For Grandma");
    const posts = await doubleClick(
      page,
      /\/current\/friends/,
      page.locator("form.invite-form button[type=submit]"),
      async () => {
        await expect(page.getByRole("heading", { name: "Your invitation link" })).toBeVisible();
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    const rows = await e2eDb()("invitations").where({ inviter_id: myUserId }).select("token_hash");
    expect(rows).toHaveLength(1);
    // the link shown is the one invitation's
    const shown = await page.getByLabel("Invitation link", { exact: true }).inputValue();
    const pending = page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem");
    await expect(pending).toHaveCount(1);
    expect((await page.request.get(new URL(shown).pathname)).status()).toBe(200);
    await expect(page.getByText("has already been used")).toHaveCount(0);
  });

  test("Invite as co-parent: one invitation, not 'already invited'", async ({ page, browser }, testInfo) => {
    const friend = await otherPerson(browser, testInfo, "dp");
    await friend.close();
    await signUp(page, newAccount("do"));
    await befriend(await myId(page.request), friend.account.id);
    const kid = await apiCreateKid(page.request, { name: "Ivy", birth_date: "2021-01-01", relationship: "Mom" });
    await page.goto(`/kids/${kid.id}/co-parents`);
    await hydrated(page);
    const friendName = `${friend.account.first} ${friend.account.last}`;
    await page.getByRole("group", { name: "Invite a friend as co-parent" }).getByLabel(friendName).check();
    const posts = await doubleClick(
      page,
      /\/co-parents/,
      page.getByRole("button", { name: "Invite as co-parent" }),
      async () => {
        await expect(page.getByText(`${friendName} (invited)`)).toBeVisible();
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByText("already a co-parent")).toHaveCount(0);
    expect(await count("co_parents", { kid_id: kid.id })).toBe(1);
  });

  test("Join by invitation (signed out): the new account is signed in, never told the link is used", async ({
    page,
    browser,
  }, testInfo) => {
    const { path } = await invitationLink(browser, testInfo);
    const email = `join${Date.now()}${Math.floor(Math.random() * 1e6)}@example.com`;
    await page.goto(path);
    await hydrated(page);
    await page.getByLabel("Your name").fill("Rosa Pérez");
    await page.getByLabel("Your email address").fill(email);
    const posts = await doubleClick(
      page,
      /\/invite\//,
      page.locator("form#join-form button[type=submit]") /* "Joining…" once sent */,
      async () => {
        // joining lands on the inviter's moments (docs/decisions/0059-the-circle-a-relationship-implies.md)
        await expect(page).toHaveURL(/\/feed\?welcome=\d+$/);
      },
    );
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByText("already been used")).toHaveCount(0);
    expect((await (await page.request.get("/api/auth")).json()).email).toBe(email);
    expect(await count("users", { email_normalized: email })).toBe(1);
  });

  test("Accept an invitation (signed in): one friendship, never told the link is used", async ({
    page,
    browser,
  }, testInfo) => {
    const { inviter, path } = await invitationLink(browser, testInfo);
    await signUp(page, newAccount("da"));
    const me = await myId(page.request);
    await page.goto(path);
    await hydrated(page);
    const posts = await doubleClick(page, /\/invite\//, page.getByRole("button", { name: /^Accept/ }), async () => {
      await expect(page).toHaveURL(/\/feed\?welcome=\d+$/);
    });
    expect(posts).toBe(expectedPosts(testInfo));
    await expect(page.getByText("already been used")).toHaveCount(0);
    expect(await count("friendships", { user_id: inviter.id, friend_id: me })).toBe(1);
  });
});
