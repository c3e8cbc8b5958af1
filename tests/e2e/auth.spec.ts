import {
  expectAccessible,
  expect,
  hydrated,
  isNoJs,
  logIn,
  newAccount,
  signUp,
  signUpThroughForm,
  test,
} from "./utils";

test.describe("accounts", () => {
  test("landing page: tagline, entry points, accessible", async ({ page, browser }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Your Daily Dose Of Joy And Connection" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Sweet Moments" })).toHaveAttribute("href", "/");
    await expect(page.getByRole("button", { name: "Try the Demo User" })).toBeVisible();
    await expect(page.getByText("Code repository")).toBeVisible();
    await expectAccessible(page, browser);
  });

  test("sign up through the modal, then log out and log back in", async ({ page, browser, context }) => {
    await page.goto("/");
    await page.locator("details.profile-menu summary").click();
    await page.locator(".profile-menu").getByRole("link", { name: "Sign Up" }).click();
    const dialog = page.getByRole("dialog", { name: "Create your account" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText("Registration is easy")).toBeVisible();
    await expectAccessible(page, browser);
    await dialog.getByRole("link", { name: "Close" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);

    const account = await signUpThroughForm(page, newAccount("sign"));
    await expect(page.getByRole("heading", { name: "My Kids" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Sweet Moments" })).toHaveAttribute("href", "/my-kids-list");

    // the menu shows who is signed in
    await page.locator("details.profile-menu summary").click();
    await expect(page.locator(".profile-menu__username")).toHaveText(account.username);
    await expect(page.locator(".profile-menu__email")).toHaveText(account.email);
    await expect(page.getByRole("link", { name: "Add profile picture" })).toBeVisible();
    await expect(page.locator(".profile-menu").getByRole("link", { name: "Friends" })).toHaveAttribute(
      "href",
      "/current/friends",
    );

    const oldCookies = await context.cookies();
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/$/);
    await page.reload();
    await page.locator("details.profile-menu summary").click();
    await expect(page.locator(".profile-menu").getByRole("link", { name: "Log In" })).toBeVisible();

    // the old cookie is worthless now
    const session = oldCookies.find((c) => c.name === "sm_session")!;
    const res = await page.request.get("/api/auth/", { headers: { Cookie: `sm_session=${session.value}` } });
    expect(res.status()).toBe(401);

    await logIn(page, account.email.toUpperCase(), account.password);
    await expect(page.getByRole("heading", { name: "My Kids" })).toBeVisible();
  });

  test("every sign-up message, in the summary and beside the field", async ({ page, browser }, testInfo) => {
    await page.goto("/?modal=signup");
    // with JavaScript, click once the page is interactive (before that, the click is a no-JS post)
    await hydrated(page);
    const dialog = page.getByRole("dialog", { name: "Create your account" });
    await dialog.getByRole("button", { name: "Register" }).click();
    // without JS the server answers on the standalone page, with the same form and messages
    const scope = isNoJs(testInfo) ? page.locator("main") : dialog;
    const expected = [
      "The email is required.",
      "The username is required.",
      "First name is required.",
      "Last name is required.",
      "The password is required.",
      "The confirmPassword is required.",
    ];
    const summary = scope.locator(".error-summary");
    await expect(summary).toBeFocused();
    for (const message of expected) {
      await expect(summary.getByRole("link", { name: message })).toBeVisible();
      await expect(scope.locator(".field-error", { hasText: message })).toBeVisible();
    }
    if (isNoJs(testInfo)) await expect(page).toHaveTitle(/^Error: /);
    // the field points at its message
    const email = scope.getByLabel("Email");
    const describedBy = await email.getAttribute("aria-describedby");
    await expect(scope.locator(`[id="${describedBy}"]`)).toContainText("The email is required.");
    await expectAccessible(page, browser);

    await scope.getByLabel("Email").fill("not-an-email");
    await scope.getByLabel("Username").fill("ab");
    await scope.getByLabel("First name").fill("Al1");
    await scope.getByLabel("Last name").fill("B".repeat(51));
    await scope.getByLabel("Password", { exact: true }).fill("12345");
    await scope.getByLabel("Confirm password").fill("54321");
    await scope.getByRole("button", { name: "Register" }).click();
    const scope2 = isNoJs(testInfo) ? page.locator("main") : dialog;
    for (const message of [
      "Please provide a valid email.",
      "Username must be between 3 and 30 characters.",
      "First name can contain only letters, spaces, hyphens, apostrophes and periods.",
      "Last name must be 50 characters or fewer.",
      "Password must be between 6 and 128 characters.",
      "Confirm Password field match the Password.",
    ]) {
      await expect(scope2.locator(".field-error", { hasText: message })).toBeVisible();
    }
    // the answers are re-shown (not the passwords)
    await expect(scope2.getByLabel("Email")).toHaveValue("not-an-email");
  });

  test("the older sign-up page and its own messages", async ({ page, browser }) => {
    await page.goto("/signup");
    await expect(page.getByRole("heading", { name: "Sign Up" })).toBeVisible();
    await page.getByLabel("Email").fill("old-page@example.com");
    await page.getByLabel("Username").fill("oldpageuser");
    await page.getByLabel("Password", { exact: true }).fill("secret12");
    await page.getByLabel("Confirm password").fill("secret13");
    await page.getByRole("button", { name: "Sign Up" }).click();
    await expect(
      page.locator(".field-error", { hasText: "Confirm Password field must be the same as the Password field." }),
    ).toBeVisible();
    await expectAccessible(page, browser);
    const account = newAccount("old");
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Username").fill(account.username);
    await page.getByLabel("Password", { exact: true }).fill(account.password);
    await page.getByLabel("Confirm password").fill(account.password);
    await page.getByRole("button", { name: "Sign Up" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await page.locator("details.profile-menu summary").click();
    await expect(page.locator(".profile-menu__username")).toHaveText(account.username);
  });

  test("every log-in message; a wrong password does not say which part was wrong", async ({
    page,
    browser,
  }, testInfo) => {
    await page.goto("/login");
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.locator(".error-summary")).toBeFocused();
    await expect(page.locator(".field-error", { hasText: "Email is required." })).toBeVisible();
    await expect(page.locator(".field-error", { hasText: "Password is required." })).toBeVisible();
    await expect(page).toHaveTitle(/^Error: Log In/);
    await expectAccessible(page, browser);

    await page.getByLabel("Email").fill("nope");
    await page.getByLabel("Password").fill("123");
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.locator(".field-error", { hasText: "Please provide a valid email." })).toBeVisible();
    await expect(
      page.locator(".field-error", { hasText: "Password must be between 6 and 128 characters." }),
    ).toBeVisible();

    await page.getByLabel("Email").fill(`nobody${testInfo.project.name}@example.com`);
    await page.getByLabel("Password").fill("wrongpass");
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.locator(".field-error", { hasText: "Invalid email or password." })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue(`nobody${testInfo.project.name}@example.com`);
  });

  test("too many failed log-ins for one account are refused for a while", async ({ page }) => {
    const account = await signUp(page, newAccount("lock"));
    await page.context().clearCookies();
    for (let i = 0; i < 5; i++) {
      await page.goto("/login");
      await page.getByLabel("Email").fill(account.email);
      await page.getByLabel("Password").fill("wrongpass");
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.locator(".field-error", { hasText: "Invalid email or password." })).toBeVisible();
    }
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(
      page.locator(".field-error", { hasText: /Too many attempts\. Try again in \d+ minutes?\./ }),
    ).toBeVisible();
  });

  test("Demo User logs in as the demo account", async ({ page }) => {
    await page.goto("/?modal=login");
    const dialog = page.getByRole("dialog", { name: "Log In" });
    await dialog.getByRole("button", { name: "Demo User" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await page.locator("details.profile-menu summary").click();
    await expect(page.locator(".profile-menu__email")).toHaveText("demo@aa.io");
  });

  test("guards: signed-out visitors go to log in and come back; signed-in visitors skip log in", async ({ page }) => {
    await page.goto("/current/friends?x=1");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fcurrent%2Ffriends%3Fx%3D1$/);
    const account = newAccount("guard");
    // sign up in another way, then log in from the guarded page
    await signUp(page, account);
    await page.locator("details.profile-menu summary").click();
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/$/);
    await page.goto("/my-kids-list");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fmy-kids-list$/);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page).toHaveURL(/\/my-kids-list$/);
    await page.goto("/login");
    await expect(page).toHaveURL(/\/$/);
    await page.goto("/signup");
    await expect(page).toHaveURL(/\/$/);
    // an open redirect is not possible
    await page.goto("/login?redirectTo=//evil.example/x");
    await expect(page).toHaveURL(/\/$/);
  });

  test("an unknown page is a plain not-found page", async ({ page, browser }) => {
    const res = await page.goto("/no/such/page");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expectAccessible(page, browser);
  });
});
