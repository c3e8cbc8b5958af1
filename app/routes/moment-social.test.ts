import { describe, expect, it } from "vitest";
import { action, loader } from "./moment-social";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { befriend, makeMoment } from "~/models/social-test-fixtures.server";
import { db } from "~/lib/db.server";
import { loadSocial } from "~/models/social.server";
import type { User } from "~/models/users.server";

type Outcome =
  | { kind: "redirect"; status: number; location: string }
  | { kind: "data"; status: number; data: unknown }
  | { kind: "thrown"; status: number; data: unknown };

async function post(who: User, logId: number | string, form: Record<string, string>): Promise<Outcome> {
  const request = req(`/dailyLogs/${logId}/social`, { cookie: await cookieFor(who), form });
  try {
    const result = (await action(args(request, { momentId: String(logId) }))) as unknown;
    if (result instanceof Response) {
      return { kind: "redirect", status: result.status, location: result.headers.get("Location") ?? "" };
    }
    const d = result as { data: unknown; init?: { status?: number } };
    return { kind: "data", status: d.init?.status ?? 200, data: d.data };
  } catch (thrown) {
    if (thrown instanceof Response)
      return { kind: "redirect", status: thrown.status, location: thrown.headers.get("Location") ?? "" };
    const d = thrown as { data: unknown; init?: { status?: number } };
    return { kind: "thrown", status: d.init?.status ?? 500, data: d.data };
  }
}

async function world() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(owner.id, friend.id);
  const logId = await makeMoment(owner.id);
  return { owner, friend, stranger, logId };
}

const social = async (who: User, logId: number) => (await loadSocial(who, [logId]))[logId]!;

describe("the block's form posts without JavaScript (post/redirect/get)", () => {
  it("like and unlike come back to the same moment on the page; a double like settles to liked", async () => {
    const { friend, logId } = await world();
    const returnTo = "/kids/3/dailyLogs?before=abc";
    const liked = await post(friend, logId, { intent: "like", returnTo });
    expect(liked).toEqual({ kind: "redirect", status: 303, location: `/kids/3/dailyLogs?before=abc#moment-${logId}` });
    expect(await post(friend, logId, { intent: "like", returnTo })).toMatchObject({ kind: "redirect", status: 303 });
    expect(await social(friend, logId)).toMatchObject({ likeCount: 1, likedByMe: true });

    expect(await post(friend, logId, { intent: "unlike", returnTo })).toMatchObject({
      location: `/kids/3/dailyLogs?before=abc#moment-${logId}`,
    });
    expect(await post(friend, logId, { intent: "unlike", returnTo })).toMatchObject({ kind: "redirect", status: 303 });
    expect(await social(friend, logId)).toMatchObject({ likeCount: 0, likedByMe: false });
  });

  it("never redirects off the site, and drops the block's own URL state from returnTo", async () => {
    const { friend, logId } = await world();
    for (const evil of ["//evil.example/x", "https://evil.example/", "/\\evil.example", ""]) {
      expect(await post(friend, logId, { intent: "like", returnTo: evil })).toMatchObject({
        location: `/dailyLogs/${logId}#moment-${logId}`,
      });
    }
    const messy = `/kids/3/dailyLogs?editComment=9&commentError=${logId}&commentReason=required&confirm=delete-comment&commentId=9&showComments=1&keep=1#x`;
    expect(await post(friend, logId, { intent: "unlike", returnTo: messy })).toMatchObject({
      location: `/kids/3/dailyLogs?keep=1#moment-${logId}`,
    });
    // a page that already dropped `confirm` from its own URL still loses the dialog's commentId
    expect(await post(friend, logId, { intent: "unlike", returnTo: `/dailyLogs/${logId}?commentId=4` })).toMatchObject({
      location: `/dailyLogs/${logId}#moment-${logId}`,
    });
  });

  it("adds, edits and deletes comments, landing on the comment with the section open", async () => {
    const { friend, logId } = await world();
    const added = await post(friend, logId, {
      intent: "comment",
      comment: "  Hello  ",
      returnTo: `/dailyLogs/${logId}`,
    });
    const [c] = (await social(friend, logId)).comments;
    expect(c).toMatchObject({ comment: "Hello", mine: true });
    expect(added).toEqual({
      kind: "redirect",
      status: 303,
      location: `/dailyLogs/${logId}?showComments=${logId}#comment-${c!.id}`,
    });

    const edited = await post(friend, logId, {
      intent: "edit-comment",
      commentId: String(c!.id),
      comment: "Hi!",
      returnTo: `/dailyLogs/${logId}?editComment=${c!.id}`,
    });
    expect(edited).toMatchObject({ location: `/dailyLogs/${logId}?showComments=${logId}#comment-${c!.id}` });
    expect((await social(friend, logId)).comments[0]).toMatchObject({ comment: "Hi!", edited: true });

    const deleted = await post(friend, logId, {
      intent: "delete-comment",
      commentId: String(c!.id),
      returnTo: `/dailyLogs/${logId}`,
    });
    expect(deleted).toMatchObject({ location: `/dailyLogs/${logId}?showComments=${logId}#moment-${logId}` });
    expect((await social(friend, logId)).commentCount).toBe(0);
  });

  it("refused text comes back as a code beside the textarea, and nothing is saved", async () => {
    const { friend, logId } = await world();
    const blank = await post(friend, logId, { intent: "comment", comment: "   ", returnTo: "/kids/3/dailyLogs" });
    expect(blank).toEqual({
      kind: "redirect",
      status: 303,
      location: `/kids/3/dailyLogs?showComments=${logId}&commentError=${logId}&commentReason=required#comments-${logId}`,
    });
    const long = await post(friend, logId, {
      intent: "comment",
      comment: "x".repeat(1001),
      returnTo: "/kids/3/dailyLogs",
    });
    expect(long).toMatchObject({ location: expect.stringContaining("commentReason=too-long") });
    expect((await social(friend, logId)).commentCount).toBe(0);

    await post(friend, logId, { intent: "comment", comment: "keep me", returnTo: "/x" });
    const [c] = (await social(friend, logId)).comments;
    const badEdit = await post(friend, logId, {
      intent: "edit-comment",
      commentId: String(c!.id),
      comment: "",
      returnTo: "/x",
    });
    expect(badEdit).toMatchObject({
      location: `/x?showComments=${logId}&editComment=${c!.id}&commentError=${logId}&commentReason=required#comment-${c!.id}`,
    });
    expect((await social(friend, logId)).comments[0]!.comment).toBe("keep me");
  });

  it("strangers get the plain not-found page; a non-author's forged edit or delete is refused with 403", async () => {
    const { owner, friend, stranger, logId } = await world();
    for (const intent of ["like", "unlike", "comment"]) {
      expect(await post(stranger, logId, { intent, comment: "hi" })).toMatchObject({ kind: "thrown", status: 404 });
    }
    expect(await post(friend, 999999, { intent: "like" })).toMatchObject({ kind: "thrown", status: 404 });
    expect(await post(friend, "abc", { intent: "like" })).toMatchObject({ kind: "thrown", status: 404 });

    await post(friend, logId, { intent: "comment", comment: "mine" });
    const [c] = (await social(friend, logId)).comments;
    const id = String(c!.id);
    expect(await post(owner, logId, { intent: "edit-comment", commentId: id, comment: "hijacked" })).toEqual({
      kind: "thrown",
      status: 403,
      data: "You are not authorized to edit this comment",
    });
    expect(await post(owner, logId, { intent: "delete-comment", commentId: id })).toEqual({
      kind: "thrown",
      status: 403,
      data: "You are not authorized to delete this comment",
    });
    expect(await post(stranger, logId, { intent: "delete-comment", commentId: id })).toMatchObject({
      kind: "thrown",
      status: 404,
    });
    // a comment id under another moment's URL is not found
    const other = await makeMoment(owner.id);
    expect(await post(friend, other, { intent: "delete-comment", commentId: id })).toMatchObject({
      kind: "thrown",
      status: 404,
    });
    expect(await post(friend, logId, { intent: "delete-comment", commentId: "nope" })).toMatchObject({
      kind: "thrown",
      status: 404,
    });
    expect(await post(friend, logId, { intent: "dance" })).toMatchObject({ kind: "thrown", status: 400 });
    expect((await social(friend, logId)).comments[0]!.comment).toBe("mine");
  });
});

describe("the block's fetchers (JavaScript on) get data, never a redirect", () => {
  it("answers ok / errors with statuses", async () => {
    const { friend, stranger, owner, logId } = await world();
    const f = { _fetcher: "1" };
    expect(await post(friend, logId, { ...f, intent: "like" })).toEqual({
      kind: "data",
      status: 200,
      data: { ok: true, intent: "like" },
    });
    expect(await post(friend, logId, { ...f, intent: "like" })).toMatchObject({ kind: "data", status: 200 });
    const added = await post(friend, logId, { ...f, intent: "comment", comment: "yo" });
    expect(added).toMatchObject({
      kind: "data",
      status: 200,
      data: { ok: true, intent: "comment", commentId: expect.any(Number) },
    });
    expect(await post(friend, logId, { ...f, intent: "comment", comment: " " })).toEqual({
      kind: "data",
      status: 400,
      data: { ok: false, intent: "comment", errors: { comment: ["Comment is required"] } },
    });
    expect(await post(stranger, logId, { ...f, intent: "like" })).toMatchObject({
      kind: "data",
      status: 403,
      data: { ok: false },
    });
    const id = String((added as { data: { commentId: number } }).data.commentId);
    expect(await post(owner, logId, { ...f, intent: "edit-comment", commentId: id, comment: "x" })).toMatchObject({
      kind: "data",
      status: 403,
      data: { ok: false, message: "You are not authorized to edit this comment" },
    });
    expect(await db()("likes").where({ daily_log_id: logId })).toHaveLength(1);
  });
});

describe("GET /dailyLogs/:id/social", () => {
  it("goes to the moment (sign-in first)", async () => {
    const { friend, logId } = await world();
    const anon = await loader(args(req(`/dailyLogs/${logId}/social`), { momentId: String(logId) })).catch(
      (r: Response) => r,
    );
    expect((anon as Response).headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    const res = await loader(
      args(req(`/dailyLogs/${logId}/social`, { cookie: await cookieFor(friend) }), { momentId: String(logId) }),
    ).catch((r: Response) => r);
    expect((res as Response).headers.get("Location")).toBe(`/dailyLogs/${logId}`);
  });
});
