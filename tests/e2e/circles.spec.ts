import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectAccessible, expect, newAccount, signUp, test } from "./utils";
import { apiCreateKid, jpegFile, myId } from "./kids-helpers";
import { befriend, closeE2eDb } from "./e2e-db";

// Who sees what (docs/spec.md §6), JavaScript on and off, three people in three browser contexts:
// Alice files Grandma in her Family circle, posts a Family-only moment that Pal (a Friends-circle
// friend) cannot see, makes Pal a co-parent (Pal accepts) and removes them, blocks Grandma and
// unblocks her. Every page visited is checked with axe.

test.afterAll(async () => {
  await closeE2eDb();
});

async function person(
  browser: Browser,
  testInfo: TestInfo,
  prefix: string,
): Promise<{ page: Page; id: number; username: string; name: string }> {
  const ctx = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: testInfo.project.use.javaScriptEnabled,
  });
  const page = await ctx.newPage();
  const account = await signUp(page, newAccount(prefix));
  return {
    page,
    id: await myId(page.request),
    username: account.username,
    name: `${account.first} ${account.last}`,
  };
}

const friendCard = (page: Page, username: string) =>
  page.getByRole("region", { name: "All Friends" }).getByRole("listitem").filter({ hasText: username }).first();

/** From the friends page, the friend's own page (where their forms are): the list's one link. */
async function openFriend(page: Page, username: string) {
  await page.goto("/current/friends");
  await friendCard(page, username).getByRole("link").click();
  await expect(page).toHaveURL(/\/current\/friends\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: username })).toBeVisible();
}

test.describe("who sees what", () => {
  test("family circle, a Family-only moment, a co-parent added and removed, block and unblock", async ({
    browser,
  }, testInfo) => {
    test.setTimeout(240_000);
    const alice = await person(browser, testInfo, "alice");
    const grandma = await person(browser, testInfo, "gran");
    const pal = await person(browser, testInfo, "pal");
    await befriend(alice.id, grandma.id);
    await befriend(pal.id, alice.id);
    const kid = await apiCreateKid(alice.page.request, { name: "Nora", birth_date: "2022-04-05", relationship: "Mom" });

    // ---- Alice files Grandma in her Family circle
    await openFriend(alice.page, grandma.username);
    const grandmaPage = alice.page.url();
    await alice.page.getByRole("combobox", { name: /^Circle/ }).selectOption("family");
    await alice.page.getByRole("combobox", { name: /^Relationship/ }).selectOption("grandparent");
    await alice.page.getByRole("button", { name: /^Save/ }).click();
    await expect(alice.page).toHaveURL(grandmaPage);
    await expect(alice.page.getByRole("combobox", { name: /^Circle/ })).toHaveValue("family");
    await expect(alice.page.getByRole("combobox", { name: /^Relationship/ })).toHaveValue("grandparent");
    await expectAccessible(alice.page, browser);
    // the list says how each friend is filed, as text
    await alice.page.goto("/current/friends");
    await expect(friendCard(alice.page, grandma.username)).toContainText("Family · Grandparent");
    await expect(friendCard(alice.page, pal.username)).toContainText("Friends");
    await expectAccessible(alice.page, browser);

    // ---- a Family-only moment, through the form
    await alice.page.goto(`/kids/${kid.id}/dailyLogs/new`);
    await alice.page.getByLabel("Title").fill("Bath time");
    await alice.page.getByLabel("Content").fill("Bubbles everywhere.");
    await alice.page.getByLabel("Image Upload").setInputFiles(await jpegFile("bath.jpg"));
    await expect(alice.page.getByRole("radio", { name: "Everyone" })).toBeChecked();
    await alice.page.getByRole("radio", { name: "Family" }).check();
    await expectAccessible(alice.page, browser);
    await alice.page.getByRole("button", { name: "Add your new dailyLog" }).click();
    await expect(alice.page).toHaveURL(/\/dailyLogs\/\d+$/);
    const momentPath = new URL(alice.page.url()).pathname;
    await expect(alice.page.locator(".audience-label")).toHaveText(/Family/);
    await expect(alice.page.getByText(`Posted by ${alice.username}`)).toBeVisible();
    await expectAccessible(alice.page, browser);

    // Grandma sees it (without the audience label); Pal does not, not even on the kid's page
    await grandma.page.goto(momentPath);
    await expect(grandma.page.getByRole("heading", { level: 1, name: "Bath time" })).toBeVisible();
    await expect(grandma.page.locator(".audience-label")).toHaveCount(0);
    const hidden = await pal.page.goto(momentPath);
    expect(hidden?.status()).toBe(404);
    await pal.page.goto(`/kids/${kid.id}/dailyLogs`);
    await expect(pal.page.getByRole("heading", { level: 1, name: "Nora's Moments" })).toBeVisible();
    await expect(pal.page.getByText("Bath time")).toHaveCount(0);

    // ---- Pal as co-parent: Alice invites, Pal accepts, sees the moment and the kid in My Kids
    await alice.page.goto(`/kids/${kid.id}/co-parents`);
    await expectAccessible(alice.page, browser);
    // a friend is picked by name, the username beside it as a hint
    await alice.page.getByRole("group", { name: "Invite a friend as co-parent" }).getByLabel(pal.name).check();
    await alice.page.getByRole("button", { name: "Invite as co-parent" }).click();
    await expect(alice.page.getByRole("list", { name: "Co-parents" })).toContainText(`${pal.name} (invited)`);
    await pal.page.goto("/current/friends");
    const invitations = pal.page.getByRole("region", { name: "Co-parent invitations" });
    await expect(invitations).toContainText("Nora");
    await expectAccessible(pal.page, browser);
    await invitations.getByRole("button", { name: /^Accept/ }).click();
    await expect(pal.page.getByRole("region", { name: "Co-parent invitations" })).toHaveCount(0);
    await pal.page.goto(momentPath);
    await expect(pal.page.getByRole("heading", { level: 1, name: "Bath time" })).toBeVisible();
    await expect(pal.page.locator(".audience-label")).toHaveText(/Family/);
    await pal.page.goto("/my-kids-list");
    await expect(pal.page.getByRole("link", { name: "Nora", exact: true })).toBeVisible();
    await expect(pal.page.getByRole("link", { name: "Remove Nora" })).toHaveCount(0);
    await expectAccessible(pal.page, browser);

    // Alice removes the co-parent: Pal loses the Family-only moment at once
    await alice.page.goto(`/kids/${kid.id}/co-parents`);
    await alice.page.getByRole("button", { name: `Remove co-parent (${pal.name})` }).click();
    await expect(alice.page.getByText("No co-parents yet")).toBeVisible();
    expect((await pal.page.goto(momentPath))?.status()).toBe(404);

    // ---- Alice blocks Grandma: the friendship and the moment are gone for her; then unblocks
    await openFriend(alice.page, grandma.username);
    await alice.page.getByRole("button", { name: `Block (${grandma.username})` }).click();
    await expect(alice.page).toHaveURL(/\/current\/friends$/);
    const blocked = alice.page.getByRole("region", { name: "Blocked users" });
    await expect(blocked).toContainText(grandma.username);
    await expect(alice.page.getByRole("region", { name: "All Friends" })).not.toContainText(grandma.username);
    await expectAccessible(alice.page, browser);
    expect((await grandma.page.goto(momentPath))?.status()).toBe(404);
    await blocked.getByRole("button", { name: `Unblock (${grandma.username})` }).click();
    await expect(alice.page.getByText("You have not blocked anyone")).toBeVisible();
  });
});

test.describe("co-parenting follows the friendship", () => {
  test("Remove Friend of a co-parent asks first, says what it ends, then ends the co-parenting", async ({
    browser,
  }, testInfo) => {
    test.setTimeout(180_000);
    const alice = await person(browser, testInfo, "alice");
    const pal = await person(browser, testInfo, "pal");
    await befriend(pal.id, alice.id);
    const kid = await apiCreateKid(alice.page.request, { name: "Nora", birth_date: "2022-04-05", relationship: "Mom" });
    const invited = await alice.page.request.post(`/api/kids/${kid.id}/co_parents`, { data: { user_id: pal.id } });
    expect(invited.status()).toBe(201);
    const accepted = await pal.page.request.put(`/api/co_parent_invitations/${(await invited.json()).id}`, {
      data: { status: "accepted" },
    });
    expect(accepted.status()).toBe(200);

    await openFriend(alice.page, pal.username);
    const ends = `This also ends ${pal.username}'s co-parenting of Nora. Co-parenting lasts only as long as the friendship.`;
    // "No" keeps the friend
    await alice.page.getByRole("link", { name: `Remove Friend (${pal.username})` }).click();
    const dialog = alice.page.getByRole("dialog", { name: "Confirm Remove Friend" });
    await expect(dialog).toContainText(`Remove ${pal.username} from your friends? ${ends}`);
    await expectAccessible(alice.page, browser);
    await dialog.getByRole("link", { name: "No (Keep Friend)" }).click();
    await expect(alice.page.getByRole("dialog")).toHaveCount(0);
    await expect(alice.page.getByRole("heading", { level: 1, name: pal.username })).toBeVisible();
    // "Yes" removes the friend and ends the co-parenting: Pal no longer sees Nora
    await alice.page.getByRole("link", { name: `Remove Friend (${pal.username})` }).click();
    await alice.page
      .getByRole("dialog", { name: "Confirm Remove Friend" })
      .getByRole("button", { name: "Yes (Remove Friend)" })
      .click();
    await expect(alice.page).toHaveURL(/\/current\/friends$/);
    await expect(alice.page.getByRole("region", { name: "All Friends" })).not.toContainText(pal.username);
    expect((await pal.page.goto(`/kids/${kid.id}/dailyLogs`))?.status()).toBe(404);
    await pal.page.goto("/my-kids-list");
    await expect(pal.page.getByRole("link", { name: "Nora", exact: true })).toHaveCount(0);
  });
});
