// Co-parenting follows the friendship, and a kid handed over on an account's deletion shows nobody
// anything new (docs/decisions/0041-co-parenting-follows-the-friendship.md): the models, the
// Friends page's confirm step (no JavaScript needed: a redirect to a page with the question) and
// the API, on the real database.
import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { canViewImage, requireKid, requireMoment } from "~/models/access.server";
import { answerCoParentInvitation, inviteCoParent, showKidToFriends } from "~/models/co-parents.server";
import { deleteFriendship, pairOf } from "~/models/friendships.server";
import { blockUser } from "~/models/blocks.server";
import { deleteAccount } from "~/models/account.server";
import { listComments } from "~/models/comments.server";
import { listKidsOf } from "~/models/kids.server";
import { listNotifications } from "~/models/notifications.server";
import { loadExport } from "~/models/export.server";
import { updateMoment } from "~/models/moment-changes.server";
import * as friendsPage from "~/routes/friends";
import * as friendPage from "~/routes/friend";
import * as coParentsPage from "~/routes/kid-co-parents";
import * as friendshipsApi from "~/routes/api/friendships-id";
import * as kidApi from "~/routes/api/kids-id";
import { args, cookieFor, makeUser, req } from "../helpers";
import {
  fileFriend,
  insertCoParent,
  insertComment,
  insertFriendship,
  insertKid,
  insertMoment,
  storePhoto,
} from "./friends-fixtures";

type Id = { id: number };
const coParentRows = (kidId: number) =>
  db()("co_parents").where("kid_id", kidId).orderBy("id").select("user_id", "status");
const friendshipRow = (id: number) => db()("friendships").where("id", id).first("id");

/** O owns a kid C co-parents, with an "Only us" moment; C owns a kid O is invited to co-parent. */
async function coParents() {
  const owner = await makeUser();
  const coParent = await makeUser();
  const friendshipId = await insertFriendship(owner, coParent, "accepted");
  const kidId = await insertKid(owner, "Robin");
  await insertCoParent(kidId, coParent, "accepted");
  const usMoment = await insertMoment(kidId, "Just us");
  await db()("daily_logs").where("id", usMoment).update({ audience: "us" });
  const theirKid = await insertKid(coParent, "Sky");
  await insertCoParent(theirKid, owner, "pending");
  return { owner, coParent, friendshipId, kidId, usMoment, theirKid };
}

async function answer(
  run: () => Promise<unknown>,
): Promise<{ status: number; location: string | null; data?: unknown }> {
  let v: unknown;
  try {
    v = await run();
  } catch (e) {
    v = e;
  }
  if (v instanceof Response) return { status: v.status, location: v.headers.get("Location") };
  const d = v as { type?: string; init?: { status?: number } | null; data?: unknown };
  if (d?.type === "DataWithResponseInit") return { status: d.init?.status ?? 200, location: null, data: d.data };
  return { status: 200, location: null, data: v };
}

describe("co-parenting follows the friendship", () => {
  it("removing the friend ends their co-parenting and the invitations between the two, either way", async () => {
    const w = await coParents();
    expect((await requireMoment(w.coParent.id, w.usMoment)).ok).toBe(true);
    expect((await deleteFriendship(w.owner.id, w.friendshipId, { status: "accepted" })).ok).toBe(true);
    expect(await coParentRows(w.kidId)).toEqual([]);
    expect(await coParentRows(w.theirKid)).toEqual([]);
    // the former co-parent sees nothing of the kid any more, "Only us" included, and cannot post
    expect(await requireMoment(w.coParent.id, w.usMoment)).toMatchObject({
      ok: false,
      kind: "forbidden",
      hidden: true,
    });
    expect(await requireKid(w.coParent.id, w.kidId, "change")).toMatchObject({ ok: false, kind: "forbidden" });
    expect((await listKidsOf(w.coParent.id)).map((k) => k.id)).not.toContain(w.kidId);
  });

  it("a pending invitation cannot be accepted once the friendship has ended", async () => {
    const owner = await makeUser();
    const invited = await makeUser();
    const f = await insertFriendship(owner, invited, "accepted");
    const kidId = await insertKid(owner, "Lou");
    const sent = await inviteCoParent(owner.id, kidId, invited.id);
    if (!sent.ok) throw new Error("setup");
    // the invited friend ends the friendship themselves
    expect((await deleteFriendship(invited.id, f, { status: "accepted" })).ok).toBe(true);
    expect(await answerCoParentInvitation(invited.id, sent.invitationId, "accepted")).toMatchObject({
      ok: false,
      kind: "not-found",
    });
    expect(await requireKid(invited.id, kidId)).toMatchObject({ ok: false });
    // an invitation left behind without a friendship (written before friendships took them along) is refused too
    const legacy = await insertCoParent(kidId, invited, "pending");
    expect(await answerCoParentInvitation(invited.id, legacy, "accepted")).toMatchObject({
      ok: false,
      kind: "not-found",
    });
    expect(await coParentRows(kidId)).toEqual([{ user_id: invited.id, status: "pending" }]);
    expect(await requireKid(invited.id, kidId)).toMatchObject({ ok: false });
  });

  it("a block ends co-parenting and invitations either way", async () => {
    const w = await coParents();
    expect((await blockUser(w.coParent.id, w.owner.id)).ok).toBe(true);
    expect(await coParentRows(w.kidId)).toEqual([]);
    expect(await coParentRows(w.theirKid)).toEqual([]);
  });

  it("the Friends page asks first (without JavaScript too), then Remove Friend ends the co-parenting", async () => {
    const w = await coParents();
    const cookie = await cookieFor(w.owner);
    const page = await friendsPage.loader(args(req("/current/friends", { cookie })));
    expect(page.confirm).toBeNull();
    // the friend's own page says what ending the friendship ends, and asks there
    const own = `/current/friends/${w.coParent.id}`;
    const ownArgs = (url: string) => args(req(url, { cookie }), { userId: String(w.coParent.id) });
    const entry = (await friendPage.loader(ownArgs(own))).friend;
    expect(entry.ends).toBe(
      `This also ends ${w.coParent.username}'s co-parenting of Robin and ${w.coParent.username}'s invitation to you to co-parent Sky. Co-parenting lasts only as long as the friendship.`,
    );
    expect((await friendPage.loader(ownArgs(own))).confirm).toBeNull();
    expect((await friendPage.loader(ownArgs(`${own}?confirm=remove`))).confirm).toEqual({
      intent: "remove",
      who: w.coParent.username,
      id: w.friendshipId,
      ends: entry.ends,
    });
    // a plain post (a page loaded before, or no dialog) does not take effect: it is sent to the question
    const plain = await answer(() =>
      friendsPage.action(
        args(req("/current/friends", { cookie, form: { intent: "remove", friendshipId: String(w.friendshipId) } })),
      ),
    );
    expect(plain).toMatchObject({
      status: 303,
      location: `/current/friends?confirm=remove&friendshipId=${w.friendshipId}`,
    });
    expect(await friendshipRow(w.friendshipId)).toBeDefined();
    expect(await coParentRows(w.kidId)).toHaveLength(1);
    // the question
    const asked = await friendsPage.loader(args(req(plain.location!, { cookie })));
    expect(asked.confirm).toEqual({ intent: "remove", who: w.coParent.username, id: w.friendshipId, ends: entry.ends });
    // the answer
    const yes = await answer(() =>
      friendsPage.action(
        args(
          req("/current/friends", {
            cookie,
            form: { intent: "remove", friendshipId: String(w.friendshipId), confirmed: "yes" },
          }),
        ),
      ),
    );
    expect(yes).toMatchObject({ status: 303, location: "/current/friends" });
    expect(await friendshipRow(w.friendshipId)).toBeUndefined();
    expect(await coParentRows(w.kidId)).toEqual([]);
    expect(await coParentRows(w.theirKid)).toEqual([]);
  });

  it("the Friends page asks first before a Block that ends co-parenting; a friend without any is removed at once", async () => {
    const w = await coParents();
    const cookie = await cookieFor(w.coParent);
    const plain = await answer(() =>
      friendsPage.action(
        args(req("/current/friends", { cookie, form: { intent: "block", userId: String(w.owner.id) } })),
      ),
    );
    expect(plain).toMatchObject({ status: 303, location: `/current/friends?confirm=block&userId=${w.owner.id}` });
    expect(await db()("blocks").where({ blocker_id: w.coParent.id }).first()).toBeUndefined();
    const asked = await friendsPage.loader(args(req(plain.location!, { cookie })));
    expect(asked.confirm).toMatchObject({ intent: "block", who: w.owner.username, id: w.owner.id });
    expect(asked.confirm!.ends).toContain("your co-parenting of Robin");
    const yes = await answer(() =>
      friendsPage.action(
        args(
          req("/current/friends", { cookie, form: { intent: "block", userId: String(w.owner.id), confirmed: "yes" } }),
        ),
      ),
    );
    expect(yes).toMatchObject({ status: 303, location: "/current/friends" });
    expect(await coParentRows(w.kidId)).toEqual([]);
    // nothing shared: no question
    const other = await makeUser();
    const f = await insertFriendship(w.coParent, other, "accepted");
    const page = await friendPage.loader(
      args(req(`/current/friends/${other.id}`, { cookie }), { userId: String(other.id) }),
    );
    expect(page.friend.ends).toBeNull();
    const removed = await answer(() =>
      friendsPage.action(
        args(req("/current/friends", { cookie, form: { intent: "remove", friendshipId: String(f) } })),
      ),
    );
    expect(removed).toMatchObject({ status: 303, location: "/current/friends" });
    expect(await friendshipRow(f)).toBeUndefined();
  });

  it("DELETE /api/friendships/{id} ends the co-parenting too: the former co-parent's GET of the kid is 403", async () => {
    const w = await coParents();
    const kidAsCoParent = async () =>
      (
        await answer(() =>
          kidApi.loader(args(req(`/api/kids/${w.kidId}`, { cookie: coParentCookie }), { id: String(w.kidId) })),
        )
      ).status;
    const coParentCookie = await cookieFor(w.coParent);
    expect(await kidAsCoParent()).toBe(200);
    const ownerCookie = await cookieFor(w.owner);
    const res = await answer(() =>
      friendshipsApi.action(
        args(req(`/api/friendships/${w.friendshipId}`, { method: "DELETE", cookie: ownerCookie }), {
          id: String(w.friendshipId),
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(await kidAsCoParent()).toBe(403);
    expect(await coParentRows(w.theirKid)).toEqual([]);
  });
});

describe("deleting an account hands nothing over to strangers", () => {
  /**
   * O owns a kid with C as co-parent; S is C's friend and a stranger to O. O's moments of each
   * audience have photos; B (O's friend, also C's) commented, then O blocked B; F (O's friend)
   * commented too. P is invited to co-parent, E is a second co-parent who is no friend of C.
   */
  async function handOver() {
    const [owner, coParent, stranger, blocked, friend, invited, second] = [
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
    ];
    for (const u of [coParent, blocked, friend, invited, second]) await insertFriendship(owner, u, "accepted");
    await fileFriend(
      await db()("friendships")
        .where(pairOf(owner.id, friend.id))
        .first("id")
        .then((r) => Number(r.id)),
      owner,
      "family",
    );
    await fileFriend(await insertFriendship(coParent, stranger, "accepted"), coParent, "family");
    await insertFriendship(coParent, blocked, "accepted");
    const kidId = await insertKid(owner, "Noa");
    await db()("kids").where("id", kidId).update({ default_audience: "everyone" });
    await insertCoParent(kidId, coParent, "accepted");
    await insertCoParent(kidId, second, "accepted");
    await insertCoParent(kidId, invited, "pending");
    const moments: Record<"us" | "family" | "everyone", { id: number; photo: { imageId: number } }> = {} as never;
    for (const audience of ["us", "family", "everyone"] as const) {
      const photo = await storePhoto("moment", owner.id, "#48a");
      const id = await insertMoment(kidId, `For ${audience}`, photo.imageId);
      await db()("daily_logs").where("id", id).update({ audience });
      moments[audience] = { id, photo };
    }
    const hiddenComment = await insertComment(moments.everyone.id, blocked, "Before the block");
    const shownComment = await insertComment(moments.everyone.id, friend, "Lovely");
    expect((await blockUser(owner.id, blocked.id)).ok).toBe(true);
    return { owner, coParent, stranger, blocked, friend, invited, second, kidId, moments, hiddenComment, shownComment };
  }
  const commentIds = async (viewer: Id, momentId: number) => {
    const r = await listComments(viewer.id, momentId);
    return r.ok ? r.comments.map((c) => c.id) : null;
  };

  it("the new owner's friends see none of the old moments, photos or comments; blocked comments stay hidden; the new owner is told", async () => {
    const w = await handOver();
    expect(await deleteAccount(w.owner.id, { password: "secret1" })).toEqual({ ok: true });
    expect(await requireKid(w.coParent.id, w.kidId, "own")).toMatchObject({ ok: true });
    for (const audience of ["us", "family", "everyone"] as const) {
      const m = w.moments[audience];
      expect(await requireMoment(w.stranger.id, m.id), audience).toMatchObject({ ok: false, hidden: true });
      expect(await requireMoment(w.blocked.id, m.id), audience).toMatchObject({ ok: false, hidden: true });
      expect(
        await canViewImage(w.stranger.id, { id: m.photo.imageId, kind: "moment", owner_id: w.coParent.id }),
        audience,
      ).toBe(false);
      expect(await commentIds(w.stranger, m.id)).toBeNull();
    }
    // every moment is "Only us" now, and so is the kid's default, until the new owner chooses
    expect(await db()("daily_logs").where("kid_id", w.kidId).distinct().pluck("audience")).toEqual(["us"]);
    expect(await db()("kids").where("id", w.kidId).first("default_audience")).toEqual({ default_audience: "us" });
    // the old owner's invitation ends, and so does the role of a co-parent who is no friend of the new owner
    expect(await coParentRows(w.kidId)).toEqual([]);
    expect(await requireKid(w.second.id, w.kidId)).toMatchObject({ ok: false });
    // the comment the old owner's block hid stays hidden, from the new owner too (their export
    // included, which now holds the kid's every moment); the other stays
    expect(await commentIds(w.coParent, w.moments.everyone.id)).toEqual([w.shownComment]);
    const exported = JSON.stringify(await loadExport(w.coParent.id));
    expect(exported).toContain("Lovely");
    expect(exported).not.toContain("Before the block");
    const { digestContent } = await import("~/mail/digest.server");
    const digest = await digestContent(
      w.coParent.id,
      "1970-01-01T00:00:00.000Z",
      new Date(Date.now() + 60_000).toISOString(),
    );
    expect(JSON.stringify(digest)).toContain("Lovely");
    expect(JSON.stringify(digest)).not.toContain("Before the block");
    // the kid itself is hidden from the new owner's friends until the new owner shows it
    expect(await requireKid(w.stranger.id, w.kidId)).toMatchObject({ ok: false, hidden: true });
    expect(await showKidToFriends(w.stranger.id, w.kidId)).toMatchObject({ ok: false });
    expect(await showKidToFriends(w.coParent.id, w.kidId)).toEqual({ ok: true, kidId: w.kidId });
    expect((await requireKid(w.stranger.id, w.kidId)).ok).toBe(true);
    expect(await requireMoment(w.stranger.id, w.moments.everyone.id)).toMatchObject({ ok: false, hidden: true });
    // the new owner shares the moment again: their friend sees it, the blocked comment stays hidden
    const shared = await updateMoment(
      w.coParent.id,
      w.moments.everyone.id,
      { title: "For everyone", content: "So proud.", audience: "everyone" },
      null,
    );
    expect(shared.ok).toBe(true);
    expect(await commentIds(w.stranger, w.moments.everyone.id)).toEqual([w.shownComment]);
    expect(await commentIds(w.blocked, w.moments.everyone.id)).toEqual([w.shownComment]);
    // told
    const { notifications } = await listNotifications(w.coParent.id);
    expect(notifications.map((n) => [n.kind, n.href])).toContainEqual(["kid-handed-over", "/my-kids-list"]);
    expect(notifications.find((n) => n.kind === "kid-handed-over")!.text).toContain("Only us");
  });

  it("the new owner shows the kid to their friends on its Co-parents page (a plain form)", async () => {
    const w = await handOver();
    expect(await deleteAccount(w.owner.id, { password: "secret1" })).toEqual({ ok: true });
    const cookie = await cookieFor(w.coParent);
    const params = { kidId: String(w.kidId) };
    const page = await coParentsPage.loader(args(req(`/kids/${w.kidId}/co-parents`, { cookie }), params));
    expect(page.hiddenFromFriends).toBe(true);
    // a friend of theirs cannot, and gets the not-found page (the kid is hidden from them)
    const strangerCookie = await cookieFor(w.stranger);
    const notTheirs = await answer(() =>
      coParentsPage.action(
        args(
          req(`/kids/${w.kidId}/co-parents`, { cookie: strangerCookie, form: { intent: "show-to-friends" } }),
          params,
        ),
      ),
    );
    expect(notTheirs.status).toBe(404);
    const shown = await answer(() =>
      coParentsPage.action(
        args(req(`/kids/${w.kidId}/co-parents`, { cookie, form: { intent: "show-to-friends" } }), params),
      ),
    );
    expect(shown).toMatchObject({ status: 303, location: `/kids/${w.kidId}/co-parents` });
    expect(
      (await coParentsPage.loader(args(req(`/kids/${w.kidId}/co-parents`, { cookie }), params))).hiddenFromFriends,
    ).toBe(false);
    expect((await requireKid(w.stranger.id, w.kidId)).ok).toBe(true);
  });
});
