import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import * as usersFriends from "./users-friends";
import * as usersSearch from "./users-search";
import * as friendshipsNew from "./friendships-new";
import * as friendshipsCurrent from "./friendships-current";
import * as friendshipsUpdate from "./friendships-update";
import * as friendshipsId from "./friendships-id";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { insertFriendship, insertKid, storePhoto } from "../../../tests/unit/friends-fixtures";
import type { User } from "~/models/users.server";

type Mod = { loader: (a: never) => Promise<Response>; action: (a: never) => Promise<Response> };

async function call(
  mod: Mod,
  method: string,
  path: string,
  opts: {
    cookie?: string;
    json?: unknown;
    form?: Record<string, string> | FormData;
    params?: Record<string, string>;
  } = {},
) {
  const request = req(path, { method, cookie: opts.cookie, json: opts.json, form: opts.form });
  const fn = method === "GET" || method === "HEAD" ? mod.loader : mod.action;
  const res = await fn(args(request, opts.params ?? {}));
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  return { status: res.status, body: method === "HEAD" ? null : await res.json() };
}

const err = (message: string) => ({ errors: { message } });

describe("every friends /api route answers 401 JSON without a session, for every method", () => {
  const routes: [Mod, string, Record<string, string>][] = [
    [usersFriends, "/api/users/friends", {}],
    [usersSearch, "/api/users/search?query=a", {}],
    [friendshipsNew, "/api/friendships/new", {}],
    [friendshipsCurrent, "/api/friendships/current", {}],
    [friendshipsUpdate, "/api/friendships/1/update", { id: "1" }],
    [friendshipsId, "/api/friendships/1", { id: "1" }],
  ];
  for (const [mod, path, params] of routes) {
    it(path, async () => {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        expect(await call(mod, method, path, { params })).toEqual({ status: 401, body: err("Unauthorized") });
      }
    });
  }
});

describe("unlisted methods answer the JSON 404", () => {
  it("e.g. POST /api/users/friends, GET /api/friendships/new, GET /api/friendships/1", async () => {
    const cookie = await cookieFor(await makeUser());
    expect(await call(usersFriends, "POST", "/api/users/friends", { cookie })).toEqual({
      status: 404,
      body: err("Not found"),
    });
    expect(await call(friendshipsNew, "GET", "/api/friendships/new", { cookie })).toEqual({
      status: 404,
      body: err("Not found"),
    });
    expect(await call(friendshipsId, "GET", "/api/friendships/1", { cookie, params: { id: "1" } })).toEqual({
      status: 404,
      body: err("Not found"),
    });
    expect(await call(friendshipsUpdate, "POST", "/api/friendships/1/update", { cookie, params: { id: "1" } })).toEqual(
      { status: 404, body: err("Not found") },
    );
  });
});

describe("GET /api/users/search", () => {
  let cookie: string;
  let hit: User;
  beforeAll(async () => {
    cookie = await cookieFor(await makeUser());
    hit = await makeUser({ first_name: "Quillabeth", last_name: "Snoodle" });
    const photo = await storePhoto("user", hit.id);
    await db()("users").where({ id: hit.id }).update({ image_id: photo.imageId });
  });

  it("answers users_exist with hits: id, names, picture URL; nothing else", async () => {
    const { status, body } = await call(usersSearch, "GET", "/api/users/search?query=%20QUILLABETH%20snood%20", {
      cookie,
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      users_exist: [
        {
          id: hit.id,
          first_name: "Quillabeth",
          last_name: "Snoodle",
          user_image_url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/),
        },
      ],
    });
  });

  it("blank or missing query: 400 (C) No search term provided; no hit: 200 message", async () => {
    for (const q of ["", "?query=", "?query=%20%20", "?other=x"]) {
      expect(await call(usersSearch, "GET", `/api/users/search${q}`, { cookie })).toEqual({
        status: 400,
        body: err("No search term provided"),
      });
    }
    expect(await call(usersSearch, "GET", "/api/users/search?query=zzqqxxnobody", { cookie })).toEqual({
      status: 200,
      body: { message: "No users found" },
    });
    expect(await call(usersSearch, "GET", "/api/users/search?query=%25%25%25", { cookie })).toEqual({
      status: 200,
      body: { message: "No users found" },
    });
  });
});

describe("POST /api/friendships/new", () => {
  it("201 pending Friendship; friend_id as number or string, as JSON, urlencoded or multipart", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const [a, b, c] = [await makeUser(), await makeUser(), await makeUser()];
    const one = await call(friendshipsNew, "POST", "/api/friendships/new", { cookie, json: { friend_id: a.id } });
    expect(one).toEqual({
      status: 201,
      body: { id: expect.any(Number), user_id: me.id, friend_id: a.id, status: "pending" },
    });
    const two = await call(friendshipsNew, "POST", "/api/friendships/new", {
      cookie,
      form: { friend_id: String(b.id) },
    });
    expect(two.status).toBe(201);
    const form = new FormData();
    form.set("friend_id", String(c.id));
    form.set("image", "null");
    const three = await call(friendshipsNew, "POST", "/api/friendships/new", { cookie, form });
    expect(three).toMatchObject({ status: 201, body: { friend_id: c.id } });
  });

  it("400 to oneself (number or string), 404 unknown, 400 when any row exists in either direction", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    for (const friend_id of [me.id, String(me.id)]) {
      expect(await call(friendshipsNew, "POST", "/api/friendships/new", { cookie, json: { friend_id } })).toEqual({
        status: 400,
        body: err("You cannot send a friend request to yourself."),
      });
    }
    for (const json of [{ friend_id: 987654 }, { friend_id: "nope" }, {}, { friend_id: null }]) {
      expect(await call(friendshipsNew, "POST", "/api/friendships/new", { cookie, json })).toEqual({
        status: 404,
        body: err("Friend not found"),
      });
    }
    const other = await makeUser();
    await insertFriendship(other, me, "denied");
    expect(
      await call(friendshipsNew, "POST", "/api/friendships/new", { cookie, json: { friend_id: other.id } }),
    ).toEqual({
      status: 400,
      body: err("Friendship already exists. Please try another name."),
    });
  });

  it("two opposite requests at the same moment: one 201, one 400, never a 500", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const [ca, cb] = [await cookieFor(a), await cookieFor(b)];
    const results = await Promise.all([
      call(friendshipsNew, "POST", "/api/friendships/new", { cookie: ca, json: { friend_id: b.id } }),
      call(friendshipsNew, "POST", "/api/friendships/new", { cookie: cb, json: { friend_id: String(a.id) } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.status === 400)!.body).toEqual(
      err("Friendship already exists. Please try another name."),
    );
  });

  it("an unreadable body is a 400, not a 500", async () => {
    const cookie = await cookieFor(await makeUser());
    const request = new Request("http://localhost:3000/api/friendships/new", {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: "{not json",
    });
    const res = await friendshipsNew.action(args(request));
    expect(res.status).toBe(400);
  });
});

describe("PUT /api/friendships/{id}/update and DELETE /api/friendships/{id}", () => {
  let sender: User, receiver: User, stranger: User;
  let cs: string, cr: string, cx: string;
  beforeAll(async () => {
    [sender, receiver, stranger] = [await makeUser(), await makeUser(), await makeUser()];
    [cs, cr, cx] = [await cookieFor(sender), await cookieFor(receiver), await cookieFor(stranger)];
  });
  const put = (id: string, cookie: string, json?: unknown) =>
    call(friendshipsUpdate, "PUT", `/api/friendships/${id}/update`, { cookie, json, params: { id } });
  const del = (id: string, cookie: string) =>
    call(friendshipsId, "DELETE", `/api/friendships/${id}`, { cookie, params: { id } });

  it("the receiver accepts: 200 Friendship", async () => {
    const id = await insertFriendship(sender, receiver, "pending");
    expect(await put(String(id), cr, { status: "accepted" })).toEqual({
      status: 200,
      body: { id, user_id: sender.id, friend_id: receiver.id, status: "accepted" },
    });
    expect(await del(String(id), cr)).toEqual({ status: 200, body: { message: "Friendship deleted successfully" } });
  });

  it("failures in the contract's order: 404 id → 403 not the recipient → 400 status", async () => {
    const id = String(await insertFriendship(sender, receiver, "pending"));
    for (const bad of ["abc", "0", "-1", "1.5", "999999"]) {
      expect(await put(bad, cr, { status: "accepted" })).toEqual({ status: 404, body: err("Friendship not found") });
    }
    const forbidden = { status: 403, body: err("Only the recipient can update the friend request status") };
    expect(await put(id, cs, { status: "accepted" })).toEqual(forbidden);
    expect(await put(id, cx, { status: "bogus" })).toEqual(forbidden);
    for (const body of [{ status: "pending" }, { status: "bogus" }, {}, undefined]) {
      expect(await put(id, cr, body)).toEqual({ status: 400, body: err("Invalid status update") });
    }
    expect((await put(id, cr, { status: "denied" })).body.status).toBe("denied");
    expect(await put(id, cr, { status: "accepted" })).toEqual({ status: 400, body: err("Invalid status update") });
    expect((await del(id, cr)).status).toBe(200);
  });

  it("the status may come urlencoded too", async () => {
    const id = String(await insertFriendship(sender, stranger, "pending"));
    const res = await call(friendshipsUpdate, "PUT", `/api/friendships/${id}/update`, {
      cookie: cx,
      form: { status: "accepted" },
      params: { id },
    });
    expect(res).toMatchObject({ status: 200, body: { status: "accepted" } });
    expect((await del(id, cs)).status).toBe(200);
  });

  it("DELETE: either party; 404 for bad or unknown ids; 403 for others", async () => {
    const id = String(await insertFriendship(sender, receiver, "denied"));
    expect(await del("x", cs)).toEqual({ status: 404, body: err("Friendship not found") });
    expect(await del("999999", cs)).toEqual({ status: 404, body: err("Friendship not found") });
    expect(await del(id, cx)).toEqual({ status: 403, body: err("You are not authorized") });
    expect(await del(id, cs)).toEqual({ status: 200, body: { message: "Friendship deleted successfully" } });
    expect(await del(id, cs)).toEqual({ status: 404, body: err("Friendship not found") });
  });
});

describe("GET /api/friendships/current and GET /api/users/friends", () => {
  it("a bare array of the caller's friendships; friend entries with kids only when accepted", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const [friend, asked, asker, refuser] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
    const photo = await storePhoto("kid", friend.id);
    const kid = await insertKid(friend, "Ada", photo.imageId);
    await insertKid(asked, "Hidden");
    await insertKid(asker, "Hidden");
    await insertKid(refuser, "Hidden");
    const f = await insertFriendship(friend, me, "accepted");
    const p1 = await insertFriendship(me, asked, "pending");
    const p2 = await insertFriendship(asker, me, "pending");
    const d = await insertFriendship(me, refuser, "denied");

    const current = await call(friendshipsCurrent, "GET", "/api/friendships/current", { cookie });
    expect(current).toEqual({
      status: 200,
      body: [
        { id: f, user_id: friend.id, friend_id: me.id, status: "accepted" },
        { id: p1, user_id: me.id, friend_id: asked.id, status: "pending" },
        { id: p2, user_id: asker.id, friend_id: me.id, status: "pending" },
        { id: d, user_id: me.id, friend_id: refuser.id, status: "denied" },
      ],
    });

    const entry = (u: User, status: string, kids: unknown[] = []) => ({
      id: u.id,
      username: u.username,
      first_name: u.first_name,
      last_name: u.last_name,
      user_image_url: null,
      status,
      kids,
      // how the list's owner files an accepted friend (docs/api.md)
      ...(status === "accepted" ? { circle: "friends", relationship: null } : {}),
    });
    const lists = await call(usersFriends, "GET", "/api/users/friends", { cookie });
    expect(lists).toEqual({
      status: 200,
      body: {
        pending_friends: [entry(asked, "pending"), entry(asker, "pending")],
        confirmed_friends: [
          entry(friend, "accepted", [
            {
              id: kid,
              user_id: friend.id,
              name: "Ada",
              birth_date: "2020-05-06",
              relationship: "Mom",
              kid_image_url: `/images/${photo.key}/${photo.widths.at(-1)}.webp`,
              co_parents: [],
            },
          ]),
        ],
        denied_friends: [entry(refuser, "denied")],
      },
    });
    expect(JSON.stringify(lists.body)).not.toMatch(/email|Hidden/);

    // the refuser never sees the denied request again; the asked user sees it as pending
    const theirs = await call(usersFriends, "GET", "/api/users/friends", { cookie: await cookieFor(refuser) });
    expect(theirs.body).toEqual({ pending_friends: [], confirmed_friends: [], denied_friends: [] });
  });
});
