import { expectAccessible, expect, freshPage, logIn, newAccount, signUp, test } from "./utils";
import { mailTo } from "./mail";

// docs/decisions/0039-account-safety.md end to end, JavaScript on and off: an email change is
// mailed to the old address, whose link undoes it and signs the account out everywhere; a relative
// sees who made sign-in links for them and turns them off, after which the parent's link is dead.

test("an email change can be undone from the old address: the address is back and every other session is signed out", async ({
  page,
  browser,
}, testInfo) => {
  const account = await signUp(page, newAccount("undo"));
  const other = await freshPage(browser, testInfo);
  await logIn(other, account.email, account.password);

  await page.goto("/settings");
  const details = page.locator("form", { has: page.locator('input[name="intent"][value="profile"]') });
  const moved = newAccount("moved").email;
  await details.getByLabel("Email").fill(moved);
  await details.getByLabel("Current password").fill(account.password);
  await details.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your details have been saved." })).toBeVisible();

  const notice = await mailTo(account.email);
  expect(notice.subject).toBe("Your Sweet Moments email address was changed");
  const undoPath = /\/email\/undo\/[A-Za-z0-9_-]{43}/.exec(notice.text ?? "")![0];

  const owner = await freshPage(browser, testInfo);
  await owner.goto(undoPath);
  await expect(owner.getByRole("heading", { level: 1 })).toHaveText("Undo the email change");
  await expect(owner.getByText(account.email)).toBeVisible();
  await expectAccessible(owner, browser);
  await owner.getByRole("button", { name: "Undo the change and sign out everywhere" }).click();
  await expect(owner).toHaveURL(/\/settings\?done=email-undone#password$/);
  await expect(owner.getByRole("status").filter({ hasText: "The email change is undone" })).toBeVisible();
  await expect(owner.getByRole("heading", { name: "Set a password" })).toBeVisible();
  await expect(owner.getByRole("textbox", { name: "Email", exact: true })).toHaveValue(account.email);
  await expectAccessible(owner, browser);

  for (const signedOut of [page, other]) {
    await signedOut.goto("/my-kids-list");
    await expect(signedOut).toHaveURL(/\/login\?redirectTo=/);
  }
  // the link worked once
  await owner.goto(undoPath);
  await expect(owner.getByRole("heading", { level: 1 })).toHaveText("This link does not work");
});

test("a relative sees who made sign-in links for them and turns them off; the parent's link then signs no one in", async ({
  page,
  browser,
}, testInfo) => {
  const parent = await signUp(page, newAccount("linker"));
  await page.goto("/current/friends");
  const region = page.getByRole("region", { name: "Invite family" });
  await region.getByRole("button", { name: "Create invitation link" }).click();
  const invitation = await region.getByLabel("Invitation link").inputValue();

  const relative = await freshPage(browser, testInfo);
  await relative.goto(invitation);
  await relative.getByLabel("Your name").fill("Oma Greta");
  await relative.getByLabel("Your email address").fill(newAccount("oma").email);
  await relative.getByRole("button", { name: "Join and see the photos" }).click();
  await expect(relative).toHaveURL(/\/feed\?welcome=\d+$/);

  await page.goto("/current/friends");
  const joined = page
    .getByRole("list", { name: "Joined by your invitations" })
    .getByRole("listitem")
    .filter({ hasText: "Oma Greta" });
  await joined.getByRole("button", { name: /^Make a sign-in link/ }).click();
  const signInUrl = await page.getByLabel("Sign-in link").inputValue();

  await relative.goto("/settings");
  const links = relative.getByRole("region", { name: "Sign-in links made for you" });
  await expect(links.getByText(`${parent.first} ${parent.last} made a link on`)).toBeVisible();
  await expect(links.locator(".session__dates")).toContainText("· not used");
  await expectAccessible(relative, browser);
  await links.getByRole("button", { name: "Turn off sign-in links made for me" }).click();
  await expect(
    relative.getByRole("status").filter({ hasText: "Sign-in links made for you are turned off." }),
  ).toBeVisible();
  await expect(links.getByRole("button", { name: "Turn off sign-in links made for me" })).toHaveCount(0);

  const late = await freshPage(browser, testInfo);
  await late.goto(signInUrl);
  await expect(late.getByRole("heading", { level: 1 })).toHaveText("This sign-in link has expired");
  await page.goto("/current/friends");
  await expect(joined.getByText("Signs in on their own")).toBeVisible();
  await expect(joined.getByRole("button", { name: /^Make a sign-in link/ })).toHaveCount(0);
});
