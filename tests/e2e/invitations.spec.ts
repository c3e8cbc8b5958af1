import type { Browser, Page } from "@playwright/test";
import { expectAccessible, expect, freshPage, hydrated, isNoJs, logIn, newAccount, signUp, test } from "./utils";
import { insertKidWithMoment, userIdByEmail } from "./friends-helpers";
import { mailTo } from "./mail";
import { befriend, closeE2eDb, e2eDb } from "./e2e-db";

// Invitations and sign-in links (docs/decisions/0026-*): a parent invites, the link opens in a
// fresh browser, the relative joins without a password and sees the kid's moments; signing in by an
// emailed link (the e2e server sends it over SMTP to the test SMTP server of
// tests/e2e/global-smtp.ts, where the test reads it); used, revoked and expired links. JavaScript
// on and off, axe on every page.

test.afterAll(async () => {
  await closeE2eDb();
});

/** Creates an invitation on the friends page and answers its link (read from the selectable field). */
async function createInvitation(page: Page, browser: Browser, note?: string): Promise<string> {
  await page.goto("/current/friends");
  // a click while the page's scripts attach could be lost: wait for them (with JavaScript)
  await hydrated(page);
  const region = page.getByRole("region", { name: "Invite family" });
  if (note) await region.getByLabel("Note (optional)").fill(note);
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page).toHaveURL(/\/current\/friends#new-link$/);
  const field = region.getByLabel("Invitation link");
  await expect(field).toBeVisible();
  const url = await field.inputValue();
  expect(url).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  if (isNoJs(test.info())) await expect(region.getByRole("button", { name: "Copy link" })).toHaveCount(0);
  else await expect(region.getByRole("button", { name: "Copy link" })).toBeVisible();
  await expectAccessible(page, browser);
  return url;
}

test("a parent invites; the relative joins in a fresh browser without a password and sees the kid's moments", async ({
  page,
  browser,
}, testInfo) => {
  const parent = await signUp(page, newAccount("parent"));
  const { kidId } = await insertKidWithMoment(await userIdByEmail(parent.email), "Mila");
  const link = await createInvitation(page, browser, "Photos of Mila for you, Oma!");
  await expect(
    page.getByRole("region", { name: "Invite family" }).getByText("“Photos of Mila for you, Oma!”"),
  ).toBeVisible();

  const oma = await freshPage(browser, testInfo);
  await oma.goto(link);
  await expect(oma.getByRole("heading", { level: 1 })).toHaveText(
    `${parent.first} ${parent.last} invited you to Sweet Moments`,
  );
  await expect(oma.getByText("Photos of Mila for you, Oma!")).toBeVisible();
  await expectAccessible(oma, browser);
  // a missing name: the error summary, tied to the field
  await oma.getByRole("button", { name: "Join and see the photos" }).click();
  await expect(oma.getByRole("link", { name: "Enter your name." })).toBeVisible();
  await expectAccessible(oma, browser);
  const omaEmail = newAccount("oma").email;
  await oma.getByLabel("Your name").fill("Oma Greta");
  await oma.getByLabel("Your email address").fill(omaEmail);
  await oma.getByRole("button", { name: "Join and see the photos" }).click();
  // she lands on her feed, with the kid's moments
  await expect(oma).toHaveURL(/\/feed\?welcome=\d+$/);
  const entry = oma.getByRole("article", { name: "At the beach" });
  await expect(entry).toBeVisible();
  await expect(entry.getByRole("link", { name: /Mila/ })).toHaveAttribute("href", `/kids/${kidId}/dailyLogs`);
  await expectAccessible(oma, browser);
  await oma.goto("/current/friends");
  const friend = oma
    .getByRole("region", { name: "All Friends" })
    .getByRole("listitem")
    .filter({ hasText: parent.username });
  // her friends list names the parent; the kid is on the parent's own page
  await friend.getByRole("link").click();
  await oma.getByRole("link", { name: "Mila" }).click();
  await expect(oma).toHaveURL(new RegExp(`/kids/${kidId}/dailyLogs$`));
  await expect(oma.getByText("At the beach")).toBeVisible();
  expect((await e2eDb()("users").where("email_normalized", omaEmail).first("password_hash")).password_hash).toBe("");

  // the link worked once
  const late = await freshPage(browser, testInfo);
  await late.goto(link);
  await expect(late.getByRole("heading", { level: 1 })).toHaveText("This invitation has already been used");
  await expectAccessible(late, browser);

  // the parent is told: the header's Notifications link carries the count, the page the news
  await page.goto("/current/friends");
  await expect(page.getByRole("link", { name: "Notifications 1 unread" })).toBeVisible();
  await page.getByRole("link", { name: "Notifications 1 unread" }).click();
  await expect(
    page.getByRole("link", {
      name: "Oma Greta accepted your invitation and sees the moments you share with Everyone",
    }),
  ).toBeVisible();
  await expectAccessible(page, browser);
  // opening the page marked nothing read: its "Mark all as read" form does (with JavaScript the page
  // sends it by itself once shown, and the button goes)
  const markRead = page.getByRole("button", { name: "Mark all as read" });
  if (testInfo.project.use.javaScriptEnabled !== false) await expect(markRead).toBeHidden();
  else {
    await markRead.click();
    await expect(page).toHaveURL(/\/notifications$/);
    await expect(markRead).toBeHidden();
  }
  await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
  // the parent sees Oma among those who joined, and can make her a sign-in link
  await page.goto("/current/friends");
  await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
  const joined = page
    .getByRole("list", { name: "Joined by your invitations" })
    .getByRole("listitem")
    .filter({ hasText: "Oma Greta" });
  await joined.getByRole("button", { name: /^Make a sign-in link/ }).click();
  const signInUrl = await page.getByLabel("Sign-in link").inputValue();
  expect(signInUrl).toMatch(/\/login\/link\/[A-Za-z0-9_-]{43}$/);
  const again = await freshPage(browser, testInfo);
  await again.goto(signInUrl);
  await again.getByRole("button", { name: "Sign in" }).click();
  await expect(again).toHaveURL(/\/my-kids-list$/);
});

test("an invitation presets the circle: the relative who joins is in the parent's Family circle, as a Grandparent", async ({
  page,
  browser,
}, testInfo) => {
  const parent = await signUp(page, newAccount("preset"));
  await page.goto("/current/friends");
  const region = page.getByRole("region", { name: "Invite family" });
  await expect(region.getByRole("radio", { name: /^As the relationship implies/ })).toBeChecked();
  await region.getByLabel("Relationship (optional)").selectOption("caregiver");
  await region.getByRole("radio", { name: "Family" }).check();
  await region.getByLabel("Relationship (optional)").selectOption("grandparent");
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page).toHaveURL(/\/current\/friends#new-link$/);
  const link = await region.getByLabel("Invitation link").inputValue();
  await expect(region.getByRole("list", { name: "Pending invitations" }).getByRole("listitem")).toContainText(
    "Family (Grandparent)",
  );
  await expectAccessible(page, browser);

  const opa = await freshPage(browser, testInfo);
  await opa.goto(link);
  const email = newAccount("opa").email;
  await opa.getByLabel("Your name").fill("Opa Hans");
  await opa.getByLabel("Your email address").fill(email);
  await opa.getByRole("button", { name: "Join and see the photos" }).click();
  await expect(opa).toHaveURL(/\/feed\?welcome=\d+$/);
  // the relative's own side is the default: Friends, no relationship
  await opa.goto("/current/friends");
  const theirs = opa
    .getByRole("region", { name: "All Friends" })
    .getByRole("listitem")
    .filter({ hasText: parent.username });
  await expect(theirs).toContainText("Friends");
  await expect(theirs).not.toContainText("·");
  await theirs.getByRole("link").click();
  await expect(opa.getByRole("combobox", { name: /^Circle/ })).toHaveValue("friends");
  await expect(opa.getByRole("combobox", { name: /^Relationship/ })).toHaveValue("");

  const username = (await e2eDb()("users").where("email_normalized", email).first("username")).username as string;
  await page.goto("/current/friends");
  const card = page.getByRole("region", { name: "All Friends" }).getByRole("listitem").filter({ hasText: username });
  await expect(card).toContainText("Family · Grandparent");
  await card.getByRole("link").click();
  await expect(page.getByRole("combobox", { name: /^Circle/ })).toHaveValue("family");
  await expect(page.getByRole("combobox", { name: /^Relationship/ })).toHaveValue("grandparent");
  await expectAccessible(page, browser);
});

test("with friends on the list the page leads with them: the invitation form is one tap away, behind 'Invite someone'", async ({
  page,
  browser,
}, testInfo) => {
  const parent = await signUp(page, newAccount("lead"));
  const friend = await signUp(await freshPage(browser, testInfo), newAccount("pal"));
  await befriend(await userIdByEmail(parent.email), await userIdByEmail(friend.email));
  await page.goto("/current/friends");
  await hydrated(page);
  const region = page.getByRole("region", { name: "Invite family" });
  await expect(page.getByRole("region", { name: "All Friends" }).getByRole("listitem")).toHaveCount(1);
  await expect(region.getByLabel("Note (optional)")).toHaveCount(0);
  await expectAccessible(page, browser);
  await region.getByRole("link", { name: "Invite someone" }).click();
  if (isNoJs(testInfo)) {
    // its own address: this page with the form, at the form
    await expect(page).toHaveURL(/\/current\/friends\?invite#invite-form$/);
  } else {
    // in place, the first field ready to type in
    await expect(page).toHaveURL(/\/current\/friends$/);
    await expect(region.getByLabel("Note (optional)")).toBeFocused();
  }
  await expect(region.getByRole("link", { name: "Invite someone" })).toHaveCount(0);
  // a mistake keeps the form, with the error summary
  await region.getByLabel("Their email address (optional)").fill("not an address");
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page.getByRole("link", { name: "Enter an email address like name@example.com." })).toBeVisible();
  await expect(region.getByLabel("Their email address (optional)")).toBeVisible();
  await region.getByLabel("Their email address (optional)").fill("");
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page).toHaveURL(/\/current\/friends#new-link$/);
  await expect(region.getByLabel("Invitation link")).toBeVisible();
  // the form starts again below the new link
  await expect(region.getByLabel("Note (optional)")).toHaveValue("");
  await expectAccessible(page, browser);
});

test("an invitation answered with the address of an existing account makes no friendship: the mail says who and what, its link signs in to Accept or Decline", async ({
  page,
  browser,
}, testInfo) => {
  const stranger = await signUp(page, newAccount("stranger"));
  const strangerName = `${stranger.first} ${stranger.last}`;
  const aunt = await freshPage(browser, testInfo);
  const account = await signUp(aunt, newAccount("aunt"));
  await aunt.context().clearCookies();
  for (const answer of ["Decline", "Accept"] as const) {
    // the stranger answers their own link, signed out, with the aunt's address
    const link = await createInvitation(page, browser, `Note ${answer}`);
    const answering = await freshPage(browser, testInfo);
    await answering.goto(link);
    await answering.getByLabel("Your name").fill("Someone");
    await answering.getByLabel("Your email address").fill(account.email);
    await answering.getByRole("button", { name: "Join and see the photos" }).click();
    await expect(answering.getByRole("heading", { level: 1 })).toHaveText("Check your email");
    await answering.context().close();
    // the newest message to the aunt, once it is this one (the loop's first answer mailed her too)
    await expect.poll(async () => (await mailTo(account.email)).text?.includes(`Note ${answer}`)).toBe(true);
    const mail = await mailTo(account.email);
    expect(mail.subject).toBe(`${strangerName} invited you to be friends on Sweet Moments`);
    expect(mail.text).toContain(`Note ${answer}`);
    expect(mail.text).toContain(`If you accept, you and ${strangerName} become friends`);
    const signIn = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}\?invitation=[A-Za-z0-9_-]{43}/.exec(
      mail.text ?? "",
    )![0];
    await aunt.goto(signIn);
    await aunt.getByRole("button", { name: "Sign in" }).click();
    await expect(aunt).toHaveURL(new URL(link).pathname);
    await expect(aunt.getByRole("heading", { level: 1 })).toHaveText(`${strangerName} invited you to Sweet Moments`);
    await expect(aunt.getByText(`Note ${answer}`)).toBeVisible();
    await expectAccessible(aunt, browser);
    // signed in, and still nobody's friend until the answer
    const auntId = await userIdByEmail(account.email);
    expect(await e2eDb()("friendships").where("user_id", auntId).orWhere("friend_id", auntId)).toEqual([]);
    await aunt
      .getByRole("button", { name: answer === "Accept" ? `Accept: become friends with ${strangerName}` : "Decline" })
      .click();
    if (answer === "Decline") {
      await expect(aunt.getByRole("heading", { level: 1 })).toHaveText("You declined this invitation");
      await expectAccessible(aunt, browser);
      await aunt.goto("/current/friends");
      await expect(aunt.getByRole("region", { name: "All Friends" }).getByText("No friends found")).toBeVisible();
    } else {
      await expect(aunt).toHaveURL(/\/feed\?welcome=\d+$/);
      await aunt.goto("/current/friends");
      await expect(
        aunt.getByRole("region", { name: "All Friends" }).getByRole("listitem").filter({ hasText: stranger.username }),
      ).toBeVisible();
    }
    await aunt.context().clearCookies();
  }
});

test("sign in by an emailed link; the link works once", async ({ page, browser }) => {
  const account = await signUp(page, newAccount("mailer"));
  await page.context().clearCookies();
  await page.goto("/login");
  await page.getByRole("link", { name: "Email me a sign-in link" }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expectAccessible(page, browser);
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Check your email");
  await expectAccessible(page, browser);
  const mail = await mailTo(account.email);
  expect(mail.subject).toBe("Your Sweet Moments sign-in link");
  const url = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? "")![0];
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign in to Sweet Moments");
  await expectAccessible(page, browser);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/my-kids-list$/);
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This sign-in link has already been used");
  await expectAccessible(page, browser);
});

test("forgot your password: the emailed link signs in and a new password is set without the old one", async ({
  page,
  browser,
}) => {
  const account = await signUp(page, newAccount("forgot"));
  await page.context().clearCookies();
  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page).toHaveURL(/\/login\/email\?reset=1$/);
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: /sign-in link|reset|Email me/i }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Check your email");
  const mail = await mailTo(account.email);
  const url = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? "")![0];
  await page.goto(url);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/settings#password$/);
  const section = page.locator("#password");
  await section.getByLabel("New password", { exact: true }).fill("brandnew1");
  await section.getByLabel("Confirm new password").fill("brandnew1");
  await section.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Your password has been saved.")).toBeVisible();
  await expectAccessible(page, browser);
  await page.context().clearCookies();
  await logIn(page, account.email, "brandnew1");
});

test("revoked and expired invitations get a clear page", async ({ page, browser }, testInfo) => {
  const revoker = await signUp(page, newAccount("revoker"));
  const revoked = await createInvitation(page, browser);
  const pending = page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem");
  await expect(pending).toHaveCount(1);
  await pending.getByRole("button", { name: /^Revoke/ }).click();
  await expect(page.getByText("No pending invitations")).toBeVisible();
  const expired = await createInvitation(page, browser);

  const visitor = await freshPage(browser, testInfo);
  await visitor.goto(revoked);
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("This invitation was withdrawn");
  await expectAccessible(visitor, browser);
  // opened in time, expired before the form is sent
  await visitor.goto(expired);
  await visitor.getByLabel("Your name").fill("Late Larry");
  await visitor.getByLabel("Your email address").fill(newAccount("larry").email);
  // this parent's newest invitation (other specs make theirs at the same time)
  const newest = await e2eDb()("invitations")
    .where("inviter_id", await userIdByEmail(revoker.email))
    .max({ id: "id" })
    .first();
  await e2eDb()("invitations")
    .where("id", newest!.id)
    .update({ expires_at: new Date(Date.now() - 60_000).toISOString() });
  await visitor.getByRole("button", { name: "Join and see the photos" }).click();
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("This invitation has expired");
  await expect(visitor).toHaveURL(new URL(expired).pathname);
  await visitor.goto(expired);
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("This invitation has expired");
  await expectAccessible(visitor, browser);
  await visitor.goto("/invite/not-a-real-token");
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("This invitation link does not work");
  await expectAccessible(visitor, browser);
});

test("expired and unknown sign-in links get a clear page", async ({ page, browser }) => {
  const account = await signUp(page, newAccount("late"));
  await page.context().clearCookies();
  await page.goto("/login/email");
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Check your email");
  const url = /https?:\/\/\S+\/login\/link\/[A-Za-z0-9_-]{43}/.exec((await mailTo(account.email)).text ?? "")![0];
  // opened in time, then expired before "Sign in" is pressed (the row's expiry moved into the past)
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign in to Sweet Moments");
  const userId = await userIdByEmail(account.email);
  const expired = await e2eDb()("sign_in_links")
    .where("user_id", userId)
    .update({ expires_at: new Date(Date.now() - 60_000).toISOString() });
  expect(expired).toBe(1);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This sign-in link has expired");
  await expect(page).toHaveURL(new URL(url).pathname);
  await expectAccessible(page, browser);
  expect(await page.context().cookies()).toEqual([]);
  await page.getByRole("link", { name: "Email me a new sign-in link" }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  // opened after it expired
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This sign-in link has expired");
  await expect(page.getByRole("button", { name: "Sign in" })).toHaveCount(0);
  // a link that never existed: well-formed or not
  for (const token of ["A".repeat(43), "not-a-real-token"]) {
    await page.goto(`/login/link/${token}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("This sign-in link does not work");
    await expectAccessible(page, browser);
  }
});
