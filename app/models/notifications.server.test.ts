import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { addComment } from "./comments.server";
import { answerFriendRequest, sendFriendRequest } from "./friendships.server";
import { createInvitation } from "./invitations.server";
import { joinByInvitation } from "./invitation-join.server";
import { likeMoment } from "./likes.server";
import { listNotifications, markNotificationsRead, unreadNotifications } from "./notifications.server";
import * as notificationsApi from "~/routes/api/notifications";
import * as readApi from "~/routes/api/notifications-read";
import * as notificationsPage from "~/routes/notifications";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { insertFriendship, insertKid, insertMoment } from "../../tests/unit/friends-fixtures";

// In-app notifications on the real database: written by the models that act, grouped, and never
// about a moment the reader can no longer see.

const texts = async (userId: number) => (await listNotifications(userId)).notifications.map((n) => n.text);
const named = (first: string) => makeUser({ first_name: first, last_name: "Test" });

describe("notifications", () => {
  it("friend request received, then accepted", async () => {
    const [ana, ben] = [await named("Ana"), await named("Ben")];
    const sent = await sendFriendRequest(ana.id, ben.id);
    if (!sent.ok) throw new Error("refused");
    expect(await texts(ben.id)).toEqual(["Ana Test sent you a friend request"]);
    expect((await listNotifications(ben.id)).notifications[0]!.href).toBe("/current/friends#requests-received");
    await answerFriendRequest(ben.id, sent.friendship.id, "accepted");
    expect(await texts(ana.id)).toEqual(["Ben Test accepted your friend request"]);
  });

  it("likes on my moment grouped: 'Ana and 3 others liked …'; none for my own like", async () => {
    const owner = await named("Owen");
    const kid = await insertKid(owner, "Mia");
    const moment = await insertMoment(kid, "Beach day");
    const fans = [await named("Ana"), await named("Bo"), await named("Cy"), await named("Di")];
    for (const fan of fans) await insertFriendship(owner, fan, "accepted");
    await likeMoment(owner.id, moment);
    for (const fan of fans) expect((await likeMoment(fan.id, moment)).ok).toBe(true);
    const { notifications, unread } = await listNotifications(owner.id);
    expect(notifications.map((n) => n.text)).toEqual(["Di Test and 3 others liked “Beach day”"]);
    expect(notifications[0]).toMatchObject({
      kind: "like",
      unread: true,
      href: `/dailyLogs/${moment}`,
      moment: { id: moment, title: "Beach day" },
    });
    expect(notifications[0]!.actors.map((a) => a.name)).toEqual(["Di Test", "Cy Test", "Bo Test", "Ana Test"]);
    expect(unread).toBe(1);
    expect(await unreadNotifications(owner.id)).toBe(1);
    await markNotificationsRead(owner.id);
    expect(await unreadNotifications(owner.id)).toBe(0);
    expect((await listNotifications(owner.id)).notifications[0]!.unread).toBe(false);
  });

  it("a comment tells the owner; a later comment tells earlier commenters (a reply in their thread)", async () => {
    const owner = await named("Owen");
    const [ana, ben] = [await named("Ana"), await named("Ben")];
    await insertFriendship(owner, ana, "accepted");
    await insertFriendship(owner, ben, "accepted");
    const moment = await insertMoment(await insertKid(owner), "First steps");
    await addComment(ana.id, moment, "So sweet");
    await addComment(ben.id, moment, "Wow");
    await addComment(owner.id, moment, "Thanks!");
    expect(await texts(owner.id)).toEqual(["Ben Test and Ana Test commented on “First steps”"]);
    expect(await texts(ana.id)).toEqual(["Owen Test and Ben Test also commented on “First steps”"]);
    expect(await texts(ben.id)).toEqual(["Owen Test also commented on “First steps”"]);
  });

  it("never shows a moment its reader can no longer see", async () => {
    const owner = await named("Owen");
    const [ana, ben] = [await named("Ana"), await named("Ben")];
    const friendship = await insertFriendship(owner, ana, "accepted");
    await insertFriendship(owner, ben, "accepted");
    const moment = await insertMoment(await insertKid(owner), "Secret");
    await addComment(ana.id, moment, "Hi");
    await addComment(ben.id, moment, "Hello");
    expect(await texts(ana.id)).toEqual(["Ben Test also commented on “Secret”"]);
    await db()("friendships").where("id", friendship).delete();
    expect(await texts(ana.id)).toEqual([]);
    expect(await unreadNotifications(ana.id)).toBe(0);
  });

  it("an invitation accepted tells the inviter", async () => {
    const parent = await named("Pia");
    const made = await createInvitation(parent, {}, "http://localhost");
    if (!made.ok) throw new Error("refused");
    await joinByInvitation(
      made.url.split("/").pop(),
      { name: "Grandma Rose", email: "rose@example.com" },
      "http://localhost",
      { address: "192.0.2.1" },
    );
    expect(await texts(parent.id)).toEqual([
      "Grandma Rose accepted your invitation and sees the moments you share with Everyone",
    ]);
  });

  it("the API lists without marking and marks on POST", async () => {
    const [ana, ben] = [await named("Ana"), await named("Ben")];
    await sendFriendRequest(ana.id, ben.id);
    const cookie = await cookieFor(ben);
    const api = await (await notificationsApi.loader(args(req("/api/notifications", { cookie })))).json();
    expect(api).toEqual({
      notifications: [
        {
          id: expect.any(Number),
          kind: "friend-request",
          text: "Ana Test sent you a friend request",
          actors: [{ id: ana.id, name: "Ana Test" }],
          daily_log: null,
          created_at: expect.any(String),
          unread: true,
          url: "/current/friends#requests-received",
        },
      ],
      unread: 1,
    });
    const page = await notificationsPage.loader(args(req("/notifications", { cookie })));
    expect(page.unread).toBe(1);
    await readApi.action(args(req("/api/notifications/read", { cookie, json: {} })));
    await sendFriendRequest((await named("Cy")).id, ben.id);
    const bad = await readApi.action(args(req("/api/notifications/read", { cookie, json: { up_to_id: "x" } })));
    expect(bad.status).toBe(400);
    const read = await readApi.action(args(req("/api/notifications/read", { cookie, json: {} })));
    expect([read.status, await read.json()]).toEqual([200, { unread: 0 }]);
  });

  it("opening the page marks nothing read (a GET may come from another site); its POST marks up to the newest shown", async () => {
    const [ana, ben, cy] = [await named("Ana"), await named("Ben"), await named("Cy")];
    await sendFriendRequest(ana.id, ben.id);
    const cookie = await cookieFor(ben);
    const shown = await notificationsPage.loader(
      args(req("/notifications", { cookie, headers: { "Sec-Fetch-Site": "cross-site" } })),
    );
    expect(shown.unread).toBe(1);
    expect(await notificationsPage.loader(args(req("/notifications", { cookie })))).toMatchObject({
      unread: 1,
      upTo: shown.upTo,
    });
    expect(await unreadNotifications(ben.id)).toBe(1);
    // one that arrives after the page was shown stays new
    await sendFriendRequest(cy.id, ben.id);
    const form = (fields: Record<string, string>) => args(req("/notifications", { cookie, form: fields }));
    const bad = await notificationsPage.action(form({ intent: "mark-read", upTo: "x" })).catch((e: unknown) => e);
    expect((bad as { init: { status: number } }).init.status).toBe(400);
    expect(await unreadNotifications(ben.id)).toBe(2);
    const done = (await notificationsPage.action(form({ intent: "mark-read", upTo: String(shown.upTo) }))) as Response;
    expect([done.status, done.headers.get("Location")]).toEqual([303, "/notifications"]);
    expect((await listNotifications(ben.id)).notifications.map((n) => [n.text, n.unread])).toEqual([
      ["Cy Test sent you a friend request", true],
      ["Ana Test sent you a friend request", false],
    ]);
    // the page's own marking with JavaScript answers data, not a redirect
    const latest = await notificationsPage.loader(args(req("/notifications", { cookie })));
    expect(await notificationsPage.action(form({ intent: "mark-read", upTo: String(latest.upTo), auto: "1" }))).toEqual(
      { marked: true },
    );
    expect(await unreadNotifications(ben.id)).toBe(0);
  });
});
