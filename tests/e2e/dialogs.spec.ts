import type { Page } from "@playwright/test";
import { expect, hydrated, isNoJs, newAccount, signUp, test } from "./utils";
import { apiCreateKid, apiCreateMoment, jpegFile } from "./kids-helpers";

// Dialogs, focus and titles (docs/spec.md §11): confirm dialogs start on the safe choice and the
// modals' failed forms mark the title "Error: ", with and without JavaScript. What only scripts do
// (focus brought back, Escape on the tooltip, Back after a delete) is in dialogs-js.spec.ts.

test.describe("dialogs and focus", () => {
  test("every confirm dialog opens on its safe choice: Enter keeps the kid, the moment, the comment and the picture", async ({
    page,
  }) => {
    await signUp(page, newAccount("cf"));
    const kid = await apiCreateKid(page.request, { name: "Juno", birth_date: "2021-04-04", relationship: "Mom" });
    const moment = await apiCreateMoment(
      page.request,
      kid.id,
      { title: "Kite", content: "Up it went" },
      await jpegFile(),
    );
    expect(
      (await page.request.post(`/api/comments/${moment.id}/new-comment`, { data: { comment: "Windy!" } })).status(),
    ).toBe(201);
    expect(
      (
        await page.request.post("/api/users/upload-profile-picture", { multipart: { image: await jpegFile("me.jpg") } })
      ).status(),
    ).toBe(201);

    const cases: {
      page: string;
      open: (p: Page) => Promise<void>;
      dialog: string;
      no: string;
      still: (p: Page) => Promise<void>;
    }[] = [
      {
        page: "/my-kids-list",
        open: (p) => p.getByRole("link", { name: "Remove Juno" }).click(),
        dialog: "Confirm Remove",
        no: "No (Keep Kid)",
        still: (p) => expect(p.getByRole("link", { name: "Juno", exact: true })).toBeVisible(),
      },
      {
        page: `/dailyLogs/${moment.id}`,
        open: (p) => p.getByRole("link", { name: "Delete Kite" }).click(),
        dialog: "Confirm Delete",
        no: "No (Keep Daily Log)",
        still: (p) => expect(p.getByRole("heading", { level: 1, name: "Kite" })).toBeVisible(),
      },
      {
        page: `/dailyLogs/${moment.id}`,
        open: (p) => p.locator(".comment").getByRole("link", { name: "Delete" }).click(),
        dialog: "Confirm Delete Comment",
        no: "No (Keep Comment)",
        still: (p) => expect(p.locator(".comment__text")).toHaveText(["Windy!"]),
      },
      {
        page: "/my-kids-list?modal=picture",
        open: (p) => p.getByRole("dialog").getByRole("link", { name: "Delete Image" }).click(),
        dialog: "Confirm Delete",
        no: "No (Keep Image)",
        still: async (p) =>
          expect((await (await p.request.get("/api/auth")).json()).user_image_url).toMatch(/^\/images\//),
      },
    ];
    for (const c of cases) {
      await page.goto(c.page);
      await hydrated(page);
      await c.open(page);
      const dialog = page.getByRole("dialog", { name: c.dialog });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole("link", { name: c.no })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page.getByRole("dialog", { name: c.dialog })).toHaveCount(0);
      await c.still(page);
    }
  });

  test("a failed log-in, sign-up or picture form in a modal marks the title 'Error: '", async ({ page }, testInfo) => {
    const title = () => page.title();
    await page.goto("/?modal=login");
    await hydrated(page);
    const plain = "Sweet Moments";
    await page.getByRole("dialog", { name: "Log In" }).getByRole("button", { name: "Log In" }).click();
    await expect(page.locator(".error-summary")).toBeVisible();
    await expect.poll(title).toMatch(/^Error: /);
    if (!isNoJs(testInfo)) {
      // the errors go with the modal, and so does the prefix
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect.poll(title).not.toMatch(/^Error: /);
      await expect.poll(title).toContain(plain);
    }

    await page.goto("/?modal=signup");
    await hydrated(page);
    await page.getByRole("dialog", { name: "Create your account" }).getByRole("button", { name: "Register" }).click();
    await expect(page.locator(".error-summary")).toBeVisible();
    await expect.poll(title).toMatch(/^Error: /);

    await signUp(page, newAccount("ft"));
    await page.goto("/my-kids-list?modal=picture");
    await hydrated(page);
    await expect.poll(title).not.toMatch(/^Error: /);
    await page
      .getByRole("dialog", { name: "Add Your Profile Picture" })
      .getByRole("button", { name: "Upload" })
      .click();
    await expect(page.locator(".error-summary")).toBeVisible();
    await expect.poll(title).toMatch(/^Error: /);
  });
});
