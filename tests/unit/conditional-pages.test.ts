// Revisits for free (docs/decisions/0034-conditional-pages.md): the kid's moments page, a moment's
// page and the feed answer If-None-Match with 304 (no body) while nothing they show this viewer
// changed, and with 200 and a new ETag after a like, a comment, an edit, an unfriend, an audience
// change; a log-out ends it. Against the real server on a fresh build.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieFor, makeUser } from "../helpers";
import { befriend, makeKid, makeKidMoment } from "~/models/social-test-fixtures.server";
import { likeMoment, unlikeMoment } from "~/models/likes.server";
import { addComment, updateComment } from "~/models/comments.server";
import { updateMoment } from "~/models/moment-changes.server";
import { db } from "~/lib/db.server";
import type { User } from "~/models/users.server";
import { buildApp, call, startBuiltServer, type BuiltServer } from "./support/built-server";

let buildDir = "";
let server: BuiltServer;
let base = "";

beforeAll(async () => {
  buildDir = await buildApp();
  server = await startBuiltServer(buildDir);
  base = `http://127.0.0.1:${server.port}`;
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

type World = {
  owner: User;
  friend: User;
  ownerCookie: string;
  friendCookie: string;
  kidId: number;
  logId: number;
  pages: string[];
};

async function world(): Promise<World> {
  const owner = await makeUser();
  const friend = await makeUser();
  await befriend(owner.id, friend.id);
  const kidId = await makeKid(owner.id, "Elsa");
  const logId = await makeKidMoment(kidId, "First steps");
  await makeKidMoment(kidId, "Beach");
  return {
    owner,
    friend,
    ownerCookie: await cookieFor(owner),
    friendCookie: await cookieFor(friend),
    kidId,
    logId,
    pages: [`/kids/${kidId}/dailyLogs`, `/dailyLogs/${logId}`, "/feed"],
  };
}

const get = (path: string, cookie: string, etag?: string) =>
  call(base, path, { method: "GET", cookie, headers: etag ? { "If-None-Match": etag } : {} });

/** The page's tag as `cookie`'s user sees it now (and a check that a revisit with it is a bodiless 304). */
async function tagOf(path: string, cookie: string): Promise<string> {
  const page = await get(path, cookie);
  expect(page.status, path).toBe(200);
  const etag = page.headers.get("etag");
  expect(etag, path).toMatch(/^W\/"[\w-]+"$/);
  expect(page.headers.get("cache-control"), path).toBe("private, no-cache");
  const again = await get(path, cookie, etag!);
  expect([again.status, again.text], path).toEqual([304, ""]);
  expect(again.headers.get("etag"), path).toBe(etag);
  // the stored page keeps its own nonce: a 304 must not bring another policy
  expect(again.headers.get("content-security-policy"), path).toBeNull();
  expect(again.headers.get("cache-control"), path).toBe("private, no-cache");
  return etag!;
}

/** Every page of `w` as `cookie`'s user: tags before, `change`, then each stale tag gets a full page again. */
async function expectChanged(w: World, cookie: string, change: () => Promise<unknown>, pages = w.pages) {
  const before = await Promise.all(pages.map((p) => tagOf(p, cookie)));
  await change();
  for (const [i, path] of pages.entries()) {
    const stale = await get(path, cookie, before[i]);
    expect(stale.status, path).toBe(200);
    expect(stale.text, path).toContain("</html>");
    expect(stale.headers.get("etag"), path).not.toBe(before[i]);
  }
}

describe("conditional pages", () => {
  it("an unchanged page is a 304 for the same viewer, never for another one", async () => {
    const w = await world();
    for (const path of w.pages) {
      const ownerTag = await tagOf(path, w.ownerCookie);
      const friendTag = await tagOf(path, w.friendCookie);
      expect(friendTag).not.toBe(ownerTag);
      // the owner's tag sent by the friend's browser: the friend's own page
      expect((await get(path, w.friendCookie, ownerTag)).status).toBe(200);
      // a second session of the same user sees the same page
      expect((await get(path, await cookieFor(w.owner), ownerTag)).status).toBe(304);
    }
  });

  it("a like and an unlike give every page a new tag, for the liker and for the owner", async () => {
    const w = await world();
    await expectChanged(w, w.friendCookie, () => likeMoment(w.friend.id, w.logId));
    await expectChanged(w, w.ownerCookie, () => unlikeMoment(w.friend.id, w.logId));
  });

  it("a comment and its edit give every page a new tag", async () => {
    const w = await world();
    let commentId = 0;
    await expectChanged(w, w.ownerCookie, async () => {
      const added = await addComment(w.friend.id, w.logId, "So proud!");
      if (!added.ok) throw new Error("comment refused");
      commentId = added.comment.id;
    });
    await expectChanged(w, w.ownerCookie, () => updateComment(w.friend.id, commentId, "So very proud!"));
  });

  it("an edit of the moment gives every page a new tag, and so does a change of its stamp alone", async () => {
    const w = await world();
    await expectChanged(w, w.friendCookie, () =>
      updateMoment(w.owner.id, w.logId, { title: "First steps!", content: "Sweet." }, null),
    );
    // another change that stamps the moment (photos do) and nothing else the page reads
    await expectChanged(w, w.friendCookie, () =>
      db()("daily_logs").where({ id: w.logId }).update({ updated_at: "2099-01-01T00:00:00.000Z" }),
    );
  });

  it("an audience change gives the owner and the friend a new tag", async () => {
    const w = await world();
    await expectChanged(w, w.ownerCookie, () =>
      updateMoment(w.owner.id, w.logId, { title: "First steps", content: "Sweet.", audience: "family" }, null),
    );
    // back to everyone: the friend sees it again, with a new tag
    await expectChanged(
      w,
      w.friendCookie,
      () => updateMoment(w.owner.id, w.logId, { title: "First steps", content: "Sweet.", audience: "everyone" }, null),
      [w.pages[0]!, "/feed"],
    );
    // the friend is not in the Family circle: the moment leaves their pages (its own page: not found)
    const momentTag = await tagOf(w.pages[1]!, w.friendCookie);
    await expectChanged(
      w,
      w.friendCookie,
      () => updateMoment(w.owner.id, w.logId, { title: "First steps", content: "Sweet.", audience: "family" }, null),
      [w.pages[0]!, "/feed"],
    );
    expect((await get(w.pages[1]!, w.friendCookie, momentTag)).status).toBe(404);
  });

  it("after an unfriend the friend gets no page and the owner a new tag", async () => {
    const w = await world();
    const friendTags = await Promise.all(w.pages.map((p) => tagOf(p, w.friendCookie)));
    const unfriend = () => db()("friendships").where({ user_id: w.owner.id, friend_id: w.friend.id }).delete();
    await expectChanged(w, w.ownerCookie, unfriend);
    expect((await get(w.pages[0]!, w.friendCookie, friendTags[0])).status).toBe(404);
    expect((await get(w.pages[1]!, w.friendCookie, friendTags[1])).status).toBe(404);
    const feed = await get("/feed", w.friendCookie, friendTags[2]);
    expect(feed.status).toBe(200);
    expect(feed.text).not.toContain("First steps");
  });

  it("after a log-out the old cookie and tag get the log-in page, and the browser is told to drop what it kept", async () => {
    const w = await world();
    const tags = await Promise.all(w.pages.map((p) => tagOf(p, w.ownerCookie)));
    const out = await call(base, "/logout", { cookie: w.ownerCookie, form: {}, headers: { Origin: base } });
    expect(out.status).toBe(302);
    expect(out.headers.get("clear-site-data")).toBe('"cache"');
    for (const [i, path] of w.pages.entries()) {
      const after = await get(path, w.ownerCookie, tags[i]);
      expect(after.status, path).toBe(302);
      expect(after.headers.get("location"), path).toMatch(/^\/login\?redirectTo=/);
    }
  });

  it("a client navigation (.data) is tagged and answered 304 like the document, with a tag of its own", async () => {
    const w = await world();
    const document = await get(w.pages[0]!, w.ownerCookie);
    const data = await get(`/kids/${w.kidId}/dailyLogs.data`, w.ownerCookie);
    expect(data.status).toBe(200);
    expect(data.headers.get("content-type")).toMatch(/^text\/x-script/);
    expect(data.headers.get("cache-control")).toBe("private, no-cache");
    const tag = data.headers.get("etag");
    expect(tag).toBeTruthy();
    expect(tag).not.toBe(document.headers.get("etag"));
    const again = await get(`/kids/${w.kidId}/dailyLogs.data`, w.ownerCookie, tag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await likeMoment(w.owner.id, w.logId);
    const changed = await get(`/kids/${w.kidId}/dailyLogs.data`, w.ownerCookie, tag!);
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(tag);
  });

  it("other pages and signed-out visits carry no tag", async () => {
    const w = await world();
    for (const path of ["/my-kids-list", "/current/friends"]) {
      const res = await get(path, w.ownerCookie);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("etag"), path).toBeNull();
      expect(res.headers.get("cache-control"), path).toBe("private, no-store");
    }
    expect((await get(w.pages[0]!, "")).headers.get("etag")).toBeNull();
  });
});
