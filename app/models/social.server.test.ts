import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { pairOf } from "~/models/friendships.server";
import { countQueries, makeUser } from "../../tests/helpers";
import { befriend, makeKid, makeKidMoment, makeMoment } from "./social-test-fixtures.server";
import { likeMoment, listLikes, unlikeMoment } from "./likes.server";
import { addComment, deleteComment, listComments, updateComment } from "./comments.server";
import { loadSocial } from "./social.server";

async function trio() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  const pending = await makeUser();
  await befriend(friend.id, owner.id, "accepted");
  await befriend(owner.id, pending.id, "pending");
  const logId = await makeMoment(owner.id);
  return { owner, friend, stranger, pending, logId };
}

describe("likes", () => {
  it("owner and accepted friends like; counts, likers and liked-by-me follow", async () => {
    const { owner, friend, logId } = await trio();
    const a = await likeMoment(friend.id, logId);
    expect(a).toMatchObject({ ok: true, like: { daily_log_id: logId, user_id: friend.id, username: friend.username } });
    expect((await likeMoment(owner.id, logId)).ok).toBe(true);

    const list = await listLikes(owner.id, logId);
    expect(list.ok && list.likes.map((l) => l.username)).toEqual([friend.username, owner.username]);

    const social = await loadSocial(friend, [logId]);
    expect(social[logId]).toMatchObject({ likeCount: 2, likers: [friend.username, owner.username], likedByMe: true });
    const stranger = await makeUser();
    const other = await makeMoment(stranger.id);
    const mine = await loadSocial(stranger, [other]);
    expect(mine[other]).toMatchObject({ likeCount: 0, likedByMe: false, commentCount: 0, comments: [] });
  });

  it("toggles: unlike answers the removed like's id, then a second unlike is 404", async () => {
    const { friend, logId } = await trio();
    const liked = await likeMoment(friend.id, logId);
    if (!liked.ok) throw new Error("like failed");
    const un = await unlikeMoment(friend.id, logId);
    expect(un).toEqual({ ok: true, id: liked.like.id });
    expect(await unlikeMoment(friend.id, logId)).toEqual({ ok: false, kind: "not-found", message: "Like not found" });
    expect((await likeMoment(friend.id, logId)).ok).toBe(true);
    expect((await loadSocial(friend, [logId]))[logId]!.likeCount).toBe(1);
  });

  it("a second like is refused with 400, and concurrent likes leave exactly one row", async () => {
    const { friend, logId } = await trio();
    const results = await Promise.all([
      likeMoment(friend.id, logId),
      likeMoment(friend.id, logId),
      likeMoment(friend.id, logId),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((r) => !r.ok)) {
      expect(r).toMatchObject({ ok: false, kind: "conflict", message: "You have already liked this daily log" });
    }
    const rows = await db()("likes").where({ daily_log_id: logId, user_id: friend.id });
    expect(rows).toHaveLength(1);
    expect(await likeMoment(friend.id, logId)).toMatchObject({ kind: "conflict" });
  });

  it("strangers and pending friends can neither read nor like nor unlike; unknown moments are 404", async () => {
    const { stranger, pending, logId } = await trio();
    for (const who of [stranger, pending]) {
      expect(await listLikes(who.id, logId)).toMatchObject({ ok: false, kind: "forbidden" });
      expect(await likeMoment(who.id, logId)).toEqual({
        ok: false,
        kind: "forbidden",
        message: "You are not allowed to like this daily log",
        hidden: true,
      });
      expect(await unlikeMoment(who.id, logId)).toMatchObject({ ok: false, kind: "forbidden" });
      // loadSocial applies the same rule: nothing leaks even if a caller forgot to check
      expect((await loadSocial(who, [logId]))[logId]).toMatchObject({ likeCount: 0, commentCount: 0 });
    }
    expect(await listLikes(stranger.id, 999999)).toEqual({
      ok: false,
      kind: "not-found",
      message: "Daily log not found",
    });
    expect(await likeMoment(stranger.id, 999999)).toMatchObject({ kind: "not-found", message: "Daily log not found" });
    expect(await unlikeMoment(stranger.id, 999999)).toMatchObject({ kind: "not-found", message: "Like not found" });
    expect(await db()("likes").where("daily_log_id", logId)).toHaveLength(0);
  });

  it("a friendship that ends takes the access with it", async () => {
    const { owner, friend, logId } = await trio();
    expect((await likeMoment(friend.id, logId)).ok).toBe(true);
    await db()("friendships").where(pairOf(owner.id, friend.id)).del();
    expect(await listLikes(friend.id, logId)).toMatchObject({ kind: "forbidden" });
    expect(await addComment(friend.id, logId, "hi")).toMatchObject({ kind: "forbidden" });
  });
});

describe("comments", () => {
  it("adds trimmed text, newest first, with the author's names", async () => {
    const { owner, friend, logId } = await trio();
    const first = await addComment(friend.id, logId, "  first  ");
    expect(first).toMatchObject({
      ok: true,
      comment: {
        daily_log_id: logId,
        user_id: friend.id,
        comment: "first",
        user: { first_name: friend.first_name, last_name: friend.last_name, photo: null },
      },
    });
    await addComment(owner.id, logId, "second");
    const list = await listComments(friend.id, logId);
    expect(list.ok && list.comments.map((c) => c.comment)).toEqual(["second", "first"]);
  });

  it("refuses empty, whitespace-only and over-long text; 1000 characters after trimming is fine", async () => {
    const { friend, logId } = await trio();
    for (const bad of ["", "   \n\t ", undefined, null, 42 as unknown as string]) {
      const r = await addComment(friend.id, logId, bad);
      expect(r).toEqual({
        ok: false,
        kind: "invalid",
        message: "Comment is required",
        fieldErrors: { comment: ["Comment is required"] },
      });
    }
    expect(await addComment(friend.id, logId, "x".repeat(1001))).toMatchObject({
      kind: "invalid",
      fieldErrors: { comment: ["Comment can not be more than 1000 characters"] },
    });
    const ok = await addComment(friend.id, logId, `  ${"y".repeat(1000)}  `);
    expect(ok.ok && ok.comment.comment.length).toBe(1000);
    const count = await db()("comments").where("daily_log_id", logId).count({ n: "*" }).first();
    expect(Number(count?.n)).toBe(1);
  });

  it("editing keeps created_at and the comment's place; only the author may edit or delete", async () => {
    const { owner, friend, logId } = await trio();
    const a = await addComment(friend.id, logId, "oldest");
    await addComment(owner.id, logId, "middle");
    await addComment(friend.id, logId, "newest");
    if (!a.ok) throw new Error("add failed");

    // not the author: refused, nothing changes
    expect(await updateComment(owner.id, a.comment.id, "hijack")).toEqual({
      ok: false,
      kind: "forbidden",
      message: "You are not authorized to edit this comment",
    });
    expect(await deleteComment(owner.id, a.comment.id)).toEqual({
      ok: false,
      kind: "forbidden",
      message: "You are not authorized to delete this comment",
    });

    const edited = await updateComment(friend.id, a.comment.id, "  oldest, edited ");
    expect(edited).toMatchObject({
      ok: true,
      comment: { comment: "oldest, edited", created_at: a.comment.created_at },
    });
    const list = await listComments(owner.id, logId);
    expect(list.ok && list.comments.map((c) => c.comment)).toEqual(["newest", "middle", "oldest, edited"]);
    const social = (await loadSocial(friend, [logId]))[logId]!;
    expect(social.comments.map((c) => [c.comment, c.mine, c.edited])).toEqual([
      ["newest", true, false],
      ["middle", false, false],
      ["oldest, edited", true, true],
    ]);

    expect(await updateComment(friend.id, a.comment.id, "   ")).toMatchObject({
      kind: "invalid",
      fieldErrors: { comment: ["Comment is required"] },
    });
    expect(await updateComment(friend.id, 999999, "x")).toEqual({
      ok: false,
      kind: "not-found",
      message: "Comment not found",
    });
    // the page names the moment too: a comment of another moment is "not found"
    const other = await makeKidMoment(await makeKid(owner.id));
    expect(await updateComment(friend.id, a.comment.id, "x", { momentId: other })).toMatchObject({ kind: "not-found" });

    expect(await deleteComment(friend.id, a.comment.id)).toMatchObject({ ok: true, comment: { id: a.comment.id } });
    expect(await deleteComment(friend.id, a.comment.id)).toEqual({
      ok: false,
      kind: "not-found",
      message: "Comment not found",
    });
    const after = await listComments(owner.id, logId);
    expect(after.ok && after.comments.map((c) => c.comment)).toEqual(["newest", "middle"]);
  });

  it("strangers and pending friends can neither read nor comment", async () => {
    const { friend, stranger, pending, logId } = await trio();
    const c = await addComment(friend.id, logId, "hello");
    if (!c.ok) throw new Error("add failed");
    for (const who of [stranger, pending]) {
      expect(await listComments(who.id, logId)).toMatchObject({ ok: false, kind: "forbidden" });
      expect(await addComment(who.id, logId, "hi")).toEqual({
        ok: false,
        kind: "forbidden",
        message: "You are not allowed to comment this daily log",
        hidden: true,
      });
      expect(await updateComment(who.id, c.comment.id, "x")).toMatchObject({ kind: "forbidden", hidden: true });
      expect(await deleteComment(who.id, c.comment.id)).toMatchObject({ kind: "forbidden", hidden: true });
    }
    expect(await listComments(friend.id, 999999)).toMatchObject({ kind: "not-found", message: "Daily log not found" });
    expect(await addComment(friend.id, 999999, "")).toMatchObject({ kind: "not-found" });
  });
});

describe("loadSocial", () => {
  async function setup(n: number) {
    const owner = await makeUser();
    const fans = [await makeUser(), await makeUser()];
    for (const f of fans) await befriend(owner.id, f.id);
    const kid = await makeKid(owner.id);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = await makeKidMoment(kid);
      ids.push(id);
      for (const f of fans) {
        await likeMoment(f.id, id);
        await addComment(f.id, id, `from ${f.username} on ${i}`);
      }
      await addComment(owner.id, id, `owner on ${i}`);
    }
    return { owner, fans, ids };
  }

  it("uses the same number of queries for 1 and for 20 moments", async () => {
    const one = await setup(1);
    const twenty = await setup(20);
    const q1 = await countQueries(() => loadSocial(one.owner, one.ids));
    const q20 = await countQueries(() => loadSocial(twenty.owner, twenty.ids));
    const q20capped = await countQueries(() => loadSocial(twenty.owner, twenty.ids, { commentsPerMoment: 2 }));
    expect(q1).toBe(2);
    expect(q20).toBe(q1);
    expect(q20capped).toBe(q1);
    expect(await countQueries(() => loadSocial(one.owner, []))).toBe(0);

    const all = await loadSocial(twenty.fans[0]!, twenty.ids);
    for (const id of twenty.ids) {
      expect(all[id]).toMatchObject({ likeCount: 2, likedByMe: true, commentCount: 3 });
      expect(all[id]!.comments).toHaveLength(3);
      expect(all[id]!.comments[0]!.comment).toMatch(/^owner on/);
    }
  });

  it("caps comments per moment on request but still counts them all", async () => {
    const { owner, ids } = await setup(3);
    const capped = await loadSocial(owner, ids, { commentsPerMoment: 2 });
    for (const id of ids) {
      expect(capped[id]!.commentCount).toBe(3);
      expect(capped[id]!.comments.map((c) => c.comment)).toEqual([
        expect.stringMatching(/^owner on/),
        expect.stringMatching(/^from /),
      ]);
    }
    const none = await loadSocial(owner, ids, { commentsPerMoment: 0 });
    expect(none[ids[0]!]).toMatchObject({ commentCount: 3, comments: [] });
  });
});
