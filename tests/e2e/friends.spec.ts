import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectAccessible, expect, isNoJs, newAccount, signUp, test } from "./utils";
import { insertKidWithMoment, userIdByEmail } from "./friends-helpers";
import { closeE2eDb } from "./e2e-db";

// The whole friendship lifecycle with two people in two browser contexts, JavaScript on and off.

const PLACEHOLDER = "Search for a user by first name or last name";

test.afterAll(async () => {
  await closeE2eDb();
});

async function secondPage(browser: Browser, testInfo: TestInfo): Promise<Page> {
  const ctx = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
  });
  return ctx.newPage();
}

/** Types into the search box and presses Enter (a GET form: the query lands in the URL). */
async function search(page: Page, query: string) {
  if (!new URL(page.url()).pathname.startsWith("/friendships/new")) await page.goto("/friendships/new");
  const box = page.getByPlaceholder(PLACEHOLDER);
  await box.fill(query);
  await box.press("Enter");
  await expect(page).toHaveURL((url) => url.pathname === "/friendships/new" && url.searchParams.get("q") === query);
}

function resultFor(page: Page, name: string) {
  return page.getByRole("region", { name: "Search Results" }).getByRole("listitem").filter({ hasText: name });
}

function section(page: Page, name: "All Friends" | "Friend Requests Received" | "You Sent A Friend Request To") {
  return page.getByRole("region", { name });
}

async function sendRequest(page: Page, to: { first: string; last: string }, testInfo: TestInfo) {
  await search(page, to.first);
  await resultFor(page, `${to.first} ${to.last}`)
    .getByRole("button", { name: /^Add friend/ })
    .click();
  const message = page.getByText(`Friend request sent successfully to ${to.first} ${to.last}!`);
  await expect(message).toBeVisible();
  if (!isNoJs(testInfo)) {
    // with JavaScript it clears after 3000 ms, together with the search box
    await expect(message).toBeHidden();
    await expect(page.getByPlaceholder(PLACEHOLDER)).toHaveValue("");
  }
}

test.describe("friends", () => {
  test("the whole lifecycle: search, request, cancel, deny, delete, accept, kids, remove", async ({
    page,
    browser,
  }, testInfo) => {
    test.setTimeout(240_000);
    const bob = await signUp(page, newAccount("bob"));
    const alicePage = await secondPage(browser, testInfo);
    const alice = await signUp(alicePage, newAccount("alice"));
    const aliceId = await userIdByEmail(alice.email);
    const kid = await insertKidWithMoment(aliceId, "Milo");

    // ---- empty friends page
    await page.goto("/current/friends");
    await expect(page.getByRole("heading", { level: 2, name: "All Friends" })).toBeVisible();
    await expect(section(page, "All Friends").getByText("No friends found")).toBeVisible();
    await expect(section(page, "Friend Requests Received").getByText("No friend requests received")).toBeVisible();
    await expect(section(page, "You Sent A Friend Request To").getByText("No friend requests sent")).toBeVisible();
    await expectAccessible(page, browser);
    await page.getByRole("link", { name: "Add A New Friend" }).click();
    await expect(page).toHaveURL(/\/friendships\/new$/);
    await expect(page.getByRole("searchbox", { name: "Find a friend by name" })).toHaveAttribute(
      "placeholder",
      PLACEHOLDER,
    );
    await expectAccessible(page, browser);

    // ---- search messages
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.locator(".error-summary").getByText("Please enter a name to search.")).toBeVisible();
    await expect(page.locator(".field-error", { hasText: "Please enter a name to search." })).toBeVisible();
    await expectAccessible(page, browser);

    await search(page, "zzqx nobody here");
    await expect(page.getByRole("heading", { name: "Search Results" })).toBeVisible();
    await expect(page.getByText("This user not found! Please try another name.")).toBeVisible();

    // oneself: "You", with no button that could only be refused
    await search(page, `  ${bob.first.toUpperCase()} ${bob.last}  `);
    const me = resultFor(page, `${bob.first} ${bob.last}`);
    await expect(me.getByText("You", { exact: true })).toBeVisible();
    await expect(me.getByRole("button", { name: /^Add friend/ })).toHaveCount(0);

    // each hit shows its username beside the name (two people may share a name), never an email
    await search(page, alice.first);
    await expect(resultFor(page, `${alice.first} ${alice.last}`)).toHaveCount(1);
    await expect(resultFor(page, `${alice.first} ${alice.last}`).getByText(alice.username)).toBeVisible();
    await expect(resultFor(page, `${alice.first} ${alice.last}`)).not.toContainText("@");
    await expectAccessible(page, browser);

    // ---- request, then cancel it
    await sendRequest(page, alice, testInfo);
    // the same search now says where Bob stands instead of offering a request that would be refused
    await search(page, alice.first);
    await expect(
      resultFor(page, `${alice.first} ${alice.last}`).getByText("Request sent", { exact: true }),
    ).toBeVisible();
    await expect(
      resultFor(page, `${alice.first} ${alice.last}`).getByRole("button", { name: /^Add friend/ }),
    ).toHaveCount(0);
    await expectAccessible(page, browser);
    // and Alice sees the request she received, linked to where she answers it
    await search(alicePage, bob.first);
    await expect(
      resultFor(alicePage, `${bob.first} ${bob.last}`).getByRole("link", { name: /^Request received/ }),
    ).toHaveAttribute("href", "/current/friends");

    await page.goto("/current/friends");
    const sent = section(page, "You Sent A Friend Request To");
    await expect(sent.getByText(alice.username, { exact: true })).toBeVisible();
    await expect(sent.getByText("Denied")).toHaveCount(0);
    await expectAccessible(page, browser);
    await sent.getByRole("button", { name: /^Cancel Request/ }).click();
    await expect(sent.getByText("No friend requests sent")).toBeVisible();

    // ---- request again; Alice denies; Bob sees "Denied" and deletes it
    await sendRequest(page, alice, testInfo);
    await alicePage.goto("/current/friends");
    const received = section(alicePage, "Friend Requests Received");
    await expect(received.getByText(bob.username, { exact: true })).toBeVisible();
    await expect(received.getByRole("button", { name: /^Accept/ })).toBeVisible();
    await expectAccessible(alicePage, browser);
    await received.getByRole("button", { name: /^Deny/ }).click();
    await expect(received.getByText("No friend requests received")).toBeVisible();
    await expect(section(alicePage, "All Friends").getByText("No friends found")).toBeVisible();

    await page.goto("/current/friends");
    await expect(sent.getByText(alice.username, { exact: true })).toBeVisible();
    await expect(sent.getByText("Denied", { exact: true })).toBeVisible();
    await expect(sent.getByRole("button", { name: /^Cancel Request/ })).toHaveCount(0);
    await expectAccessible(page, browser);
    // a pending or denied request reveals nothing about Alice's kids
    await expect(page.getByText("Milo")).toHaveCount(0);
    expect((await page.request.get(kid.kidPhotoUrl)).status()).toBe(404);
    await sent.getByRole("button", { name: /^Delete Request/ }).click();
    await expect(sent.getByText("No friend requests sent")).toBeVisible();

    // ---- request once more; Alice accepts
    await sendRequest(page, alice, testInfo);
    await alicePage.goto("/current/friends");
    await received.getByRole("button", { name: /^Accept/ }).click();
    await expect(received.getByText("No friend requests received")).toBeVisible();
    await expect(section(alicePage, "All Friends").getByText(bob.username, { exact: true })).toBeVisible();

    // ---- Bob sees Alice, her kid and her photos
    await search(page, alice.first);
    await expect(resultFor(page, `${alice.first} ${alice.last}`).getByText("Friends", { exact: true })).toBeVisible();
    await page.goto("/current/friends");
    const friends = section(page, "All Friends");
    await expect(friends.getByText(alice.username, { exact: true })).toBeVisible();
    await expect(sent.getByText("No friend requests sent")).toBeVisible();
    await expectAccessible(page, browser);
    // the list names her; her kids and the forms are on her own page
    await friends.getByRole("link", { name: new RegExp(alice.username) }).click();
    await expect(page).toHaveURL(/\/current\/friends\/\d+$/);
    const alicesPage = page.url();
    const kidLink = page.getByRole("link", { name: "Milo" });
    await expect(kidLink).toBeVisible();
    await expect(kidLink).toHaveAttribute("href", `/kids/${kid.kidId}/dailyLogs`);
    await expectAccessible(page, browser);
    expect((await page.request.get(kid.kidPhotoUrl)).status()).toBe(200);
    expect((await page.request.get(kid.logPhotoUrl)).status()).toBe(200);
    await kidLink.click();
    await expect(page).toHaveURL(new RegExp(`/kids/${kid.kidId}/dailyLogs$`));
    await expect(page.getByRole("heading", { name: "Milo's Moments" })).toBeVisible();
    await page.getByRole("link", { name: "At the beach" }).click();
    await expect(page).toHaveURL(new RegExp(`/dailyLogs/${kid.logId}$`));
    await expect(page.getByText("Sand everywhere.")).toBeVisible();

    // ---- Bob removes Alice (on her page): access ends with the very next request
    await page.goto(alicesPage);
    await page.getByRole("button", { name: /^Remove Friend/ }).click();
    await expect(page).toHaveURL(/\/current\/friends$/);
    await expect(friends.getByText("No friends found")).toBeVisible();
    expect((await page.goto(alicesPage))?.status()).toBe(404);
    await page.goto("/current/friends");
    await expect(page.getByText("Milo")).toHaveCount(0);
    await alicePage.goto("/current/friends");
    await expect(section(alicePage, "All Friends").getByText("No friends found")).toBeVisible();

    for (const url of [`/kids/${kid.kidId}/dailyLogs`, `/dailyLogs/${kid.logId}`]) {
      const response = await page.goto(url);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    }
    expect((await page.request.get(kid.kidPhotoUrl)).status()).toBe(404);
    expect((await page.request.get(kid.logPhotoUrl)).status()).toBe(404);
    // Alice still sees her own
    expect((await alicePage.request.get(kid.kidPhotoUrl)).status()).toBe(200);

    await alicePage.context().close();
  });

  test("an ended session: the search page says so, with and without JavaScript", async ({
    page,
    context,
    browser,
  }, testInfo) => {
    const other = await secondPage(browser, testInfo);
    const dave = await signUp(other, newAccount("dave"));
    await other.context().close();
    await signUp(page, newAccount("carol"));
    await search(page, dave.first);
    await context.clearCookies();
    await resultFor(page, `${dave.first} ${dave.last}`)
      .getByRole("button", { name: /^Add friend/ })
      .click();
    await expect(page.getByRole("alert").getByText("Failed to authenticate. Please log in again.")).toBeVisible();
    await expect(page.getByRole("alert").getByRole("link", { name: "Log In" })).toHaveAttribute(
      "href",
      /^\/login\?redirectTo=%2Ffriendships%2Fnew/,
    );
    await expectAccessible(page, browser);
    await page.getByRole("alert").getByRole("link", { name: "Log In" }).click();
    await expect(page).toHaveURL(/\/login\?redirectTo=/);
  });
});
