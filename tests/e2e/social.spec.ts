import type { Page } from "@playwright/test";
import { expectAccessible, expect, isNoJs, ONCE, test } from "./utils";
import { kidWithMoments, momentOf, otherPerson, signUpAs } from "./social-helpers";
import { befriend, closeE2eDb } from "./e2e-db";

// The likes-and-comments block on the moment page (/dailyLogs/<id>), with JavaScript on ("js") and
// off ("nojs"). The moment belongs to another person; the signed-in viewer is their accepted friend.

test.afterAll(async () => {
  await closeE2eDb();
});

function block(page: Page, logId: number) {
  return page.locator(`.moment-social[data-moment="${logId}"]`);
}

test.describe("likes and comments", () => {
  test("like and unlike; the likers on hover, focus and for screen readers; the count labels", async ({
    page,
    browser,
  }, testInfo) => {
    const owner = await otherPerson(browser, testInfo, "own");
    const viewer = await signUpAs(page, "fan");
    await befriend(owner.account.id, viewer.id);
    const logId = await momentOf(owner.account);

    await page.goto(`/dailyLogs/${logId}`);
    const social = block(page, logId);
    await expect(social.getByText("0 likes", { exact: true })).toBeVisible();
    await expect(social.getByText("0 comments", { exact: true })).toBeVisible();
    const like = social.getByRole("button", { name: "Like", exact: true });
    await expect(like).toHaveAttribute("aria-pressed", "false");
    await expectAccessible(page, browser);

    await like.click();
    await expect(like).toHaveAttribute("aria-pressed", "true");
    if (isNoJs(testInfo)) {
      // a plain form post that comes back to the same moment, not the top of the page
      await expect(page).toHaveURL(new RegExp(`/dailyLogs/${logId}#moment-${logId}$`));
    } else {
      // a fetcher: no navigation; once its request is done the server's answer stays
      await expect(like).not.toHaveAttribute("aria-disabled", "true");
      await expect(page).toHaveURL(new RegExp(`/dailyLogs/${logId}$`));
    }
    await expect(like).toHaveAttribute("aria-pressed", "true");
    await expect(like).toHaveClass(/like-button--on/);
    await expect(social.getByRole("button", { name: "1 like", exact: true })).toHaveAccessibleDescription(
      `Liked by ${viewer.username}`,
    );

    // the owner likes it too (through the API): two likers, in order
    const res = await owner.page.request.post(`/api/likes/${logId}/like`);
    expect(res.status()).toBe(201);
    await page.goto(`/dailyLogs/${logId}`);
    const count = social.getByRole("button", { name: "2 likes", exact: true });
    await expect(count).toHaveAccessibleDescription(`Liked by ${viewer.username}, ${owner.account.username}`);
    const tip = social.getByRole("tooltip");
    await expect(tip).toBeHidden();
    await count.hover();
    await expect(tip).toBeVisible();
    await expect(tip).toHaveText(`Liked by ${viewer.username}, ${owner.account.username}`);
    await expectAccessible(page, browser);
    await page.mouse.move(1, 1);
    await expect(tip).toBeHidden();
    await count.focus();
    await expect(tip).toBeVisible();
    if (!isNoJs(testInfo)) {
      await page.keyboard.press("Escape");
      await expect(tip).toBeHidden();
    }

    // unlike (with JavaScript the count is optimistic until the fetcher is done: the reload waits for it)
    const unlike = social.getByRole("button", { name: "Like", exact: true });
    await unlike.click();
    await expect(unlike).toHaveAttribute("aria-pressed", "false");
    await expect(social.getByRole("button", { name: "1 like", exact: true })).toBeVisible();
    await expect(unlike).not.toHaveAttribute("aria-disabled", "true");
    await page.reload();
    await expect(social.getByRole("button", { name: "1 like", exact: true })).toHaveAccessibleDescription(
      `Liked by ${owner.account.username}`,
    );

    // two likes at once never make two rows, and never a 500
    const [a, b] = await Promise.all([
      page.request.post(`/api/likes/${logId}/like`),
      page.request.post(`/api/likes/${logId}/like`),
    ]);
    expect([a.status(), b.status()].sort()).toEqual([201, 400]);
    const likes = await (await page.request.get(`/api/likes/${logId}`)).json();
    expect(likes).toHaveLength(2);
    await owner.close();
  });

  test("add, edit, cancel an edit and delete a comment; blank comments are refused", async ({
    page,
    browser,
  }, testInfo) => {
    const owner = await otherPerson(browser, testInfo, "own");
    const viewer = await signUpAs(page, "fan");
    await befriend(viewer.id, owner.account.id);
    const logId = await momentOf(owner.account);
    await owner.close();

    await page.goto(`/dailyLogs/${logId}`);
    const social = block(page, logId);
    const box = social.getByRole("textbox", { name: "Write a comment" });
    await expect(box).toHaveAttribute("placeholder", "Write a comment...");
    const send = social.getByRole("button", { name: "Send comment" });

    // blank: refused (in the browser with JavaScript, by the server without), nothing is added
    if (!isNoJs(testInfo)) {
      await send.click();
      await expect(social.getByText("Comment is required")).toBeVisible();
      await expect(box).toBeFocused();
    }
    await box.fill("   ");
    await send.click();
    await expect(social.getByText("Comment is required")).toBeVisible();
    await expect(social.getByRole("textbox", { name: "Write a comment" })).toHaveAttribute("aria-invalid", "true");
    await expect(social.getByText("0 comments", { exact: true })).toBeVisible();
    await expectAccessible(page, browser);
    // too long: with JavaScript the schema's message; without, the textarea's maxlength stops at 1000
    await social.getByRole("textbox", { name: "Write a comment" }).fill("x".repeat(1001));
    if (isNoJs(testInfo)) {
      await expect(social.getByRole("textbox", { name: "Write a comment" })).toHaveValue("x".repeat(1000));
    } else {
      await social.getByRole("button", { name: "Send comment" }).click();
      await expect(social.getByText("Comment can not be more than 1000 characters")).toBeVisible();
      await expect(social.getByText("0 comments", { exact: true })).toBeVisible();
    }

    // add two: newest first, the box clears, the count follows
    await box.fill("  What a star!  ");
    await send.click();
    await expect(social.locator(".comment__text")).toHaveText(["What a star!"]);
    await expect(social.getByText("1 comment", { exact: true })).toBeVisible();
    await expect(social.getByRole("textbox", { name: "Write a comment" })).toHaveValue("");
    await expect(social.getByText("Comment is required")).toHaveCount(0);
    await expect(social.locator(".comment__author").first()).toHaveText(`${viewer.first} ${viewer.last}`);
    await expect(social.locator(".comment .photo-icon").first()).toBeVisible();
    if (isNoJs(testInfo)) await expect(page).toHaveURL(/#comment-\d+$/);

    await social.getByRole("textbox", { name: "Write a comment" }).fill("Second one");
    await social.getByRole("button", { name: "Send comment" }).click();
    await expect(social.locator(".comment__text")).toHaveText(["Second one", "What a star!"]);
    await expect(social.getByText("2 comments", { exact: true })).toBeVisible();
    await expect(social.getByRole("textbox", { name: "Write a comment" })).toHaveValue("");

    // edit the older one: it keeps its place
    const first = social.locator(".comment").filter({ hasText: "What a star!" });
    const firstId = (await first.getAttribute("id"))!;
    const firstItem = page.locator(`#${firstId}`);
    await firstItem.getByRole("link", { name: "Edit" }).click();
    const editBox = firstItem.getByRole("textbox", { name: "Edit your comment" });
    await expect(editBox).toHaveValue("What a star!");
    await expectAccessible(page, browser);
    // a blank edit is refused too
    await editBox.fill(" ");
    await firstItem.getByRole("button", { name: "Update" }).click();
    await expect(firstItem.getByText("Comment is required")).toBeVisible();
    await firstItem.getByRole("textbox", { name: "Edit your comment" }).fill("What a superstar!");
    await firstItem.getByRole("button", { name: "Update" }).click();
    await expect(firstItem.getByRole("textbox")).toHaveCount(0);
    await expect(social.locator(".comment__text")).toHaveText(["Second one", "What a superstar! (edited)"]);

    // cancel an edit: nothing changes
    const second = page.locator(
      `#${(await social.locator(".comment").filter({ hasText: "Second one" }).getAttribute("id"))!}`,
    );
    await second.getByRole("link", { name: "Edit" }).click();
    await second.getByRole("textbox", { name: "Edit your comment" }).fill("Changed my mind");
    await second.getByRole("link", { name: "Cancel" }).click();
    await expect(second.getByRole("textbox")).toHaveCount(0);
    await expect(second.locator(".comment__text")).toHaveText("Second one");
    if (!isNoJs(testInfo)) await expect(second.getByRole("link", { name: "Edit" })).toBeFocused();
    await page.reload();
    await expect(social.locator(".comment__text")).toHaveText(["Second one", "What a superstar! (edited)"]);

    // delete: the confirmation first; "No" keeps it
    await second.getByRole("link", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm Delete Comment" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText("Are you sure you want to delete this comment?")).toBeVisible();
    await expectAccessible(page, browser);
    await dialog.getByRole("link", { name: "No (Keep Comment)" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(social.locator(".comment__text")).toHaveText(["Second one", "What a superstar! (edited)"]);

    await second.getByRole("link", { name: "Delete" }).click();
    await page
      .getByRole("dialog", { name: "Confirm Delete Comment" })
      .getByRole("button", { name: "Yes (Delete Comment)" })
      .click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(social.locator(".comment__text")).toHaveText(["What a superstar! (edited)"]);
    await expect(social.getByText("1 comment", { exact: true })).toBeVisible();
    await expect(page).not.toHaveURL(/confirm=/);
  });

  test("the Comment button shows and hides the comments", async ({ page, browser }, testInfo) => {
    const owner = await otherPerson(browser, testInfo, "own");
    const viewer = await signUpAs(page, "fan");
    await befriend(owner.account.id, viewer.id);
    const logId = await momentOf(owner.account);
    expect(
      (
        await owner.page.request.post(`/api/comments/${logId}/new-comment`, {
          data: { comment: "Hello from the owner" },
        })
      ).status(),
    ).toBe(201);
    await owner.close();

    // on the moment's page the section starts open
    await page.goto(`/dailyLogs/${logId}`);
    const social = block(page, logId);
    const text = social.getByText("Hello from the owner");
    await expect(text).toBeVisible();
    const toggle = social.locator("summary", { hasText: "Comment" });
    await toggle.click();
    await expect(text).toBeHidden();
    await toggle.click();
    await expect(text).toBeVisible();
    await expect(social.getByText("1 comment", { exact: true })).toBeVisible();
  });

  test("on the kid's moments page every moment has its block, and posts come back to that moment", async ({
    page,
    browser,
  }, testInfo) => {
    const owner = await otherPerson(browser, testInfo, "own");
    const viewer = await signUpAs(page, "fan");
    await befriend(owner.account.id, viewer.id);
    const { kidId, logIds } = await kidWithMoments(owner.account, 2);
    const [older, newer] = logIds as [number, number];
    await owner.close();

    await page.goto(`/kids/${kidId}/dailyLogs`);
    await expect(page.locator(".moment-social")).toHaveCount(2);
    const target = block(page, older);
    // on a list the comment sections start closed
    const box = target.getByRole("textbox", { name: "Write a comment" });
    await expect(box).toBeHidden();
    await expectAccessible(page, browser);

    await target.getByRole("button", { name: "Like", exact: true }).click();
    await expect(target.getByRole("button", { name: "Like", exact: true })).toHaveAttribute("aria-pressed", "true");
    if (isNoJs(testInfo)) await expect(page).toHaveURL(new RegExp(`/kids/${kidId}/dailyLogs#moment-${older}$`));
    await expect(target.getByRole("button", { name: "1 like", exact: true })).toBeVisible();
    await expect(block(page, newer).getByText("0 likes", { exact: true })).toBeVisible();
    await expect(block(page, newer).getByRole("button", { name: "Like", exact: true })).toHaveAttribute(
      "aria-pressed",
      "false",
    );

    // a link to ?showComments= before the scripts run and without them, a <details> summary after
    await target.locator(".comment-toggle").click();
    await expect(box).toBeVisible();
    await box.fill("Lovely day");
    await target.getByRole("button", { name: "Send comment" }).click();
    await expect(target.locator(".comment__text")).toHaveText(["Lovely day"]);
    await expect(target.getByText("1 comment", { exact: true })).toBeVisible();
    await expect(block(page, newer).getByText("0 comments", { exact: true })).toBeVisible();
    if (isNoJs(testInfo))
      await expect(page).toHaveURL(new RegExp(`/kids/${kidId}/dailyLogs\\?showComments=${older}#comment-\\d+$`));
    await expectAccessible(page, browser);
  });

  test(
    "a non-author sees no Edit or Delete, and the server refuses their forged requests",
    ONCE,
    async ({ page, browser }, testInfo) => {
      const owner = await otherPerson(browser, testInfo, "own");
      const viewer = await signUpAs(page, "fan");
      await befriend(owner.account.id, viewer.id);
      const logId = await momentOf(owner.account);
      const made = await owner.page.request.post(`/api/comments/${logId}/new-comment`, {
        data: { comment: "Owner's words" },
      });
      const commentId = (await made.json()).id as number;
      await owner.close();

      await page.goto(`/dailyLogs/${logId}`);
      const item = page.locator(`#comment-${commentId}`);
      await expect(item.getByText("Owner's words")).toBeVisible();
      await expect(item.getByRole("link", { name: "Edit" })).toHaveCount(0);
      await expect(item.getByRole("link", { name: "Delete" })).toHaveCount(0);
      // the URL states do nothing for someone else's comment
      await page.goto(`/dailyLogs/${logId}?editComment=${commentId}`);
      await expect(item.getByRole("textbox")).toHaveCount(0);
      await page.goto(`/dailyLogs/${logId}?confirm=delete-comment&commentId=${commentId}`);
      await expect(page.getByRole("dialog")).toHaveCount(0);

      // forged form posts to the block's action
      const edit = await page.request.post(`/dailyLogs/${logId}/social`, {
        form: {
          intent: "edit-comment",
          commentId: String(commentId),
          comment: "hacked",
          returnTo: `/dailyLogs/${logId}`,
        },
        maxRedirects: 0,
      });
      expect(edit.status()).toBe(403);
      const del = await page.request.post(`/dailyLogs/${logId}/social`, {
        form: { intent: "delete-comment", commentId: String(commentId), returnTo: `/dailyLogs/${logId}` },
        maxRedirects: 0,
      });
      expect(del.status()).toBe(403);
      // and the API
      const apiEdit = await page.request.put(`/api/comments/${commentId}/update`, { data: { comment: "hacked" } });
      expect(apiEdit.status()).toBe(403);
      expect(await apiEdit.json()).toEqual({ error: { message: "You are not authorized to edit this comment" } });
      const apiDel = await page.request.delete(`/api/comments/${commentId}`);
      expect(apiDel.status()).toBe(403);
      expect(await apiDel.json()).toEqual({ error: { message: "You are not authorized to delete this comment" } });

      await page.goto(`/dailyLogs/${logId}`);
      await expect(item.locator(".comment__text")).toHaveText("Owner's words");
    },
  );

  test(
    "someone who is not an accepted friend can neither see, like nor comment",
    ONCE,
    async ({ page, browser }, testInfo) => {
      const owner = await otherPerson(browser, testInfo, "own");
      const pendingFriend = await signUpAs(page, "pnd");
      await befriend(pendingFriend.id, owner.account.id, "pending");
      const logId = await momentOf(owner.account);
      await owner.close();

      const res = await page.goto(`/dailyLogs/${logId}`);
      expect(res?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
      const like = await page.request.post(`/dailyLogs/${logId}/social`, { form: { intent: "like" }, maxRedirects: 0 });
      expect(like.status()).toBe(404);
      const comment = await page.request.post(`/dailyLogs/${logId}/social`, {
        form: { intent: "comment", comment: "hi" },
        maxRedirects: 0,
      });
      expect(comment.status()).toBe(404);
      expect((await page.request.get(`/api/likes/${logId}`)).status()).toBe(403);
      expect((await page.request.post(`/api/likes/${logId}/like`)).status()).toBe(403);
      expect((await page.request.get(`/api/comments/${logId}/comments`)).status()).toBe(403);
      expect(
        (await page.request.post(`/api/comments/${logId}/new-comment`, { data: { comment: "hi" } })).status(),
      ).toBe(403);
    },
  );
});
