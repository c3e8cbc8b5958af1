import { describe, expect, it } from "vitest";
import * as settings from "./settings";
import * as del from "./settings-delete";
import * as loginLink from "./login-link";
import { db } from "~/lib/db.server";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { getAccount } from "~/models/account.server";
import { listSessions } from "~/models/sessions.server";

// docs/spec.md §2: the settings pages' forms, as a browser without JavaScript posts them.

type Answer = {
  type?: string;
  data?: { intent: string; result?: { error?: Record<string, string[]> }; error?: string };
  init?: { status?: number };
};

async function post(
  mod: { action: (a: never) => Promise<unknown> },
  path: string,
  cookie: string,
  form: Record<string, string>,
) {
  try {
    return (await mod.action(args(req(path, { cookie, form })))) as Answer | Response;
  } catch (thrown) {
    return thrown as Response;
  }
}

describe("/settings", () => {
  it("shows the account and its sessions, the current one marked", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    await cookieFor(u);
    const page = await settings.loader(args(req("/settings", { cookie })));
    expect(page.account).toMatchObject({ username: u.username, email: u.email, has_password: true });
    expect(page.sessions.map((s) => s.current).sort()).toEqual([false, true]);
    expect(page.sessions[0]).toMatchObject({ device: "Unknown browser", lastSeen: expect.stringMatching(/\d{4}$/) });
  });

  it("answers field errors with 400 and saves a valid form with a redirect (post, redirect, get)", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    const bad = (await post(settings, "/settings", cookie, {
      intent: "profile",
      username: u.username,
      email: "not-an-email",
      first_name: "Al1",
    })) as Answer;
    expect(bad.init?.status).toBe(400);
    expect(bad.data?.result?.error).toEqual({
      email: ["Please provide a valid email."],
      first_name: ["First name can contain only letters, spaces, hyphens, apostrophes and periods."],
    });

    const ok = (await post(settings, "/settings", cookie, {
      intent: "profile",
      username: u.username,
      email: u.email,
      first_name: "Alice",
      last_name: "",
    })) as Response;
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/settings?done=profile");
    expect(await getAccount(u.id)).toMatchObject({ first_name: "Alice", last_name: null });

    const pw = (await post(settings, "/settings", cookie, {
      intent: "password",
      current_password: "secret1",
      password: "abc",
      confirmPassword: "abc",
    })) as Answer;
    expect(pw.data?.result?.error).toEqual({ password: ["Password must be between 6 and 128 characters."] });
  });

  it("signs out everywhere else, keeping this session", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    await cookieFor(u);
    await cookieFor(u);
    const res = (await post(settings, "/settings", cookie, { intent: "end-others" })) as Response;
    expect(res.headers.get("Location")).toBe("/settings?done=others");
    expect((await listSessions(u.id, null)).length).toBe(1);
    const page = await settings.loader(args(req("/settings", { cookie })));
    expect(page.sessions.map((s) => s.current)).toEqual([true]);
  });
});

describe("/settings/delete", () => {
  it("says what goes, refuses a wrong password, then deletes and signs out", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    const page = await del.loader(args(req("/settings/delete", { cookie })));
    expect(page.hasPassword).toBe(true);
    expect(page.summary[1]).toBe("0 kids and 0 moments, with their likes and comments");
    const wrong = (await post(del, "/settings/delete", cookie, { password: "nope12" })) as Answer;
    expect(wrong.init?.status).toBe(400);
    expect(wrong.data?.result?.error).toEqual({ password: ["The password is incorrect."] });
    const ok = (await post(del, "/settings/delete", cookie, { password: "secret1" })) as Response;
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/?deleted=1");
    expect(ok.headers.get("Set-Cookie")).toMatch(/sm_session=;/);
    expect(await getAccount(u.id)).toBeNull();
  });

  it("an account without a password: 'Email me a sign-in link' sends a link that signs in again and leads back here, where deleting then works", async () => {
    const u = await makeUser();
    await db()("users").where("id", u.id).update({ password_hash: "" });
    const cookie = await cookieFor(u);
    // a session that signed in long ago
    await db()("sessions")
      .where("user_id", u.id)
      .update({ created_at: new Date(Date.now() - 60 * 60_000).toISOString() });
    const page = await del.loader(args(req("/settings/delete", { cookie })));
    expect(page).toMatchObject({ hasPassword: false, signedInRecently: false, email: u.email });
    expect(page.summary).toContain(
      "your invitations and sign-in links, and the emails to you, from you or about your moments",
    );
    const refused = (await post(del, "/settings/delete", cookie, {})) as Answer;
    expect(refused.init?.status).toBe(400);
    expect(await getAccount(u.id)).not.toBeNull();

    const asked = (await post(del, "/settings/delete", cookie, { intent: "email-link" })) as Response;
    expect(asked.status).toBe(303);
    expect(asked.headers.get("Location")).toBe("/settings/delete?sent=1");
    const [mail] = await db()("mail_messages").where("to_address", u.email);
    expect(mail.text_body).toContain("then you can delete your account within 10 minutes");
    const path = /http:\/\/[^/\s]+(\/login\/link\/[A-Za-z0-9_-]+\?then=delete)/.exec(mail.text_body)![1]!;

    const used = (await loginLink.action(
      args(req(path, { form: {} }), { token: path.split("/")[3]!.split("?")[0]! }),
    )) as Response;
    expect(used.status).toBe(303);
    expect(used.headers.get("Location")).toBe("/settings/delete");
    const fresh = used.headers.get("Set-Cookie")!.split(";")[0]!;
    expect((await del.loader(args(req("/settings/delete", { cookie: fresh })))).signedInRecently).toBe(true);
    const ok = (await post(del, "/settings/delete", fresh, {})) as Response;
    expect(ok.headers.get("Location")).toBe("/?deleted=1");
    expect(await getAccount(u.id)).toBeNull();
  });

  it("a sign-in link leads only where the fixed list says (then=delete), never to a URL from the request", async () => {
    const { linkThen } = await import("~/models/sign-in-links.server");
    expect(linkThen("delete")).toBe("delete");
    expect(linkThen("https://evil.test/")).toBeUndefined();
    expect(linkThen(null)).toBeUndefined();
  });
});
