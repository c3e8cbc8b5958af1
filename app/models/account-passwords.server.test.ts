import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { verifyPassword, hasPassword } from "~/lib/password.server";
import { makeUser } from "../../tests/helpers";
import { changePassword, getAccount, FRESH_SIGN_IN_MS } from "./account.server";
import {
  createSession,
  endOtherSessions,
  endSessionByHandle,
  getSessionUser,
  LAST_SEEN_EVERY_MS,
  linkSignInAt,
  listSessions,
  sessionStartedAt,
} from "./sessions.server";
import { checkCredentials } from "~/web/auth.server";

// docs/spec.md §2: the account's password and sessions (its other settings and its deletion:
// account.server.test.ts).

describe("passwords", () => {
  it("changePassword asks for the current one, and sets a first one on an account without", async () => {
    const u = await makeUser();
    expect(
      await changePassword(u.id, { current_password: undefined, password: "newpass1", confirmPassword: "newpass1" }),
    ).toMatchObject({ ok: false, fieldErrors: { current_password: ["Enter your current password."] } });
    expect(
      await changePassword(u.id, { current_password: "nope", password: "newpass1", confirmPassword: "newpass1" }),
    ).toMatchObject({ ok: false });
    expect(
      await changePassword(u.id, { current_password: "secret1", password: "newpass1", confirmPassword: "newpass1" }),
    ).toMatchObject({ ok: true });
    await expect(checkCredentials(u.email, "newpass1", "test-a")).resolves.toMatchObject({ id: u.id });

    const free = await makeUser();
    await db()("users").where("id", free.id).update({ password_hash: "" });
    expect((await getAccount(free.id))?.has_password).toBe(false);
    expect(
      await changePassword(free.id, { current_password: undefined, password: "first11", confirmPassword: "first11" }),
    ).toMatchObject({ ok: true });
    expect((await getAccount(free.id))?.has_password).toBe(true);
  });

  it("just after a sign-in by an emailed link a new password needs no current one; later, or after a password log-in, it does", async () => {
    const u = await makeUser();
    const next = { current_password: undefined, password: "fresh12", confirmPassword: "fresh12" };
    const stale = new Date(Date.now() - FRESH_SIGN_IN_MS - 60_000).toISOString();
    expect(await changePassword(u.id, next, { linkSignInAt: stale })).toMatchObject({
      ok: false,
      fieldErrors: { current_password: ["Enter your current password."] },
    });
    expect(await changePassword(u.id, next, { linkSignInAt: null })).toMatchObject({ ok: false });
    expect(await changePassword(u.id, next, { linkSignInAt: new Date().toISOString() })).toMatchObject({ ok: true });
    await expect(checkCredentials(u.email, "fresh12", "test-b")).resolves.toMatchObject({ id: u.id });
    // a wrong current password is still refused, fresh or not
    expect(
      await changePassword(u.id, { ...next, current_password: "wrong99" }, { linkSignInAt: new Date().toISOString() }),
    ).toMatchObject({ ok: false });
  });

  it("only a session started by a link from the user's own email counts as a link sign-in", async () => {
    const u = await makeUser();
    const parent = await makeUser();
    const byPassword = await createSession(u.id, "x");
    const byEmailedLink = await createSession(u.id, "x", { madeBy: null });
    const byParentsLink = await createSession(u.id, "x", { madeBy: parent.id });
    expect(await linkSignInAt(byPassword.token)).toBeNull();
    expect(await linkSignInAt(byParentsLink.token)).toBeNull();
    const at = await linkSignInAt(byEmailedLink.token);
    expect(at).toBe(await sessionStartedAt(byEmailedLink.token));
    expect(await linkSignInAt(null)).toBeNull();
    expect(await linkSignInAt("not-a-session")).toBeNull();
  });

  it("an empty hash holds no password and never logs in", async () => {
    expect(hasPassword("")).toBe(false);
    expect(await verifyPassword("", "")).toBe(false);
    const u = await makeUser();
    await db()("users").where("id", u.id).update({ password_hash: "" });
    await expect(checkCredentials(u.email, "", "test-b")).rejects.toMatchObject({ status: 401 });
    await expect(checkCredentials(u.email, "anything", "test-b")).rejects.toMatchObject({ status: 401 });
  });
});

describe("sessions", () => {
  it("lists the user's sessions with their browser, ends one by its handle, then every other", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const mine = await createSession(u.id, "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0");
    await createSession(
      u.id,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    );
    await createSession(u.id, null);
    const theirs = await createSession(other.id, "curl/8.0");
    const list = await listSessions(u.id, mine.token);
    expect(list.map((s) => [s.device, s.current]).sort()).toEqual([
      ["Firefox on Linux", true],
      ["Safari on iPhone", false],
      ["Unknown browser", false],
    ]);
    expect(list.every((s) => /^[A-Za-z0-9_-]{16}$/.test(s.id))).toBe(true);

    // another user's session is not found by its handle, and stays
    const [theirHandle] = (await listSessions(other.id, null)).map((s) => s.id);
    expect(await endSessionByHandle(u.id, theirHandle!)).toEqual({
      ok: false,
      kind: "not-found",
      message: "Session not found",
    });
    expect(await endSessionByHandle(u.id, "../x")).toMatchObject({ ok: false, kind: "not-found" });
    const iphone = list.find((s) => s.device === "Safari on iPhone")!;
    expect(await endSessionByHandle(u.id, iphone.id)).toEqual({ ok: true });
    expect((await listSessions(u.id, mine.token)).length).toBe(2);

    expect(await endOtherSessions(u.id, mine.token)).toBe(1);
    expect((await listSessions(u.id, mine.token)).map((s) => s.current)).toEqual([true]);
    expect(await getSessionUser(mine.token)).toMatchObject({ id: u.id });
    expect(await getSessionUser(theirs.token)).toMatchObject({ id: other.id });
  });

  it("writes last seen at most once every few minutes per session", async () => {
    const u = await makeUser();
    const { token } = await createSession(u.id, "x");
    const row = () => db()("sessions").where("user_id", u.id).first("last_seen_at", "created_at");
    const stale = new Date(Date.now() - LAST_SEEN_EVERY_MS - 1000).toISOString();
    const recent = new Date(Date.now() - LAST_SEEN_EVERY_MS + 60_000).toISOString();
    await db()("sessions").where("user_id", u.id).update({ last_seen_at: recent });
    await getSessionUser(token);
    expect((await row())?.last_seen_at).toBe(recent); // fresh enough: no write
    await db()("sessions").where("user_id", u.id).update({ last_seen_at: stale });
    await getSessionUser(token);
    expect(Date.parse((await row())!.last_seen_at)).toBeGreaterThan(Date.parse(recent));
  });
});
