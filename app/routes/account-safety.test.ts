import { beforeEach, describe, expect, it } from "vitest";
import * as settings from "./settings";
import * as loginEmail from "./login-email";
import * as loginLink from "./login-link";
import * as emailUndo from "./email-undo";
import * as apiAccount from "./api/users-current";
import * as apiPassword from "./api/users-current-password";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { verifyPassword } from "~/lib/password.server";
import { getAccount } from "~/models/account.server";
import { createInvitation } from "~/models/invitations.server";
import { joinByInvitation } from "~/models/invitation-join.server";
import { getUserWithPasswordByEmail, signUp } from "~/models/users.server";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { type Answer, cookieOf, lastMailTo, linkIn, post, signedIn } from "../../tests/kit/account-safety";

// Account safety (docs/decisions/0039-account-safety.md): a new password ends the other sessions,
// an email change can be undone from the old address (a parent's sign-in links for a relative:
// relative-sign-in-links.test.ts). Pages as a browser without JavaScript posts
// them, the API as a client calls it; mail read from the real queue.

beforeEach(() => resetLimits());

describe("a new password ends every other session", () => {
  it("on the settings page: the other devices are signed out, this one stays, and the page says so", async () => {
    const u = await makeUser();
    const here = await cookieFor(u);
    const elsewhere = await cookieFor(u);
    const res = (await post(
      settings,
      "/settings",
      { intent: "password", current_password: "secret1", password: "better1", confirmPassword: "better1" },
      here,
    )) as Response;
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/settings?done=password");
    expect(await signedIn(elsewhere)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    const page = await settings.loader(args(req("/settings?done=password", { cookie: here })));
    expect(page.done).toBe(
      "Your password has been saved. Every other session has been signed out: log in there again with the new password.",
    );
    expect(page.sessions.map((s) => s.current)).toEqual([true]);
  });

  it("after 'Forgot your password?': the emailed link signs in, the new password ends every other session", async () => {
    const u = await makeUser();
    const thief = await cookieFor(u);
    const asked = (await post(loginEmail, "/login/email", { email: u.email, reset: "1" })) as Response;
    expect(asked.headers.get("Location")).toBe("/login/email?sent=1&reset=1");
    const [, path, token] = linkIn((await lastMailTo(u.email)).text_body, "/login/link")!;
    const used = (await post(loginLink, path!, {}, undefined, { token: token! })) as Response;
    expect(used.headers.get("Location")).toBe("/settings#password");
    const fresh = cookieOf(used);
    const res = (await post(
      settings,
      "/settings",
      { intent: "password", password: "better1", confirmPassword: "better1" },
      fresh,
    )) as Response;
    expect(res.headers.get("Location")).toBe("/settings?done=password");
    expect(await signedIn(thief)).toBe(false);
    expect(await signedIn(fresh)).toBe(true);
  });

  it("after an emailed link the page asks no current password, and neither does /api; after a password log-in both do", async () => {
    const u = await makeUser();
    const byPassword = await cookieFor(u); // how tests sign in: as a log-in with the password does
    await post(loginEmail, "/login/email", { email: u.email, reset: "1" });
    const [, path, token] = linkIn((await lastMailTo(u.email)).text_body, "/login/link")!;
    const byLink = cookieOf((await post(loginLink, path!, {}, undefined, { token: token! })) as Response);
    const page = (cookie: string) => settings.loader(args(req("/settings", { cookie })));
    expect((await page(byLink)).freshLinkSignIn).toBe(true);
    expect((await page(byPassword)).freshLinkSignIn).toBe(false);

    const put = (cookie: string, path: string, json: Record<string, unknown>) =>
      (path.endsWith("password") ? apiPassword : apiAccount).action(args(req(path, { method: "PUT", cookie, json })));
    const long = "correct horse battery staple ".repeat(4).slice(0, 100);
    const newPassword = { password: long, confirmPassword: long };
    const refused = await put(byPassword, "/api/users/current/password", newPassword);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: { current_password: ["Enter your current password."] } });
    const details = { username: `linked${u.id}`, email: u.email, first_name: "Bo", last_name: "Li" };
    expect((await put(byPassword, "/api/users/current", details)).status).toBe(400);

    const set = await put(byLink, "/api/users/current/password", newPassword);
    expect(set.status).toBe(200);
    expect(await signedIn(byPassword)).toBe(false); // the new password ended the other session
    expect(await verifyPassword(long, (await getUserWithPasswordByEmail(u.email))!.password_hash)).toBe(true);
    const renamed = await put(byLink, "/api/users/current", details);
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ username: `linked${u.id}`, first_name: "Bo", last_name: "Li" });

    // ten minutes on, the link no longer stands in for the password
    await db()("sessions").update({ created_at: new Date(Date.now() - 11 * 60_000).toISOString() });
    expect((await page(byLink)).freshLinkSignIn).toBe(false);
    expect((await put(byLink, "/api/users/current/password", newPassword)).status).toBe(400);
  });

  it("PUT /api/users/current/password ends every other session and says how many", async () => {
    const u = await makeUser();
    const here = await cookieFor(u);
    const elsewhere = [await cookieFor(u), await cookieFor(u)];
    const res = await apiPassword.action(
      args(
        req("/api/users/current/password", {
          method: "PUT",
          cookie: here,
          json: { current_password: "secret1", password: "better1", confirmPassword: "better1" },
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      message: "Your password is saved. Every other session is signed out.",
      other_sessions_ended: 2,
    });
    for (const cookie of elsewhere) expect(await signedIn(cookie)).toBe(false);
    expect(await signedIn(here)).toBe(true);
  });
});

describe("an email change can be undone from the old address", () => {
  it("the old address gets a notice with a link (7 days) that puts it back, removes the password and signs out everywhere", async () => {
    const u = await makeUser();
    const oldEmail = u.email;
    const owner = await cookieFor(u);
    const taker = await cookieFor(u);
    // whoever has a session (and the password) moves the account to their address and sets their password
    const moved = (await post(
      settings,
      "/settings",
      {
        intent: "profile",
        username: u.username,
        email: `taker${u.id}@example.com`,
        first_name: u.first_name ?? "",
        last_name: u.last_name ?? "",
        current_password: "secret1",
      },
      taker,
    )) as Response;
    expect(moved.headers.get("Location")).toBe("/settings?done=profile");
    await post(
      settings,
      "/settings",
      { intent: "password", current_password: "secret1", password: "taken12", confirmPassword: "taken12" },
      taker,
    );
    expect(await signedIn(taker)).toBe(true);

    const notice = await lastMailTo(oldEmail);
    expect(notice).toMatchObject({ kind: "email-changed", subject: "Your Sweet Moments email address was changed" });
    expect(notice.text_body).toContain(`changed from ${oldEmail} to taker${u.id}@example.com`);
    const [, path, token] = linkIn(notice.text_body, "/email/undo")!;
    const row = await db()("email_changes").where("user_id", u.id).first();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBeGreaterThanOrEqual(7 * 24 * 60 * 60_000);
    expect(JSON.stringify(row)).not.toContain(token);

    // opening the link (a mail scanner, a preview) changes nothing
    expect(await emailUndo.loader(args(req(path!), { token: token! }))).toEqual({ state: "valid", oldEmail });
    expect((await getAccount(u.id))!.email).toBe(`taker${u.id}@example.com`);

    const undone = (await post(emailUndo, path!, {}, undefined, { token: token! })) as Response;
    expect(undone.status).toBe(303);
    expect(undone.headers.get("Location")).toBe("/settings?done=email-undone#password");
    const account = await getAccount(u.id);
    expect(account).toMatchObject({ email: oldEmail, has_password: false });
    expect(await signedIn(taker)).toBe(false);
    expect(await signedIn(owner)).toBe(false);
    // the one who clicked is signed in, to choose a new password
    const back = cookieOf(undone);
    expect(await signedIn(back)).toBe(true);
    const page = await settings.loader(args(req("/settings?done=email-undone", { cookie: back })));
    expect(page.done).toContain("The email change is undone");
    expect(page.account).toMatchObject({ email: oldEmail, has_password: false });
    expect((await getUserWithPasswordByEmail(oldEmail))!.password_hash).toBe("");

    // once only
    const again = (await post(emailUndo, path!, {}, undefined, { token: token! })) as Answer;
    expect(again.init?.status).toBe(409);
    expect(await emailUndo.loader(args(req(path!), { token: token! }))).toEqual({ state: "used", oldEmail: null });
  });

  it("PUT /api/users/current sends the same notice; undoing retires the undo link of a later change", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    const put = (email: string, current_password?: string) =>
      apiAccount.action(
        args(
          req("/api/users/current", {
            method: "PUT",
            cookie,
            json: { username: u.username, email, first_name: u.first_name, last_name: u.last_name, current_password },
          }),
        ),
      );
    expect((await put(`second${u.id}@example.com`, "secret1")).status).toBe(200);
    expect((await put(`third${u.id}@example.com`, "secret1")).status).toBe(200);
    const first = linkIn((await lastMailTo(u.email)).text_body, "/email/undo")!;
    const second = linkIn((await lastMailTo(`second${u.id}@example.com`)).text_body, "/email/undo")!;
    expect(((await post(emailUndo, first[1]!, {}, undefined, { token: first[2]! })) as Response).status).toBe(303);
    expect((await getAccount(u.id))!.email).toBe(u.email);
    // the address the account was moved to in between cannot take it back
    expect(((await post(emailUndo, second[1]!, {}, undefined, { token: second[2]! })) as Answer).init?.status).toBe(
      409,
    );
    expect((await getAccount(u.id))!.email).toBe(u.email);
  });
});

describe("the old address stays the account's while the change can be undone", () => {
  it("a sign-up, another account's change or an invitation answered with it cannot take it, so the undo can still put it back", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const cookie = await cookieFor(u);
    const res = await apiAccount.action(
      args(
        req("/api/users/current", {
          method: "PUT",
          cookie,
          json: {
            username: u.username,
            email: `away${u.id}@example.com`,
            first_name: u.first_name,
            last_name: u.last_name,
            current_password: "secret1",
          },
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(await signUp({ email: u.email, username: `squat${u.id}`, password: "secret1" })).toMatchObject({
      ok: false,
      fieldErrors: { email: ["Email address is already in use."] },
    });
    const otherCookie = await cookieFor(other);
    const moved = await apiAccount.action(
      args(
        req("/api/users/current", {
          method: "PUT",
          cookie: otherCookie,
          json: {
            username: other.username,
            email: u.email,
            first_name: other.first_name,
            last_name: other.last_name,
            current_password: "secret1",
          },
        }),
      ),
    );
    expect(moved.status).toBe(400);
    expect(await moved.json()).toEqual({ errors: { email: ["Email address is already in use."] } });
    // nor can a stranger's invitation be answered with it: no account is made, nothing is mailed
    const stranger = await makeUser();
    const invite = await createInvitation(stranger, {}, "https://moments.test");
    if (!invite.ok) throw new Error("refused");
    const mailsBefore = Number((await db()("mail_messages").where("to_address", u.email).count({ n: "*" }).first())!.n);
    expect(
      await joinByInvitation(
        invite.url.split("/").pop(),
        { name: "Squat Ter", email: u.email },
        "https://moments.test",
        { address: "192.0.2.9" },
      ),
    ).toEqual({
      ok: true,
      outcome: "check-email",
    });
    expect(await db()("users").where("email_normalized", u.email).first()).toBeUndefined();
    expect(Number((await db()("mail_messages").where("to_address", u.email).count({ n: "*" }).first())!.n)).toBe(
      mailsBefore,
    );
    const [, path, token] = linkIn((await lastMailTo(u.email)).text_body, "/email/undo")!;
    expect(((await post(emailUndo, path!, {}, undefined, { token: token! })) as Response).status).toBe(303);
    expect((await getAccount(u.id))!.email).toBe(u.email);
  });
});
