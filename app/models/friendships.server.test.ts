import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { canSeeKidsOf, kidAccess, momentAccess } from "./access.server";
import {
  answerFriendRequest,
  deleteFriendship,
  getFriendship,
  parseUserId,
  pairOf,
  sendFriendRequest,
} from "./friendships.server";
import { listFriends, listFriendships, pendingRequestTo } from "./friend-lists.server";
import { makeUser } from "../../tests/helpers";
import { insertFriendship, insertKid, insertMoment, storePhoto } from "../../tests/unit/friends-fixtures";

const SELF = "You cannot send a friend request to yourself.";
const EXISTS = "Friendship already exists. Please try another name.";

async function rowsBetween(a: { id: number }, b: { id: number }) {
  return db()("friendships").where(pairOf(a.id, b.id)).select("*");
}

describe("parseUserId", () => {
  it("reads an id however a client writes it", () => {
    for (const v of [7, "7", " 7 ", "07", "+7", "7.0", 7.0]) expect(parseUserId(v)).toBe(7);
    for (const v of [
      0,
      -7,
      "-7",
      7.5,
      "7.5",
      "7a",
      "",
      " ",
      null,
      undefined,
      {},
      [7],
      true,
      "0x7",
      "1e1",
      Number.MAX_VALUE,
    ]) {
      expect(parseUserId(v)).toBeNull();
    }
  });
});

describe("sending a request", () => {
  it("creates one pending row from sender to receiver", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const result = await sendFriendRequest(a.id, b.id);
    expect(result).toMatchObject({
      ok: true,
      friendship: { user_id: a.id, friend_id: b.id, status: "pending" },
      friend: { id: b.id },
    });
    expect(await rowsBetween(a, b)).toHaveLength(1);
    expect(await pendingRequestTo(a.id, b.id)).toMatchObject({ id: b.id, first_name: b.first_name });
    expect(await pendingRequestTo(b.id, a.id)).toBeNull();
  });

  it("refuses a request to oneself however the id is written", async () => {
    const a = await makeUser();
    for (const id of [a.id, String(a.id), ` ${a.id} `, `0${a.id}`, `${a.id}.0`]) {
      expect(await sendFriendRequest(a.id, id)).toEqual({ ok: false, kind: "invalid", message: SELF });
    }
    expect(await db()("friendships").where("user_id", a.id).count({ n: "*" }).first()).toEqual({ n: 0 });
  });

  it("answers Friend not found for unknown or malformed ids", async () => {
    const a = await makeUser();
    for (const id of [999999, "999999", "abc", -1, 0, null, undefined]) {
      expect(await sendFriendRequest(a.id, id)).toEqual({ ok: false, kind: "not-found", message: "Friend not found" });
    }
  });

  it("refuses a second row in either direction, whatever the status", async () => {
    for (const status of ["pending", "accepted", "denied"] as const) {
      const [a, b] = [await makeUser(), await makeUser()];
      await insertFriendship(a, b, status);
      expect(await sendFriendRequest(a.id, b.id)).toEqual({ ok: false, kind: "conflict", message: EXISTS });
      expect(await sendFriendRequest(b.id, String(a.id))).toEqual({ ok: false, kind: "conflict", message: EXISTS });
      expect(await rowsBetween(a, b)).toHaveLength(1);
    }
  });

  it("two opposite requests at the same moment leave exactly one row; the other hears 'already exists'", async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await makeUser(), await makeUser()];
      const results = await Promise.all([sendFriendRequest(a.id, b.id), sendFriendRequest(b.id, a.id)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, kind: "conflict", message: EXISTS }]);
      expect(await rowsBetween(a, b)).toHaveLength(1);
    }
  });

  it("the same request twice at once also lands once", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const results = await Promise.all([1, 2, 3].map(() => sendFriendRequest(a.id, b.id)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(await rowsBetween(a, b)).toHaveLength(1);
  });
});

describe("answering a request", () => {
  it("the receiver accepts or denies a pending request", async () => {
    const [a, b, c] = [await makeUser(), await makeUser(), await makeUser()];
    const ab = await insertFriendship(a, b, "pending");
    const ac = await insertFriendship(a, c, "pending");
    expect(await answerFriendRequest(b.id, ab, "accepted")).toEqual({
      ok: true,
      friendship: { id: ab, user_id: a.id, friend_id: b.id, status: "accepted" },
    });
    expect(await answerFriendRequest(c.id, ac, "denied")).toMatchObject({ ok: true, friendship: { status: "denied" } });
    expect((await getFriendship(ab))?.status).toBe("accepted");
    expect((await getFriendship(ac))?.status).toBe("denied");
  });

  it("refuses the sender, strangers, unknown ids, other statuses and non-pending requests", async () => {
    const [a, b, stranger] = [await makeUser(), await makeUser(), await makeUser()];
    const id = await insertFriendship(a, b, "pending");
    const forbidden = {
      ok: false,
      kind: "forbidden",
      message: "Only the recipient can update the friend request status",
    };
    expect(await answerFriendRequest(a.id, id, "accepted")).toEqual(forbidden);
    expect(await answerFriendRequest(stranger.id, id, "denied")).toEqual(forbidden);
    expect(await answerFriendRequest(b.id, 999999, "accepted")).toEqual({
      ok: false,
      kind: "not-found",
      message: "Friendship not found",
    });
    for (const status of ["pending", "ACCEPTED", "", undefined, null, 1]) {
      expect(await answerFriendRequest(b.id, id, status)).toEqual({
        ok: false,
        kind: "invalid",
        message: "Invalid status update",
      });
    }
    expect((await getFriendship(id))?.status).toBe("pending");
    // answered once: no second answer either way
    expect((await answerFriendRequest(b.id, id, "denied")).ok).toBe(true);
    expect(await answerFriendRequest(b.id, id, "accepted")).toEqual({
      ok: false,
      kind: "conflict",
      message: "Invalid status update",
    });
    expect(await answerFriendRequest(b.id, id, "denied")).toEqual({
      ok: false,
      kind: "conflict",
      message: "Invalid status update",
    });
    const accepted = await insertFriendship(stranger, b, "accepted");
    expect(await answerFriendRequest(b.id, accepted, "denied")).toEqual({
      ok: false,
      kind: "conflict",
      message: "Invalid status update",
    });
    expect((await getFriendship(id))?.status).toBe("denied");
  });

  it("a cancel racing an accept: one wins, nothing half-done", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const id = await insertFriendship(a, b, "pending");
    const [accept, cancel] = await Promise.all([
      answerFriendRequest(b.id, id, "accepted"),
      deleteFriendship(a.id, id, { status: "pending", role: "sender" }),
    ]);
    expect([accept.ok, cancel.ok].filter(Boolean)).toHaveLength(1);
    const row = await getFriendship(id);
    if (accept.ok) expect(row?.status).toBe("accepted");
    else expect(row).toBeNull();
  });
});

describe("deleting", () => {
  it("either party may delete, in any status", async () => {
    for (const status of ["pending", "accepted", "denied"] as const) {
      for (const who of ["sender", "receiver"] as const) {
        const [a, b] = [await makeUser(), await makeUser()];
        const id = await insertFriendship(a, b, status);
        const result = await deleteFriendship(who === "sender" ? a.id : b.id, id);
        expect(result).toEqual({ ok: true, friendship: { id, user_id: a.id, friend_id: b.id, status } });
        expect(await getFriendship(id)).toBeNull();
      }
    }
  });

  it("refuses strangers (403) and unknown ids (404)", async () => {
    const [a, b, c] = [await makeUser(), await makeUser(), await makeUser()];
    const id = await insertFriendship(a, b, "accepted");
    expect(await deleteFriendship(c.id, id)).toEqual({
      ok: false,
      kind: "forbidden",
      message: "You are not authorized",
    });
    expect(await deleteFriendship(a.id, 999999)).toEqual({
      ok: false,
      kind: "not-found",
      message: "Friendship not found",
    });
    expect(await getFriendship(id)).not.toBeNull();
  });

  it("a button's expectation keeps a stale click from doing something else", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const id = await insertFriendship(a, b, "accepted"); // b accepted while a still saw "Cancel Request"
    expect(await deleteFriendship(a.id, id, { status: "pending", role: "sender" })).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    expect(await deleteFriendship(b.id, id, { status: "accepted", role: "sender" })).toMatchObject({
      ok: false,
      kind: "forbidden",
    });
    expect(await getFriendship(id)).not.toBeNull();
    expect((await deleteFriendship(b.id, id, { status: "accepted" })).ok).toBe(true);
  });

  it("after a delete a new request may be sent again, either way", async () => {
    const [a, b] = [await makeUser(), await makeUser()];
    const first = await sendFriendRequest(a.id, b.id);
    if (!first.ok) throw new Error("no request");
    expect((await deleteFriendship(a.id, first.friendship.id)).ok).toBe(true);
    expect((await sendFriendRequest(b.id, a.id)).ok).toBe(true);
  });
});

describe("lists", () => {
  it("groups pending (sent or received), confirmed (with kids) and denied (sent only); kids in one query", async () => {
    const me = await makeUser();
    const [friend1, friend2, asked, asker, refuser, refused, noKids] = [
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
    ];
    const photo = await storePhoto("kid", friend1.id);
    const k1 = await insertKid(friend1, "Ada", photo.imageId);
    const k2 = await insertKid(friend1, "Bo");
    const k3 = await insertKid(friend2, "Cy");
    await insertKid(asked, "Hidden1");
    await insertKid(asker, "Hidden2");
    await insertKid(refuser, "Hidden3");
    await insertKid(refused, "Hidden4");
    const f1 = await insertFriendship(me, friend1, "accepted");
    const f2 = await insertFriendship(friend2, me, "accepted");
    const f3 = await insertFriendship(me, noKids, "accepted");
    const p1 = await insertFriendship(me, asked, "pending");
    const p2 = await insertFriendship(asker, me, "pending");
    const d1 = await insertFriendship(me, refuser, "denied");
    await insertFriendship(refused, me, "denied"); // I denied it: never shown to me again

    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    db().on("query", onQuery);
    const lists = await listFriends(me.id);
    db().off("query", onQuery);
    expect(queries).toHaveLength(2);

    const byId = (entries: typeof lists.confirmed) =>
      entries.map((e) => [e.friendshipId, e.user.id, e.direction, e.status]);
    expect(byId(lists.pending)).toEqual([
      [p1, asked.id, "sent", "pending"],
      [p2, asker.id, "received", "pending"],
    ]);
    expect(byId(lists.denied)).toEqual([[d1, refuser.id, "sent", "denied"]]);
    expect(new Set(byId(lists.confirmed).map((e) => e[0]))).toEqual(new Set([f1, f2, f3]));
    for (const e of [...lists.pending, ...lists.denied]) expect(e.kids).toEqual([]);
    const kidsOf = (id: number) => lists.confirmed.find((e) => e.user.id === id)!.kids;
    expect(kidsOf(friend1.id).map((k) => [k.id, k.name])).toEqual([
      [k1, "Ada"],
      [k2, "Bo"],
    ]);
    expect(kidsOf(friend1.id)[0]).toMatchObject({
      user_id: friend1.id,
      birth_date: "2020-05-06",
      relationship: "Mom",
      photo: { key: photo.key },
    });
    expect(kidsOf(friend2.id).map((k) => k.id)).toEqual([k3]);
    expect(kidsOf(noKids.id)).toEqual([]);
    // no email anywhere
    expect(JSON.stringify(lists)).not.toContain("@example.com");

    // the other side sees my denial as nothing, and my request as received
    const theirs = await listFriends(refused.id);
    expect(theirs.denied.map((e) => e.user.id)).toEqual([me.id]);
    const askedLists = await listFriends(asked.id);
    expect(askedLists.pending.map((e) => [e.user.id, e.direction])).toEqual([[me.id, "received"]]);
    expect((await listFriends(refuser.id)).denied).toEqual([]);
  });

  it("the query count does not grow with the number of friends", async () => {
    const me = await makeUser();
    for (let i = 0; i < 12; i++) {
      const f = await makeUser();
      await insertKid(f, `Kid${i}`);
      await insertFriendship(i % 2 ? me : f, i % 2 ? f : me, "accepted");
    }
    let count = 0;
    const onQuery = () => count++;
    db().on("query", onQuery);
    const lists = await listFriends(me.id);
    db().off("query", onQuery);
    expect(lists.confirmed).toHaveLength(12);
    expect(lists.confirmed.every((e) => e.kids.length === 1)).toBe(true);
    expect(count).toBe(2);
  });

  it("listFriendships returns every row the caller is a party to, in id order", async () => {
    const [a, b, c, d] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
    const x = await insertFriendship(a, b, "pending");
    const y = await insertFriendship(c, a, "denied");
    await insertFriendship(c, d, "accepted");
    expect(await listFriendships(a.id)).toEqual([
      { id: x, user_id: a.id, friend_id: b.id, status: "pending" },
      { id: y, user_id: c.id, friend_id: a.id, status: "denied" },
    ]);
  });
});

describe("access follows the friendship with the very next request", () => {
  it("pending gives nothing, accepted gives everything, remove and deny end it at once", async () => {
    const [owner, viewer] = [await makeUser(), await makeUser()];
    const kid = await insertKid(owner);
    const log = await insertMoment(kid);
    const sees = async () => [
      await canSeeKidsOf(viewer.id, owner.id),
      (await kidAccess(viewer.id, kid))?.visible,
      (await momentAccess(viewer.id, log))?.visible,
    ];
    expect(await sees()).toEqual([false, false, false]);

    const sent = await sendFriendRequest(viewer.id, owner.id);
    if (!sent.ok) throw new Error("not sent");
    expect(await sees()).toEqual([false, false, false]);
    expect((await answerFriendRequest(owner.id, sent.friendship.id, "accepted")).ok).toBe(true);
    expect(await sees()).toEqual([true, true, true]);
    expect(await canSeeKidsOf(owner.id, viewer.id)).toBe(true);

    // removed by the owner: gone with the next check
    expect((await deleteFriendship(owner.id, sent.friendship.id)).ok).toBe(true);
    expect(await sees()).toEqual([false, false, false]);

    // a new request, denied this time: still nothing
    const again = await sendFriendRequest(owner.id, viewer.id);
    if (!again.ok) throw new Error("not sent");
    expect((await answerFriendRequest(viewer.id, again.friendship.id, "denied")).ok).toBe(true);
    expect(await sees()).toEqual([false, false, false]);
    expect(await canSeeKidsOf(owner.id, viewer.id)).toBe(false);
  });
});
