import { describe, expect, it } from "vitest";
import { args, cookieFor, countQueries, makeUser, req } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { today } from "~/lib/dates.server";
import { loader as feedLoader } from "~/routes/feed";
import { loader as myKidsLoader } from "~/routes/my-kids";
import { createKid } from "./kids.server";
import { decodeCursor } from "./moment-cursors.server";
import { listFeed, onThisDay, recordFeedVisit, VISIT_GAP_MS } from "./feed.server";
import { befriend, insertLikeAndComment } from "./kids-test-helpers.server";

// The home feed (docs/decisions/0028-*): who sees what, order and paging across families, the query
// count, "on this day" and the last visit.

async function kidOf(ownerId: number, name: string, birth = "2020-01-01") {
  const r = await createKid(ownerId, { name, birth_date: birth, relationship: "Mom" }, null);
  if (!r.ok) throw new Error("setup");
  return r.kid;
}

async function moment(kidId: number, title: string, takenOn: string, createdAt = `${takenOn}T12:00:00.000Z`) {
  const [row] = await db()("daily_logs")
    .insert({
      kid_id: kidId,
      title,
      content: `${title}!`,
      taken_on: takenOn,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

const titles = (page: { moments: { title: string }[] }) => page.moments.map((m) => m.title);

describe("the home feed", () => {
  it("lists the moments of the viewer's kids and their accepted friends' kids only: own, friend, pending, stranger, ex-friend", async () => {
    const [me, friend, fan, pending, stranger, ex] = [
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
      await makeUser(),
    ];
    await befriend(me.id, friend.id);
    await befriend(fan.id, me.id); // they asked, I accepted: the other direction counts too
    await befriend(pending.id, me.id, "pending");
    await befriend(ex.id, me.id);
    await moment((await kidOf(me.id, "Mine")).id, "own", "2024-05-01");
    await moment((await kidOf(friend.id, "Friend's")).id, "friend", "2024-05-02");
    await moment((await kidOf(fan.id, "Fan's")).id, "fan", "2024-05-03");
    await moment((await kidOf(pending.id, "Pending's")).id, "pending", "2024-05-04");
    await moment((await kidOf(stranger.id, "Stranger's")).id, "stranger", "2024-05-05");
    await moment((await kidOf(ex.id, "Ex's")).id, "ex", "2024-05-06");
    expect(titles(await listFeed(me.id, { limit: 20 }))).toEqual(["ex", "fan", "friend", "own"]);
    // the friendship ends: their moments leave the feed
    await db()("friendships").where({ user_id: ex.id, friend_id: me.id }).delete();
    expect(titles(await listFeed(me.id, { limit: 20 }))).toEqual(["fan", "friend", "own"]);
    // the pending requester and the stranger see only their own
    expect(titles(await listFeed(pending.id, { limit: 20 }))).toEqual(["pending"]);
    expect(titles(await listFeed(stranger.id, { limit: 20 }))).toEqual(["stranger"]);
    // a friend sees mine (and their own), not my other friends'
    expect(titles(await listFeed(friend.id, { limit: 20 }))).toEqual(["friend", "own"]);
  });

  it("orders by the moment's date, then creation, then id, across families, and pages with the cursor through equal dates", async () => {
    const me = await makeUser();
    const other = await makeUser();
    await befriend(me.id, other.id);
    const a = await kidOf(me.id, "A");
    const b = await kidOf(other.id, "B");
    await moment(a.id, "a-late-date", "2024-03-01");
    await moment(b.id, "b-same-1", "2024-02-01", "2024-02-01T08:00:00.000Z");
    await moment(a.id, "a-same-2", "2024-02-01", "2024-02-01T09:00:00.000Z");
    await moment(b.id, "b-same-3", "2024-02-01", "2024-02-01T09:00:00.000Z"); // same instant: the id decides
    await moment(a.id, "a-backdated", "2023-01-01", "2024-04-01T00:00:00.000Z");
    const seen: string[] = [];
    let before = null;
    for (;;) {
      const page = await listFeed(me.id, { limit: 2, before });
      seen.push(...titles(page));
      if (!page.next) break;
      before = decodeCursor(page.next);
    }
    expect(seen).toEqual(["a-late-date", "b-same-3", "a-same-2", "b-same-1", "a-backdated"]);
    const first = await listFeed(me.id, { limit: 1 });
    expect(first.moments[0]!.kid).toMatchObject({ id: a.id, name: "A", birth_date: "2020-01-01", photo: null });
  });

  it("names who posted each entry (a kid can have co-parents)", async () => {
    const me = await makeUser();
    const id = await moment((await kidOf(me.id, "Posted")).id, "by me", "2024-03-01");
    await db()("daily_logs").where("id", id).update({ posted_by: me.id });
    const result = await feedLoader(args(req("/feed", { cookie: await cookieFor(me) })) as never);
    expect(result.entries[0]).toMatchObject({ title: "by me", postedBy: me.username });
  });

  it("a feed page costs the same number of queries for 1 family with 1 moment and 6 families with 40", async () => {
    const small = await makeUser();
    await moment((await kidOf(small.id, "Solo")).id, "one", "2024-01-01");
    const big = await makeUser();
    for (let f = 0; f < 5; f++) {
      const friend = await makeUser();
      await befriend(big.id, friend.id);
      const kid = await kidOf(friend.id, `Kid ${f}`);
      for (let i = 0; i < 8; i++) {
        const id = await moment(kid.id, `m${f}-${i}`, `2024-01-${String(i + 1).padStart(2, "0")}`);
        await insertLikeAndComment(id, big.id);
      }
    }
    await moment((await kidOf(big.id, "Own")).id, "own", "2024-02-01");
    const load = async (user: { id: number }, query = "") => {
      const cookie = await cookieFor(user);
      let result: Awaited<ReturnType<typeof feedLoader>> | undefined;
      const n = await countQueries(async () => {
        result = await feedLoader(args(req(`/feed${query}`, { cookie })) as never);
      });
      return { n, result: result! };
    };
    await load(small); // first visits write their row
    await load(big);
    const one = await load(small);
    const many = await load(big);
    expect(one.result.entries).toHaveLength(1);
    expect(many.result.entries).toHaveLength(20);
    expect(many.result.entries[0]).toMatchObject({
      title: "own",
      kid: { name: "Own", line: "Own · 4 years, 1 month" },
    });
    expect(many.result.entries[1]!.social!.likeCount).toBe(1);
    expect(many.n).toBe(one.n);
    const older = await load(big, `?before=${encodeURIComponent(many.result.next!)}`);
    expect(older.result.entries).toHaveLength(20);
    expect(older.n).toBeLessThanOrEqual(many.n);
    // My Kids: the three newest, in the same order
    const kids = await myKidsLoader(args(req("/my-kids-list", { cookie: await cookieFor(big) })) as never);
    expect(kids.news.map((e) => e.title)).toEqual(many.result.entries.slice(0, 3).map((e) => e.title));
  });

  it("answers 400 for a cursor that is not one of ours", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    await expect(feedLoader(args(req("/feed?before=nonsense", { cookie })) as never)).rejects.toMatchObject({
      init: { status: 400 },
    });
  });

  it("on this day: the same calendar day in earlier years, visible moments only", async () => {
    const me = await makeUser();
    const friend = await makeUser();
    const stranger = await makeUser();
    await befriend(me.id, friend.id);
    const now = today();
    const yearsBack = (n: number) => `${Number(now.slice(0, 4)) - n}${now.slice(4)}`;
    const kid = await kidOf(friend.id, "Elsa", `${Number(now.slice(0, 4)) - 5}-01-01`);
    await moment(kid.id, "two years ago", yearsBack(2));
    await moment(kid.id, "one year ago", yearsBack(1));
    await moment(kid.id, "today", now);
    await moment((await kidOf(stranger.id, "Hidden", "2015-01-01")).id, "not mine", yearsBack(1));
    const otd = await onThisDay(me.id, now);
    expect(otd.map((m) => [m.title, m.yearsAgo])).toEqual([
      ["one year ago", 1],
      ["two years ago", 2],
    ]);
  });

  it("remembers the last visit: 'new' counts from the visit before, and reloads within a visit keep it", async () => {
    const me = await makeUser();
    const t0 = "2024-06-01T10:00:00.000Z";
    expect(await recordFeedVisit(me.id, t0)).toBeNull();
    const later = new Date(Date.parse(t0) + VISIT_GAP_MS + 1000).toISOString();
    expect(await recordFeedVisit(me.id, later)).toBe(t0);
    const reload = new Date(Date.parse(later) + 60_000).toISOString();
    expect(await recordFeedVisit(me.id, reload)).toBe(t0);
    const soon = new Date(Date.parse(reload) + 1000).toISOString(); // within a minute: no write
    expect(await recordFeedVisit(me.id, soon)).toBe(t0);
    expect((await db()("feed_visits").where({ user_id: me.id }).first()).seen_at).toBe(reload);
    const nextDay = new Date(Date.parse(reload) + 24 * 3600_000).toISOString();
    expect(await recordFeedVisit(me.id, nextDay)).toBe(reload);
  });

  it("a feed opened from another site's link reads the last visit but does not move it", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const open = (headers: Record<string, string>) => feedLoader(args(req("/feed", { cookie, headers })) as never);
    await open({ "Sec-Fetch-Site": "cross-site" });
    expect(await db()("feed_visits").where({ user_id: me.id }).first()).toBeUndefined();
    await open({ "Sec-Fetch-Site": "same-site" });
    expect(await db()("feed_visits").where({ user_id: me.id }).first()).toBeUndefined();
    await open({ "Sec-Fetch-Site": "none" }); // typed or bookmarked: a visit
    expect(await db()("feed_visits").where({ user_id: me.id }).first()).toBeDefined();
  });
});
