import { describe, expect, it } from "vitest";
import * as friendsPage from "./friends";
import * as friendPage from "./friend";
import * as searchPage from "./friend-search";
import { getFriendship } from "~/models/friendships.server";
import { args, context, cookieFor, makeUser, req } from "../../tests/helpers";
import { insertFriendship, insertKid } from "../../tests/unit/friends-fixtures";

// The two pages' loaders and actions with real requests (the e2e spec drives the same in a browser).

type DataWithResponseInit = { type: "DataWithResponseInit"; data: unknown; init: { status?: number } | null };
const isData = (v: unknown): v is DataWithResponseInit => (v as DataWithResponseInit)?.type === "DataWithResponseInit";
const unwrap = (v: unknown) =>
  isData(v) ? { status: v.init?.status ?? 200, data: v.data as never } : { status: 200, data: v as never };

async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("did not throw");
}

describe("/current/friends", () => {
  it("signed out: redirect to /login", async () => {
    const res = (await thrown(() => friendsPage.loader(args(req("/current/friends"))))) as Response;
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/login?redirectTo=%2Fcurrent%2Ffriends");
  });

  it("lists friends (id, name, photo, circle only; their kids are on their own page), received and sent requests", async () => {
    const me = await makeUser();
    const [friend, asker, asked, refuser] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
    const kid = await insertKid(friend, "Ada");
    await insertKid(asker, "Secret");
    const f = await insertFriendship(me, friend, "accepted");
    const r = await insertFriendship(asker, me, "pending");
    const s = await insertFriendship(me, asked, "pending");
    const d = await insertFriendship(me, refuser, "denied");
    const data = await friendsPage.loader(args(req("/current/friends", { cookie: await cookieFor(me) })));
    expect(data.friends).toEqual([
      {
        friendshipId: f,
        userId: friend.id,
        username: friend.username,
        name: `${friend.first_name} ${friend.last_name}`,
        photo: null,
        label: { circle: "friends", relationship: null },
      },
    ]);
    const own = await friendPage.loader(
      args(req(`/current/friends/${friend.id}`, { cookie: await cookieFor(me) }), { userId: String(friend.id) }),
    );
    expect(own.friend).toMatchObject({ friendshipId: f, kids: [{ id: kid, name: "Ada", photo: null }], ends: null });
    expect(data.received.map((p) => [p.friendshipId, p.userId])).toEqual([[r, asker.id]]);
    expect(data.sent.map((p) => [p.friendshipId, p.userId, p.denied])).toEqual([
      [s, asked.id, false],
      [d, refuser.id, true],
    ]);
    expect(JSON.stringify(data)).not.toMatch(/Secret|@example\.com/);
  });

  it("a friend's own page: only for a friend; the circle form saves and comes back, bad input is a 400 that changes nothing", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const [friend, asker] = [await makeUser(), await makeUser()];
    const f = await insertFriendship(me, friend, "accepted");
    await insertFriendship(asker, me, "pending");
    const at = (u: { id: number }, form?: Record<string, string>) =>
      args(req(`/current/friends/${u.id}`, { cookie, form }), { userId: String(u.id) });
    const status = async (fn: () => Promise<unknown>) => {
      try {
        const v = await fn();
        return v instanceof Response ? v.status : unwrap(v).status;
      } catch (e) {
        return unwrap(e).status;
      }
    };
    // not a friend (a pending requester, oneself, nobody): not found
    for (const u of [asker, me, { id: 999_999 }]) expect(await status(() => friendPage.loader(at(u)))).toBe(404);
    expect(await status(() => friendPage.action(at(asker, { intent: "label", circle: "family" })))).toBe(404);
    const saved = await friendPage.action(at(friend, { intent: "label", circle: "family", relationship: "cousin" }));
    expect(saved).toMatchObject({ status: 303 });
    expect((saved as Response).headers.get("Location")).toBe(`/current/friends/${friend.id}`);
    expect((await friendPage.loader(at(friend))).friend.label).toEqual({ circle: "family", relationship: "cousin" });
    expect(await status(() => friendPage.action(at(friend, { intent: "label", circle: "enemies" })))).toBe(400);
    expect(await status(() => friendPage.action(at(friend, { intent: "remove" })))).toBe(400);
    expect((await friendPage.loader(at(friend))).friend).toMatchObject({
      friendshipId: f,
      label: { circle: "family", relationship: "cousin" },
    });
  });

  it("each intent does its transition and redirects back; stale or foreign clicks change nothing", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const post = async (intent: string, friendshipId: number | string) => {
      try {
        return await friendsPage.action(
          args(req("/current/friends", { cookie, form: { intent, friendshipId: String(friendshipId) } })),
        );
      } catch (e) {
        return e;
      }
    };
    const isRedirect = (v: unknown) =>
      v instanceof Response && v.status === 303 && v.headers.get("Location") === "/current/friends";
    const [a, b, c, d, e] = [await makeUser(), await makeUser(), await makeUser(), await makeUser(), await makeUser()];

    const received = await insertFriendship(a, me, "pending");
    expect(unwrap(await post("cancel", received))).toMatchObject({ status: 403 }); // not my request to cancel
    expect(isRedirect(await post("accept", received))).toBe(true);
    expect((await getFriendship(received))?.status).toBe("accepted");
    expect(unwrap(await post("accept", received))).toMatchObject({ status: 400 });

    const toDeny = await insertFriendship(b, me, "pending");
    expect(isRedirect(await post("deny", toDeny))).toBe(true);
    expect((await getFriendship(toDeny))?.status).toBe("denied");

    const mine = await insertFriendship(me, c, "pending");
    expect(unwrap(await post("accept", mine))).toMatchObject({ status: 403 }); // only the receiver
    expect(unwrap(await post("remove", mine))).toMatchObject({ status: 400 }); // not a friend yet
    expect(isRedirect(await post("cancel", mine))).toBe(true);
    expect(await getFriendship(mine)).toBeNull();
    expect(unwrap(await post("cancel", mine))).toMatchObject({ status: 404 });

    const deniedMine = await insertFriendship(me, d, "denied");
    expect(unwrap(await post("cancel", deniedMine))).toMatchObject({ status: 400 });
    expect(isRedirect(await post("delete-denied", deniedMine))).toBe(true);
    expect(await getFriendship(deniedMine)).toBeNull();

    expect(isRedirect(await post("remove", received))).toBe(true);
    expect(await getFriendship(received)).toBeNull();

    const others = await insertFriendship(a, e, "accepted");
    expect(unwrap(await post("remove", others))).toMatchObject({ status: 403 });
    expect(unwrap(await post("bogus", others))).toMatchObject({ status: 400 });
    expect(unwrap(await post("remove", "x"))).toMatchObject({ status: 400 });
    expect(await getFriendship(others)).not.toBeNull();
  });
});

describe("/friendships/new", () => {
  const load = async (path: string, cookie?: string) => unwrap(await searchPage.loader(args(req(path, { cookie }))));

  it("signed out: redirect to /login", async () => {
    const res = (await thrown(() => searchPage.loader(args(req("/friendships/new?q=a"))))) as Response;
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });

  it("no query: empty page; blank: 400 with the spec's message; no hit: empty list; hits: id, name, photo", async () => {
    const cookie = await cookieFor(await makeUser());
    const hit = await makeUser({ first_name: "Wobblina", last_name: "Frotz" });
    expect(await load("/friendships/new", cookie)).toMatchObject({ status: 200, data: { hits: null, sent: null } });
    const blank = await load("/friendships/new?q=%20%20", cookie);
    expect(blank.status).toBe(400);
    expect(JSON.stringify(blank.data)).toContain("Please enter a name to search.");
    expect(await load("/friendships/new?q=zzznobodyzzz", cookie)).toMatchObject({ status: 200, data: { hits: [] } });
    expect(await load("/friendships/new?q=wobbLINA%20fr", cookie)).toMatchObject({
      status: 200,
      data: { hits: [{ id: hit.id, name: "Wobblina Frotz", photo: null }] },
    });
  });

  it("Add friend: redirects back with sent=<id>; the message shows only for a real pending request", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const friend = await makeUser({ first_name: "Petunia", last_name: "Grebe" });
    const res = (await searchPage.action(
      args(req("/friendships/new?q=petunia", { cookie, form: { intent: "add", friendId: String(friend.id) } })),
    )) as Response;
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/friendships/new?q=petunia&sent=${friend.id}`);
    expect((await load(`/friendships/new?q=petunia&sent=${friend.id}`, cookie)).data).toMatchObject({
      sent: "Friend request sent successfully to Petunia Grebe!",
    });
    // a crafted URL says nothing
    const stranger = await makeUser();
    expect((await load(`/friendships/new?sent=${stranger.id}`, cookie)).data).toMatchObject({ sent: null });
    expect((await load(`/friendships/new?sent=${friend.id}`, await cookieFor(stranger))).data).toMatchObject({
      sent: null,
    });
  });

  it("Add friend refusals: oneself, already exists, unknown, and a session that ended", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const other = await makeUser();
    await insertFriendship(other, me, "pending");
    const add = async (friendId: string, c: string | null = cookie) =>
      unwrap(
        await searchPage.action(
          args(req("/friendships/new?q=x", { cookie: c ?? undefined, form: { intent: "add", friendId } })),
        ),
      );
    expect(await add(String(me.id))).toEqual({
      status: 400,
      data: { error: "You cannot send a friend request to yourself.", status: 400 },
    });
    expect(await add(String(other.id))).toEqual({
      status: 400,
      data: { error: "Friendship already exists. Please try another name.", status: 400 },
    });
    expect(await add("99999999")).toEqual({ status: 404, data: { error: "Friend not found", status: 404 } });
    expect(await add(String(other.id), null)).toEqual({
      status: 401,
      data: { error: "Failed to authenticate. Please log in again.", status: 401 },
    });
  });

  it("each hit shows its username and where the searcher stands: You, Friends, Request sent/received/denied, or nothing", async () => {
    const me = await makeUser({ first_name: "Quillon", last_name: "Me" });
    const cookie = await cookieFor(me);
    const last = (n: string) => makeUser({ first_name: "Quillon", last_name: n });
    const [friend, asked, asker, refused, refuser, stranger] = [
      await last("Friend"),
      await last("Asked"),
      await last("Asker"),
      await last("Refused"),
      await last("Refuser"),
      await last("Stranger"),
    ];
    await insertFriendship(me, friend, "accepted");
    await insertFriendship(me, asked, "pending");
    await insertFriendship(asker, me, "pending");
    await insertFriendship(me, refused, "denied");
    await insertFriendship(refuser, me, "denied");
    const { status, data } = await load("/friendships/new?q=quillon", cookie);
    expect(status).toBe(200);
    const byId = new Map(
      (data as { hits: { id: number; username: string; relation: string | null }[] }).hits.map((h) => [h.id, h]),
    );
    expect(byId.get(me.id)).toMatchObject({ username: me.username, relation: "self" });
    expect(byId.get(friend.id)).toMatchObject({ username: friend.username, relation: "friends" });
    expect(byId.get(asked.id)).toMatchObject({ relation: "sent" });
    expect(byId.get(asker.id)).toMatchObject({ relation: "received" });
    expect(byId.get(refused.id)).toMatchObject({ relation: "denied" });
    expect(byId.get(refuser.id)).toMatchObject({ relation: "denied" });
    expect(byId.get(stranger.id)).toMatchObject({ username: stranger.username, relation: null });
    expect(JSON.stringify(data)).not.toContain("@example.com");
  });

  it("a session that ended: without JavaScript the page is rendered again with the action's message, not sent to log in", async () => {
    const other = await makeUser();
    const ctx = context();
    const request = () => req("/friendships/new?q=x", { form: { intent: "add", friendId: String(other.id) } });
    // the document request: the action, then the page's loader, with one context
    expect(unwrap(await searchPage.action(args(request(), {}, ctx)))).toEqual({
      status: 401,
      data: { error: "Failed to authenticate. Please log in again.", status: 401 },
    });
    expect(unwrap(await searchPage.loader(args(req("/friendships/new?q=x"), {}, ctx)))).toEqual({
      status: 401,
      data: { q: "x", result: undefined, hits: null, sent: null },
    });
    // a plain visit while signed out still goes to log in
    const res = (await thrown(() => searchPage.loader(args(req("/friendships/new?q=x"))))) as Response;
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });
});
