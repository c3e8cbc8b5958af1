import type { Locator, Page, TestInfo } from "@playwright/test";
import { expectAccessible, expect, freshPage, hydrated, isNoJs, newAccount, PHONE, signUp, test } from "./utils";
import { insertKidWithMoment, userIdByEmail } from "./friends-helpers";
import { mailTo } from "./mail";
import { closeE2eDb, e2eDb } from "./e2e-db";

// A grandmother's first minutes, on a phone (docs/decisions/0059-the-circle-a-relationship-implies.md):
// a parent invites Grandma from "Invite family" choosing only the relationship; the circle follows
// (Family); she joins from the emailed link with her name alone and lands on the feed, told what she
// sees, with the Family moment there and the "Only us" one not; My Kids shows her the family's kid.
// JavaScript on and off. With SCREENSHOTS_DIR set, the JavaScript run saves the invitation form,
// the join page and the feed there (docs/screenshots/).

test.use({ viewport: PHONE });

test.afterAll(async () => {
  await closeE2eDb();
});

/** The phone's screen with `top` scrolled to its top, saved when SCREENSHOTS_DIR is set (JavaScript run). */
async function screenshot(page: Page, name: string, top: Locator, testInfo: TestInfo) {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir || isNoJs(testInfo)) return;
  await top.evaluate((el) => el.scrollIntoView({ block: "start" }));
  // the photos on the screen loaded (they load lazily)
  await page.waitForFunction(() =>
    [...document.images]
      .filter((i) => i.getBoundingClientRect().top < window.innerHeight && i.getBoundingClientRect().bottom > 0)
      .every((i) => i.complete && i.naturalWidth > 0),
  );
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}

test("a parent invites Grandma from 'Invite family' and she sees a Family moment right after joining, on the feed", async ({
  page,
  browser,
}, testInfo) => {
  const parent = await signUp(page, newAccount("mum"));
  const parentName = `${parent.first} ${parent.last}`;
  const parentId = await userIdByEmail(parent.email);
  const { kidId, logId } = await insertKidWithMoment(parentId, "Mila");
  // the kid's moments: the newest, with its photo, for Family; one for Everyone; one Only us
  const today = new Date().toISOString();
  await e2eDb()("daily_logs")
    .where("id", logId)
    .update({ audience: "family", taken_on: today.slice(0, 10) });
  const earlier = new Date(Date.now() - 7 * 86_400_000).toISOString();
  for (const [title, audience] of [
    ["First tooth", "everyone"],
    ["Just for us", "us"],
  ] as const) {
    await e2eDb()("daily_logs").insert({
      kid_id: kidId,
      title,
      content: "",
      audience,
      taken_on: earlier.slice(0, 10),
      posted_by: parentId,
      created_at: earlier,
      updated_at: earlier,
    });
  }

  // ---- the parent: the relationship alone chooses the circle
  await page.goto("/current/friends");
  await hydrated(page);
  const region = page.getByRole("region", { name: "Invite family" });
  const implied = region.getByRole("radio", { name: /^As the relationship implies/ });
  await expect(implied).toBeChecked();
  const grandma = newAccount("gloria");
  await region.getByLabel("Note (optional)").fill("Photos of Mila for you!");
  await region.getByLabel("Their email address (optional)").fill(grandma.email);
  await region.getByLabel("Relationship (optional)").selectOption("grandparent");
  if (isNoJs(testInfo)) {
    // the rule, written out: the server applies it
    await expect(
      region.getByText(
        /Grandparent, Parent's sibling, Cousin: Family, who see the moments you share with Family and Everyone/,
      ),
    ).toBeVisible();
  } else {
    // the choice names the circle and says what she will see, following the relationship
    await expect(implied).toHaveAccessibleName("As the relationship implies (Family)");
    await expect(region.getByText("Whoever joins sees the moments you share with Family and Everyone.")).toBeVisible();
    await region.getByLabel("Relationship (optional)").selectOption("friend");
    await expect(implied).toHaveAccessibleName("As the relationship implies (Friends)");
    await expect(region.getByText("Whoever joins sees the moments you share with Everyone.")).toBeVisible();
    await region.getByLabel("Relationship (optional)").selectOption("grandparent");
    await expect(region.getByText("Whoever joins sees the moments you share with Family and Everyone.")).toBeVisible();
  }
  await screenshot(page, "invitation-form", region.getByLabel("Their email address (optional)"), testInfo);
  await expectAccessible(page, browser);
  await region.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page).toHaveURL(/\/current\/friends#new-link$/);
  await expect(
    region.getByText(/Whoever joins by it sees the moments you share with Family and Everyone\./),
  ).toBeVisible();
  await expect(region.getByRole("list", { name: "Pending invitations" }).getByRole("listitem")).toContainText(
    "Family (Grandparent)",
  );
  // the form starts again empty: the note is not carried over to the next invitation
  await expect(region.getByLabel("Note (optional)")).toHaveValue("");
  await expect(region.getByLabel("Their email address (optional)")).toHaveValue("");
  await expect(implied).toBeChecked();
  await expectAccessible(page, browser);

  // ---- Grandma, on her phone, from the mail: her address is already there, her name is all she types
  const mail = await mailTo(grandma.email);
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? "")![0];
  const gloria = await freshPage(browser, testInfo, { viewport: PHONE });
  await gloria.goto(link);
  await expect(gloria.getByRole("heading", { level: 1 })).toHaveText(`${parentName} invited you to Sweet Moments`);
  await expect(
    gloria.getByText(`You will see the moments ${parentName} shares with Family and Everyone.`),
  ).toBeVisible();
  await expect(gloria.getByLabel("Your email address")).toHaveValue(grandma.email);
  await hydrated(gloria);
  await gloria.getByLabel("Your name").fill("Gloria");
  await screenshot(gloria, "join", gloria.getByRole("heading", { level: 1 }), testInfo);
  await expectAccessible(gloria, browser);
  await gloria.getByRole("button", { name: "Join and see the photos" }).click();

  // ---- she lands on the feed: told what she sees, the Family moment there, the Only us one not
  await expect(gloria).toHaveURL(new RegExp(`/feed\\?welcome=${parentId}$`));
  await expect(gloria.getByRole("status")).toHaveText(
    `Welcome! You and ${parentName} are now friends. You see the moments ${parentName} shares with Family and Everyone.`,
  );
  await expect(gloria.getByRole("article", { name: "At the beach" })).toBeVisible(); // Family
  await expect(gloria.getByRole("article", { name: "First tooth" })).toBeVisible(); // Everyone
  await expect(gloria.getByRole("article", { name: "Just for us" })).toHaveCount(0);
  // (a new account is offered a passkey above the feed: the screenshot starts at the welcome)
  await screenshot(gloria, "feed", gloria.getByRole("heading", { name: "Feed", level: 1 }), testInfo);
  await expectAccessible(gloria, browser);

  // ---- My Kids: the family's kid and its news, not "No kids found"
  await gloria.goto("/my-kids-list");
  const seen = gloria.getByRole("region", { name: "Kids you see" });
  await expect(seen.getByRole("link", { name: "Mila" })).toBeVisible();
  await expect(seen.getByRole("link", { name: "At the beach" })).toBeVisible(); // her newest moment Gloria sees
  await expect(gloria.getByRole("region", { name: "Family news" }).getByRole("article").first()).toBeVisible();
  await expect(gloria.getByRole("link", { name: "Add your own kid" })).toBeVisible();
  await expect(gloria.getByText("No kids found. Please add your kid.")).toHaveCount(0);
  await expectAccessible(gloria, browser);

  // ---- the parent is told exactly what she sees
  await page.goto("/notifications");
  await expect(
    page.getByRole("link", {
      name: "Gloria accepted your invitation and sees the moments you share with Family and Everyone",
    }),
  ).toBeVisible();
  await gloria.context().close();
});
