import { describe, expect, it } from "vitest";
import * as settings from "./settings";
import * as del from "./settings-delete";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { getAccount } from "~/models/account.server";
import { listSessions } from "~/models/sessions.server";

// docs/spec.md §2: the settings pages' forms, as a browser without JavaScript posts them.

type Answer = { type?: string; data?: { intent: string; result?: { error?: Record<string, string[]> }; error?: string }; init?: { status?: number } };

async function post(mod: { action: (a: never) => Promise<unknown> }, path: string, cookie: string, form: Record<string, string>) {
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
    const bad = (await post(settings, "/settings", cookie, { intent: "profile", username: u.username, email: "not-an-email", first_name: "Al" })) as Answer;
    expect(bad.init?.status).toBe(400);
    expect(bad.data?.result?.error).toEqual({ email: ["Please provide a valid email."], first_name: ["First name must be between 3 and 30 characters."] });

    const ok = (await post(settings, "/settings", cookie, { intent: "profile", username: u.username, email: u.email, first_name: "Alice", last_name: "" })) as Response;
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/settings?done=profile");
    expect(await getAccount(u.id)).toMatchObject({ first_name: "Alice", last_name: null });

    const pw = (await post(settings, "/settings", cookie, { intent: "password", current_password: "secret1", password: "abc", confirmPassword: "abc" })) as Answer;
    expect(pw.data?.result?.error).toEqual({ password: ["Password must be between 6 and 20 characters."] });
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
});
