import { describe, expect, it } from "vitest";
import sharp from "sharp";
import * as likes from "./likes";
import * as like from "./likes-like";
import * as unlike from "./likes-unlike";
import * as comments from "./comments";
import * as newComment from "./comments-new";
import * as updateComment from "./comments-update";
import * as commentId from "./comments-id";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { befriend, makeMoment } from "~/models/social-test-fixtures.server";
import { db } from "~/lib/db.server";
import { withNewImage } from "~/images/storage.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import type { User } from "~/models/users.server";

type Route = { loader: (a: never) => Promise<Response>; action: (a: never) => Promise<Response> };

async function call(
  route: Route,
  method: string,
  path: string,
  params: Record<string, string>,
  who: User | null,
  body?: { json?: unknown; form?: Record<string, string> | FormData },
) {
  const cookie = who ? await cookieFor(who) : undefined;
  const request = req(path, { method, cookie, ...body });
  const res = method === "GET" ? await route.loader(args(request, params)) : await route.action(args(request, params));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, type: res.headers.get("Content-Type") };
}

async function world() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  const pending = await makeUser();
  await befriend(owner.id, friend.id, "accepted");
  await befriend(pending.id, owner.id, "pending");
  const logId = await makeMoment(owner.id);
  return { owner, friend, stranger, pending, logId, id: String(logId) };
}

const singular = (message: string) => ({ error: { message } });

describe("likes API", () => {
  it("like → list → unlike → list, with the contract's shapes", async () => {
    const { owner, friend, id, logId } = await world();
    const liked = await call(like, "POST", `/api/likes/${id}/like`, { momentId: id }, friend);
    expect(liked.status).toBe(201);
    expect(liked.type).toMatch(/^application\/json/);
    expect(liked.body).toEqual({
      id: expect.any(Number),
      daily_log_id: logId,
      user_id: friend.id,
      username: friend.username,
    });

    await call(like, "POST", `/api/likes/${id}/like`, { momentId: id }, owner);
    const list = await call(likes, "GET", `/api/likes/${id}`, { momentId: id }, owner);
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((l: { username: string }) => l.username)).toEqual([friend.username, owner.username]);
    expect(Object.keys(list.body[0]).sort()).toEqual(["daily_log_id", "id", "user_id", "username"]);

    const removed = await call(unlike, "DELETE", `/api/likes/${id}/unlike`, { momentId: id }, friend);
    expect(removed).toMatchObject({ status: 200, body: { id: liked.body.id, message: "Like removed" } });
    const after = await call(likes, "GET", `/api/likes/${id}`, { momentId: id }, friend);
    expect(after.body).toHaveLength(1);
  });

  it("a second like answers 400 (C'); parallel likes make one row and no 500", async () => {
    const { friend, id, logId } = await world();
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => call(like, "POST", `/api/likes/${id}/like`, { momentId: id }, friend)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) {
      expect(r.body).toEqual(singular("You have already liked this daily log"));
    }
    expect(await db()("likes").where({ daily_log_id: logId })).toHaveLength(1);
  });

  it("failures: 401, 404 for bad and unknown ids, 403 for strangers and pending friends, 404 unlike without a like", async () => {
    const { friend, stranger, pending, id } = await world();
    for (const [route, method, path] of [
      [likes, "GET", `/api/likes/${id}`],
      [like, "POST", `/api/likes/${id}/like`],
      [unlike, "DELETE", `/api/likes/${id}/unlike`],
    ] as const) {
      const anon = await call(route, method, path, { momentId: id }, null);
      expect(anon).toMatchObject({ status: 401, body: { errors: { message: "Unauthorized" } } });
      // a method the path does not have
      const wrong = await call(route, method === "GET" ? "DELETE" : "GET", path, { momentId: id }, friend);
      expect(wrong.status).toBe(404);
    }
    for (const bad of ["abc", "0", "-1", "999999"]) {
      expect(await call(likes, "GET", `/api/likes/${bad}`, { momentId: bad }, friend)).toMatchObject({
        status: 404,
        body: singular("Daily log not found"),
      });
      expect(await call(like, "POST", `/api/likes/${bad}/like`, { momentId: bad }, friend)).toMatchObject({
        status: 404,
        body: singular("Daily log not found"),
      });
      expect(await call(unlike, "DELETE", `/api/likes/${bad}/unlike`, { momentId: bad }, friend)).toMatchObject({
        status: 404,
        body: singular("Like not found"),
      });
    }
    for (const who of [stranger, pending]) {
      const read = await call(likes, "GET", `/api/likes/${id}`, { momentId: id }, who);
      expect(read.status).toBe(403);
      expect(read.body.error.message).toEqual(expect.any(String));
      expect(await call(like, "POST", `/api/likes/${id}/like`, { momentId: id }, who)).toMatchObject({
        status: 403,
        body: singular("You are not allowed to like this daily log"),
      });
      expect((await call(unlike, "DELETE", `/api/likes/${id}/unlike`, { momentId: id }, who)).status).toBe(403);
    }
    expect(await call(unlike, "DELETE", `/api/likes/${id}/unlike`, { momentId: id }, friend)).toMatchObject({
      status: 404,
      body: singular("Like not found"),
    });
  });
});

describe("comments API", () => {
  it("new → list (newest first) → update (keeps its place) → delete, in JSON, urlencoded and multipart", async () => {
    const { owner, friend, id, logId } = await world();
    const first = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
      json: { comment: "  Hello there  " },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number),
      daily_log_id: logId,
      user_id: friend.id,
      comment: "Hello there",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      user: { first_name: friend.first_name, last_name: friend.last_name, user_image_url: null },
    });
    const second = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, owner, {
      form: { comment: "second" },
    });
    expect(second.status).toBe(201);
    const multipart = new FormData();
    multipart.set("comment", "third");
    const third = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
      form: multipart,
    });
    expect(third.status).toBe(201);

    const list = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, owner);
    expect(list.status).toBe(200);
    expect(list.body.map((c: { comment: string }) => c.comment)).toEqual(["third", "second", "Hello there"]);

    const cid = String(first.body.id);
    const updated = await call(updateComment, "PUT", `/api/comments/${cid}/update`, { commentId: cid }, friend, {
      json: { comment: " Hello again " },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...first.body, comment: "Hello again" });
    const again = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, friend);
    expect(again.body.map((c: { comment: string }) => c.comment)).toEqual(["third", "second", "Hello again"]);

    const del = await call(commentId, "DELETE", `/api/comments/${cid}`, { commentId: cid }, friend);
    expect(del).toMatchObject({ status: 200, body: { message: "Comment deleted successfully" } });
    const last = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, friend);
    expect(last.body).toHaveLength(2);
  });

  it("the commenter's picture is an authorized image URL", async () => {
    const { friend, id } = await world();
    const jpeg = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#c33" } })
      .jpeg()
      .toBuffer();
    const file = await uploadFromBuffer(jpeg, "me.jpg", "image/jpeg");
    const stored = await withNewImage(file, { kind: "user", ownerId: friend.id }, async (trx, imageId) => {
      await trx("users").where("id", friend.id).update({ image_id: imageId });
    });
    expect(stored.ok).toBe(true);
    const res = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
      json: { comment: "pic" },
    });
    expect(res.body.user.user_image_url).toMatch(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/);
  });

  it("validation: (B) envelope for empty, whitespace, missing and over-long text", async () => {
    const { friend, id } = await world();
    const c = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
      json: { comment: "ok" },
    });
    const cid = String(c.body.id);
    const cases: [unknown, string][] = [
      [{ comment: "" }, "Comment is required"],
      [{ comment: "  \n " }, "Comment is required"],
      [{}, "Comment is required"],
      [{ comment: null }, "Comment is required"],
      [{ comment: "z".repeat(1001) }, "Comment can not be more than 1000 characters"],
    ];
    for (const [json, message] of cases) {
      const add = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
        json,
      });
      expect(add).toMatchObject({ status: 400, body: { errors: { comment: [message] } } });
      const upd = await call(updateComment, "PUT", `/api/comments/${cid}/update`, { commentId: cid }, friend, { json });
      expect(upd).toMatchObject({ status: 400, body: { errors: { comment: [message] } } });
    }
    // a body that cannot be read counts as no comment, never a 500
    const broken = new Request(`http://localhost:3000/api/comments/${id}/new-comment`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: await cookieFor(friend) },
      body: "{nope",
    });
    const res = await newComment.action(args(broken, { momentId: id }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { comment: ["Comment is required"] } });
    const list = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, friend);
    expect(list.body.map((x: { comment: string }) => x.comment)).toEqual(["ok"]);
  });

  it("failures: 401, 404, 403 (who may see, author only), in the contract's order", async () => {
    const { owner, friend, stranger, pending, id } = await world();
    const c = await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, friend, {
      json: { comment: "mine" },
    });
    const cid = String(c.body.id);

    const routes = [
      [comments, "GET", `/api/comments/${id}/comments`, { momentId: id }],
      [newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }],
      [updateComment, "PUT", `/api/comments/${cid}/update`, { commentId: cid }],
      [commentId, "DELETE", `/api/comments/${cid}`, { commentId: cid }],
    ] as const;
    for (const [route, method, path, params] of routes) {
      const body = method === "GET" || method === "DELETE" ? undefined : { json: { comment: "x" } };
      expect(await call(route, method, path, params, null, body)).toMatchObject({
        status: 401,
        body: { errors: { message: "Unauthorized" } },
      });
    }
    expect((await call(commentId, "GET", `/api/comments/${cid}`, { commentId: cid }, friend)).status).toBe(404);

    for (const bad of ["x1", "0", "999999"]) {
      expect(await call(comments, "GET", "/api/comments/x/comments", { momentId: bad }, friend)).toMatchObject({
        status: 404,
        body: singular("Daily log not found"),
      });
      // 404 comes before 400: an unknown moment with an empty comment is still "not found"
      expect(
        await call(newComment, "POST", "/api/comments/x/new-comment", { momentId: bad }, friend, {
          json: { comment: "" },
        }),
      ).toMatchObject({
        status: 404,
        body: singular("Daily log not found"),
      });
      expect(
        await call(updateComment, "PUT", "/api/comments/x/update", { commentId: bad }, friend, {
          json: { comment: "y" },
        }),
      ).toMatchObject({
        status: 404,
        body: singular("Comment not found"),
      });
      expect(await call(commentId, "DELETE", "/api/comments/x", { commentId: bad }, friend)).toMatchObject({
        status: 404,
        body: singular("Comment not found"),
      });
    }

    for (const who of [stranger, pending]) {
      const read = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, who);
      expect(read.status).toBe(403);
      expect(read.body.error.message).toEqual(expect.any(String));
      // 403 comes before 400
      expect(
        await call(newComment, "POST", `/api/comments/${id}/new-comment`, { momentId: id }, who, {
          json: { comment: "" },
        }),
      ).toMatchObject({
        status: 403,
        body: singular("You are not allowed to comment this daily log"),
      });
    }
    // the moment's owner sees the comment but did not write it
    expect(
      await call(updateComment, "PUT", `/api/comments/${cid}/update`, { commentId: cid }, owner, {
        json: { comment: "" },
      }),
    ).toMatchObject({
      status: 403,
      body: singular("You are not authorized to edit this comment"),
    });
    expect(await call(commentId, "DELETE", `/api/comments/${cid}`, { commentId: cid }, owner)).toMatchObject({
      status: 403,
      body: singular("You are not authorized to delete this comment"),
    });
    const still = await call(comments, "GET", `/api/comments/${id}/comments`, { momentId: id }, owner);
    expect(still.body.map((x: { comment: string }) => x.comment)).toEqual(["mine"]);
  });
});
