import yauzl from "yauzl";
import { describe, expect, it } from "vitest";
import * as current from "./users-current";
import * as password from "./users-current-password";
import * as sessions from "./users-current-sessions";
import * as sessionId from "./users-current-sessions-id";
import * as exportRoute from "./export";
import * as me from "./auth";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { insertKid, insertMoment, storePhoto } from "../../../tests/unit/friends-fixtures";

// docs/api.md, Users: the caller's own account, password, sessions, deletion and export.

describe("GET and PUT /api/users/current", () => {
  it("answers the caller's own account", async () => {
    const u = await makeUser({ first_name: "Ann", last_name: "Lee" });
    const res = await current.loader(args(req("/api/users/current", { cookie: await cookieFor(u) })));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: u.id,
      username: u.username,
      email: u.email,
      first_name: "Ann",
      last_name: "Lee",
      user_image_url: null,
      has_password: true,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it("changes names, username and email (the latter with the current password); envelope (B) for errors", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const cookie = await cookieFor(u);
    const put = (json: unknown) => current.action(args(req("/api/users/current", { method: "PUT", cookie, json })));

    let res = await put({ username: "ab", email: "nope" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: { username: ["Username must be between 3 and 30 characters."], email: ["Please provide a valid email."] },
    });

    res = await put({ username: u.username, email: `moved${u.id}@example.com` });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: { current_password: ["Enter your current password to change your username or email."] },
    });

    res = await put({ username: other.username, email: u.email, current_password: "secret1" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { username: ["Username is already in use."] } });

    res = await put({
      username: `moved${u.id}`,
      email: `Moved${u.id}@example.com`,
      first_name: "New",
      last_name: "",
      current_password: "secret1",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      username: `moved${u.id}`,
      email: `moved${u.id}@example.com`,
      first_name: "New",
      last_name: null,
    });
  });
});

describe("PUT /api/users/current/password", () => {
  it("needs the current password, then the new one logs in", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    const put = (json: unknown) =>
      password.action(args(req("/api/users/current/password", { method: "PUT", cookie, json })));
    let res = await put({ current_password: "wrong1", password: "better1", confirmPassword: "better1" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { current_password: ["The current password is incorrect."] } });
    res = await put({ current_password: "secret1", password: "better1", confirmPassword: "other1" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: { confirmPassword: ["Confirm Password field must be the same as the Password field."] },
    });
    res = await put({ current_password: "secret1", password: "better1", confirmPassword: "better1" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      message: "Your password is saved. Every other session is signed out.",
      other_sessions_ended: 0,
    });
  });
});

describe("sessions", () => {
  it("lists the caller's sessions, ends another one, and answers 404 for one that is not theirs", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const cookie = await cookieFor(u);
    const second = await cookieFor(u);
    const otherCookie = await cookieFor(other);
    const res = await sessions.loader(
      args(req("/api/users/current/sessions", { cookie, headers: { "User-Agent": "x" } })),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      sessions: { id: string; current: boolean; device: string; created_at: string; last_seen_at: string }[];
    };
    expect(body.sessions).toHaveLength(2);
    expect(body.sessions.filter((s) => s.current)).toHaveLength(1);
    expect(Object.keys(body.sessions[0]!).sort()).toEqual(["created_at", "current", "device", "id", "last_seen_at"]);
    const otherOne = body.sessions.find((s) => !s.current)!;

    const theirs = (
      await (await sessions.loader(args(req("/api/users/current/sessions", { cookie: otherCookie })))).json()
    ).sessions[0].id;
    const del = (id: string, c = cookie) =>
      sessionId.action(args(req(`/api/users/current/sessions/${id}`, { method: "DELETE", cookie: c }), { id }));
    let answer = await del(theirs);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ errors: { message: "Session not found" } });

    answer = await del(otherOne.id);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ message: "The session is signed out" });
    // that session's cookie no longer works
    const gone = await me.loader(args(req("/api/auth", { cookie: second })));
    expect(gone.status).toBe(401);
    expect((await del(otherOne.id)).status).toBe(404);
  });
});

describe("DELETE /api/users/current", () => {
  it("needs the password, then deletes the account and ends the session", async () => {
    const u = await makeUser();
    const cookie = await cookieFor(u);
    const del = (json: unknown) => current.action(args(req("/api/users/current", { method: "DELETE", cookie, json })));
    let res = await del({});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { password: ["Enter your password to delete your account."] } });
    res = await del({ password: "secret1" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: "Your account is deleted" });
    expect(res.headers.get("Set-Cookie")).toMatch(/sm_session=;/);
    expect((await me.loader(args(req("/api/auth", { cookie })))).status).toBe(401);
  });
});

describe("GET /api/export", () => {
  it("streams the caller's ZIP", async () => {
    const u = await makeUser();
    const photo = await storePhoto("moment", u.id, "#246");
    await insertMoment(await insertKid(u, "Zed"), "Hello", photo.imageId);
    const res = await exportRoute.loader(args(req("/api/export", { cookie: await cookieFor(u) })));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/zip");
    expect(res.headers.get("Content-Disposition")).toMatch(
      new RegExp(`^attachment; filename="sweet-moments-${u.username}-\\d{4}-\\d{2}-\\d{2}\\.zip"$`),
    );
    expect(res.headers.get("X-Export-Entries")).toBe("4");
    const zip = Buffer.from(await res.arrayBuffer());
    const names = await new Promise<string[]>((resolve, reject) =>
      yauzl.fromBuffer(zip, (err, file) => {
        if (err || !file) return reject(err);
        const out: string[] = [];
        file.on("entry", (e: yauzl.Entry) => out.push(e.fileName.replace(/^[^/]+\//, "")));
        file.on("end", () => resolve(out.sort()));
      }),
    );
    expect(names).toEqual([
      "data.json",
      "index.html",
      "kids/zed.html",
      expect.stringMatching(/^photos\/\d{4}-\d{2}-\d{2} Zed - Hello\.jpg$/),
    ]);
  });
});
