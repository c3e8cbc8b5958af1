import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { pairOf } from "~/models/friendships.server";
import * as friendshipsCircle from "./friendships-circle";
import * as blocks from "./blocks";
import * as blocksId from "./blocks-id";
import * as kidsCoParents from "./kids-co-parents";
import * as kidsCoParentsId from "./kids-co-parents-id";
import * as invitations from "./co-parent-invitations";
import * as invitationsId from "./co-parent-invitations-id";
import * as kidsId from "./kids-id";
import * as friendshipsNew from "./friendships-new";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { insertFriendship, insertKid, insertMoment } from "../../../tests/unit/friends-fixtures";
import type { User } from "~/models/users.server";

// The calls of docs/api.md "Circles, blocks and co-parents": shapes, and failures in the
// contract's order (401, 404, 403, 400).

type Mod = { loader: (a: never) => Promise<Response>; action: (a: never) => Promise<Response> };

async function call(
  mod: Mod,
  method: string,
  path: string,
  opts: { cookie?: string; json?: unknown; params?: Record<string, string> } = {},
) {
  const request = req(path, { method: method as "GET", cookie: opts.cookie, json: opts.json });
  const fn = method === "GET" ? mod.loader : mod.action;
  const res = await fn(args(request, opts.params ?? {}) as never);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() };
}
const err = (message: string) => ({ errors: { message } });

let owner: User, friend: User, other: User, stranger: User;
const c: Record<string, string> = {};

beforeAll(async () => {
  [owner, friend, other, stranger] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
  for (const [k, u] of Object.entries({ owner, friend, other, stranger })) c[k] = await cookieFor(u);
});

describe("PUT /api/friendships/{id}/circle", () => {
  it("each party files the other; 404, 403, 400 in that order", async () => {
    const id = await insertFriendship(owner, friend, "accepted");
    const put = (cookie: string, fid: string, json: unknown) =>
      call(friendshipsCircle as Mod, "PUT", `/api/friendships/${fid}/circle`, { cookie, json, params: { id: fid } });
    expect(await put(c.owner!, String(id), { circle: "family", relationship: "grandparent" })).toEqual({
      status: 200,
      body: { id, circle: "family", relationship: "grandparent" },
    });
    expect(await put(c.friend!, String(id), { circle: "friends" })).toEqual({
      status: 200,
      body: { id, circle: "friends", relationship: null },
    });
    const row = await db()("friendships").where({ id }).first();
    const ownerSide = row.user_low === owner.id ? "low" : "high";
    const friendSide = ownerSide === "low" ? "high" : "low";
    expect([row[`${ownerSide}_circle`], row[`${ownerSide}_relationship`], row[`${friendSide}_circle`]]).toEqual([
      "family",
      "grandparent",
      "friends",
    ]);
    expect(await put(c.owner!, "999999", {})).toEqual({ status: 404, body: err("Friendship not found") });
    expect(await put(c.stranger!, String(id), {})).toEqual({ status: 403, body: err("You are not authorized") });
    const pending = await insertFriendship(owner, other, "pending");
    expect(await put(c.owner!, String(pending), { circle: "family" })).toEqual({
      status: 400,
      body: err("Only an accepted friendship has a circle"),
    });
    expect(await put(c.owner!, String(id), { circle: "enemies", relationship: "aunt" })).toEqual({
      status: 400,
      body: {
        errors: {
          circle: ["Choose a circle: Family or Friends"],
          relationship: ["Choose a relationship from the list"],
        },
      },
    });
  });
});

describe("co-parents", () => {
  it("invite → accept → the co-parent changes the kid but cannot remove it → removed; failures in order", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const ca = await cookieFor(a);
    const cb = await cookieFor(b);
    await insertFriendship(a, b, "accepted");
    const kidId = await insertKid(a, "Shared");
    const invite = (cookie: string, kid: string, json: unknown) =>
      call(kidsCoParents as Mod, "POST", `/api/kids/${kid}/co_parents`, { cookie, json, params: { id: kid } });
    expect(await invite(ca, "999999", { user_id: b.id })).toEqual({ status: 404, body: err("Kid not found") });
    expect(await invite(cb, String(kidId), { user_id: b.id })).toEqual({
      status: 403,
      body: err("You are not authorized"),
    });
    expect(await invite(ca, String(kidId), { user_id: stranger.id })).toEqual({
      status: 400,
      body: err("Only an accepted friend can be invited as a co-parent"),
    });
    const sent = await invite(ca, String(kidId), { user_id: b.id });
    expect(sent).toEqual({
      status: 201,
      body: { id: expect.any(Number), kid_id: kidId, user_id: b.id, status: "pending" },
    });
    expect(await invite(ca, String(kidId), { user_id: b.id })).toEqual({
      status: 400,
      body: err("This user is already a co-parent of this kid or has been invited"),
    });

    const list = await call(invitations as Mod, "GET", "/api/co_parent_invitations", { cookie: cb });
    expect(list.body.invitations).toEqual([
      { id: sent.body.id, kid_id: kidId, kid_name: "Shared", owner: { id: a.id, username: a.username } },
    ]);
    const answer = (cookie: string, id: string, json: unknown) =>
      call(invitationsId as Mod, "PUT", `/api/co_parent_invitations/${id}`, { cookie, json, params: { id } });
    expect(await answer(ca, String(sent.body.id), { status: "accepted" })).toEqual({
      status: 404,
      body: err("Invitation not found"),
    });
    expect(await answer(cb, String(sent.body.id), { status: "maybe" })).toEqual({
      status: 400,
      body: err("Invalid status update"),
    });
    expect(await answer(cb, String(sent.body.id), { status: "accepted" })).toEqual({
      status: 200,
      body: { kid_id: kidId, status: "accepted" },
    });

    // the Kid: user_id stays the owner, co_parents lists b; b may PUT but not DELETE
    const kid = await call(kidsId as Mod, "GET", `/api/kids/${kidId}`, { cookie: cb, params: { id: String(kidId) } });
    expect(kid.body).toMatchObject({ user_id: a.id, co_parents: [{ id: b.id, username: b.username }] });
    const put = await call(kidsId as Mod, "PUT", `/api/kids/${kidId}`, {
      cookie: cb,
      json: { name: "Renamed", birth_date: "2020-01-02", relationship: "Dad", default_audience: "family" },
      params: { id: String(kidId) },
    });
    expect(put).toMatchObject({ status: 200, body: { name: "Renamed", user_id: a.id } });
    expect((await db()("kids").where("id", kidId).first("default_audience")).default_audience).toBe("family");
    const del = await call(kidsId as Mod, "DELETE", `/api/kids/${kidId}`, {
      cookie: cb,
      params: { id: String(kidId) },
    });
    expect(del).toEqual({ status: 403, body: err("You are not authorized") });
    // b may not remove the owner's other co-parents, only leave; the owner removes
    const remove = (cookie: string, userId: number) =>
      call(kidsCoParentsId as Mod, "DELETE", `/api/kids/${kidId}/co_parents/${userId}`, {
        cookie,
        params: { id: String(kidId), userId: String(userId) },
      });
    expect(await remove(cb, a.id)).toEqual({ status: 403, body: err("You are not authorized") });
    expect(await remove(ca, b.id)).toEqual({ status: 200, body: { message: "Co-parent removed" } });
    expect(await remove(ca, b.id)).toEqual({ status: 404, body: err("Co-parent not found") });
  });
});

describe("blocks", () => {
  it("block ends the friendship and co-parent role; list, show comments, unblock; requests answered as for nobody", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const ca = await cookieFor(a);
    const cb = await cookieFor(b);
    await insertFriendship(b, a, "accepted");
    const kidId = await insertKid(a, "Guarded");
    await insertMoment(kidId, "Private");
    await db()("co_parents").insert({
      kid_id: kidId,
      user_id: b.id,
      status: "accepted",
      created_at: new Date().toISOString(),
    });
    const post = (cookie: string, json: unknown) => call(blocks as Mod, "POST", "/api/blocks", { cookie, json });
    expect(await post(ca, { user_id: a.id })).toEqual({ status: 400, body: err("You cannot block yourself.") });
    expect(await post(ca, { user_id: 999999 })).toEqual({ status: 404, body: err("User not found") });
    expect(await post(ca, { user_id: b.id })).toEqual({ status: 201, body: { blocked_id: b.id } });
    expect(await post(ca, { user_id: b.id })).toEqual({ status: 201, body: { blocked_id: b.id } });
    expect(await db()("friendships").where(pairOf(a.id, b.id)).first()).toBeUndefined();
    expect(await db()("co_parents").where({ kid_id: kidId }).first()).toBeUndefined();
    expect(
      (await call(kidsId as Mod, "GET", `/api/kids/${kidId}`, { cookie: cb, params: { id: String(kidId) } })).status,
    ).toBe(403);

    const request = (cookie: string, to: number) =>
      call(friendshipsNew as Mod, "POST", "/api/friendships/new", { cookie, json: { friend_id: to } });
    expect(await request(cb, a.id)).toEqual({ status: 404, body: err("Friend not found") });
    expect(await request(ca, b.id)).toEqual({
      status: 400,
      body: err("You have blocked this user. Unblock them first."),
    });

    const list = await call(blocks as Mod, "GET", "/api/blocks", { cookie: ca });
    expect(list.body.blocked).toEqual([
      {
        id: b.id,
        username: b.username,
        first_name: b.first_name,
        last_name: b.last_name,
        user_image_url: null,
        show_comments: false,
      },
    ]);
    const put = (json: unknown, id = String(b.id)) =>
      call(blocksId as Mod, "PUT", `/api/blocks/${id}`, { cookie: ca, json, params: { userId: id } });
    expect(await put({ show_comments: true })).toEqual({
      status: 200,
      body: { blocked_id: b.id, show_comments: true },
    });
    expect(await put({ show_comments: "yes" })).toEqual({
      status: 400,
      body: err("show_comments must be true or false"),
    });
    expect(await put({ show_comments: true }, String(stranger.id))).toEqual({
      status: 404,
      body: err("Block not found"),
    });
    const del = (id: number) =>
      call(blocksId as Mod, "DELETE", `/api/blocks/${id}`, { cookie: ca, params: { userId: String(id) } });
    expect(await del(b.id)).toEqual({ status: 200, body: { message: "User unblocked" } });
    expect(await del(b.id)).toEqual({ status: 404, body: err("Block not found") });
    expect((await request(cb, a.id)).status).toBe(201);
  });

  it("every new route answers 401 JSON without a session", async () => {
    for (const [mod, path, params] of [
      [friendshipsCircle, "/api/friendships/1/circle", { id: "1" }],
      [blocks, "/api/blocks", {}],
      [blocksId, "/api/blocks/1", { userId: "1" }],
      [kidsCoParents, "/api/kids/1/co_parents", { id: "1" }],
      [kidsCoParentsId, "/api/kids/1/co_parents/2", { id: "1", userId: "2" }],
      [invitations, "/api/co_parent_invitations", {}],
      [invitationsId, "/api/co_parent_invitations/1", { id: "1" }],
    ] as [Mod, string, Record<string, string>][]) {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        expect(await call(mod, method, path, { params }), `${method} ${path}`).toEqual({
          status: 401,
          body: err("Unauthorized"),
        });
      }
    }
  });
});
