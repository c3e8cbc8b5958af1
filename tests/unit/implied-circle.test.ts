import { beforeEach, describe, expect, it } from "vitest";
import * as friendPage from "~/routes/friend";
import * as friendsPage from "~/routes/friends";
import * as invitePage from "~/routes/invite";
import * as invitesApi from "~/routes/api/invites";
import { loader as feedLoader } from "~/routes/feed";
import { loader as myKidsLoader } from "~/routes/my-kids";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { CIRCLES, circleOfLabelForm, FRIEND_RELATIONSHIPS, IMPLIED_CIRCLE, impliedCircle } from "~/forms/circles";
import { AUDIENCES } from "~/forms/audiences";
import {
  AUDIENCES_SEEN_BY_CIRCLE,
  audiencesText,
  circleSeesTexts,
  circlesFiledBy,
  momentAccess,
} from "~/models/access.server";
import { createKid } from "~/models/kids.server";
import { createInvitation } from "~/models/invitations.server";
import { listNotifications } from "~/models/notifications.server";
import { deleteFriendship } from "~/models/friendships.server";
import { listFriends } from "~/models/friend-lists.server";
import { args, cookieFor, makeUser, req, sessionCookieOf, statusOf } from "../helpers";

// The circle a relationship implies, the sentences that say exactly what someone sees (made from
// the access module's one table), and where a relative lands after joining
// (docs/decisions/0059-the-circle-a-relationship-implies.md). Real database, routes as modules.

beforeEach(() => resetLimits());

const ORIGIN = "http://localhost:3000";
const tokenOf = (url: string) => url.split("/").pop()!;
const sessionOf = sessionCookieOf;

async function kidWithMoments(ownerId: number) {
  const made = await createKid(ownerId, { name: "Noa", birth_date: "2022-03-01", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  const ids: Record<string, number> = {};
  for (const audience of AUDIENCES) {
    const [row] = await db()("daily_logs")
      .insert({
        kid_id: made.kid.id,
        title: `for ${audience}`,
        content: "",
        taken_on: "2026-11-01",
        audience,
        posted_by: ownerId,
        created_at: `2026-11-01T0${AUDIENCES.indexOf(audience)}:00:00.000Z`,
        updated_at: "2026-11-01T00:00:00.000Z",
      })
      .returning("id");
    ids[audience] = Number(typeof row === "object" ? row.id : row);
  }
  return { kid: made.kid, ids };
}

describe("what a circle sees: one table", () => {
  it("every friend sees at least what Friends sees, never Only us; the sentences list exactly the table's audiences", () => {
    for (const a of AUDIENCES_SEEN_BY_CIRCLE.friends) expect(AUDIENCES_SEEN_BY_CIRCLE.family).toContain(a);
    for (const c of CIRCLES) expect(AUDIENCES_SEEN_BY_CIRCLE[c]).not.toContain("us");
    expect(audiencesText("family")).toBe("Family and Everyone");
    expect(audiencesText("friends")).toBe("Everyone");
    expect(circleSeesTexts()).toEqual({ family: "Family and Everyone", friends: "Everyone" });
  });

  it("the guards see what the table says for each circle", async () => {
    const parent = await makeUser();
    const { ids } = await kidWithMoments(parent.id);
    for (const circle of CIRCLES) {
      const made = await createInvitation(parent, { circle }, ORIGIN);
      if (!made.ok) throw new Error("refused");
      const res = (await invitePage.action(
        args(req(new URL(made.url).pathname, { form: { name: `Rel ${circle}`, email: `rel-${circle}@example.com` } }), {
          token: tokenOf(made.url),
        }),
      )) as Response;
      const viewer = (await db()("users").where("email", `rel-${circle}@example.com`).first("id")).id as number;
      expect(res.status).toBe(303);
      const seen = [];
      for (const audience of AUDIENCES) if ((await momentAccess(viewer, ids[audience]!))?.visible) seen.push(audience);
      expect(seen).toEqual([...AUDIENCES_SEEN_BY_CIRCLE[circle]]);
      expect((await circlesFiledBy(parent.id, [viewer])).get(viewer)).toBe(circle);
    }
  });
});

describe("a relationship implies a circle", () => {
  it("grandparent, parent's sibling and cousin are Family; friend, caregiver, other and none are Friends", () => {
    expect(FRIEND_RELATIONSHIPS.filter((r) => IMPLIED_CIRCLE[r] === "family")).toEqual([
      "grandparent",
      "parents_sibling",
      "cousin",
    ]);
    expect(impliedCircle(null)).toBe("friends");
    expect(impliedCircle("friend")).toBe("friends");
  });

  it("the invite form left at 'As the relationship implies' takes the relationship's circle; a circle chosen by hand stands", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const invite = (form: Record<string, string>) =>
      friendsPage.action(args(req("/current/friends", { cookie, form: { intent: "invite", ...form } })));
    expect(statusOf(await invite({ circle: "", relationship: "grandparent" }))).toBe(303);
    expect(statusOf(await invite({ circle: "friends", relationship: "grandparent" }))).toBe(303);
    expect(statusOf(await invite({ relationship: "friend" }))).toBe(303);
    expect(statusOf(await invite({ circle: "", relationship: "" }))).toBe(303);
    expect(statusOf(await invite({ circle: "cousins" }))).toBe(400);
    const rows = await db()("invitations")
      .where("inviter_id", parent.id)
      .orderBy("id")
      .select("circle", "relationship");
    expect(rows).toEqual([
      { circle: "family", relationship: "grandparent" },
      { circle: "friends", relationship: "grandparent" },
      { circle: "friends", relationship: "friend" },
      { circle: "friends", relationship: null },
    ]);
    // the page says what each circle sees, and the new link what whoever joins by it sees
    const page = await friendsPage.loader(args(req("/current/friends", { cookie })));
    expect(page.circleSees).toEqual({ family: "Family and Everyone", friends: "Everyone" });
  });

  it("POST /api/invites without a circle takes the relationship's", async () => {
    const parent = await makeUser();
    const res = await invitesApi.action(
      args(req("/api/invites", { cookie: await cookieFor(parent), json: { relationship: "parents_sibling" } })),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ circle: "family", relationship: "parents_sibling" });
  });

  it("a friend's label form: a new relationship brings its circle unless the same save changed the circle", async () => {
    expect(
      circleOfLabelForm({ circle: "friends", relationship: "cousin" }, { circle: "friends", relationship: "" }),
    ).toBe("family");
    expect(
      circleOfLabelForm({ circle: "friends", relationship: "cousin" }, { circle: "family", relationship: "" }),
    ).toBe("friends");
    expect(
      circleOfLabelForm({ circle: "friends", relationship: "cousin" }, { circle: "friends", relationship: "cousin" }),
    ).toBe("friends");
    expect(
      circleOfLabelForm({ circle: "family", relationship: "" }, { circle: "family", relationship: "cousin" }),
    ).toBe("family");

    const [parent, sister] = [await makeUser(), await makeUser()];
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const sisterCookie = await cookieFor(sister);
    await invitePage.action(
      args(req(new URL(made.url).pathname, { cookie: sisterCookie, form: {} }), { token: tokenOf(made.url) }),
    );
    const cookie = await cookieFor(parent);
    const label = async () => (await listFriends(parent.id)).confirmed[0]!.label;
    const userId = String(sister.id);
    // the form is on the friend's own page (docs/decisions/0058-friends-as-a-list.md)
    const save = (form: Record<string, string>) =>
      friendPage.action(
        args(req(`/current/friends/${userId}`, { cookie, form: { intent: "label", ...form } }), { userId }),
      );
    // without JavaScript: the relationship chosen, the circle left as it was shown
    await save({ circle: "friends", relationship: "parents_sibling", circleWas: "friends", relationshipWas: "" });
    expect(await label()).toEqual({ circle: "family", relationship: "parents_sibling" });
    // the circle changed by hand in the same save: that choice stands
    await save({ circle: "friends", relationship: "cousin", circleWas: "family", relationshipWas: "parents_sibling" });
    expect(await label()).toEqual({ circle: "friends", relationship: "cousin" });
  });
});

describe("what a relative sees, said exactly", () => {
  it("a grandmother invited from 'Invite family' joins with her name only (the emailed address is filled in), lands on the feed told what she sees, and sees the Family moment", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: "Costa" });
    const { ids } = await kidWithMoments(parent.id);
    const made = await createInvitation(parent, { relationship: "grandparent", email: "gloria@example.com" }, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const token = tokenOf(made.url);
    const mail = await db()("mail_messages").where("to_address", "gloria@example.com").first("text_body");
    expect(mail.text_body).toContain("You will see the moments Ana Costa shares with Family and Everyone.");
    const page = await invitePage.loader(args(req(new URL(made.url).pathname), { token }));
    expect(page).toMatchObject({
      state: "pending",
      email: "gloria@example.com",
      sees: { youSee: "Family and Everyone", inviterSees: "Everyone" },
    });
    const res = (await invitePage.action(
      args(req(new URL(made.url).pathname, { form: { name: "Gloria", email: "gloria@example.com" } }), { token }),
    )) as Response;
    expect([res.status, res.headers.get("Location")]).toEqual([303, `/feed?welcome=${parent.id}`]);
    const cookie = sessionOf(res);
    const feed = await feedLoader(args(req(`/feed?welcome=${parent.id}`, { cookie })) as never);
    expect(feed.welcome).toEqual({ name: "Ana Costa", sees: "Family and Everyone" });
    expect(feed.entries.map((e) => e.id).sort()).toEqual([ids.family, ids.everyone].sort());
    // someone who is not her friend: no welcome, nothing said
    const stranger = await makeUser();
    const other = await feedLoader(args(req(`/feed?welcome=${stranger.id}`, { cookie })) as never);
    expect(other.welcome).toBeNull();

    // the parent is told exactly what she sees, from the circle as it is now
    const told = async () => (await listNotifications(parent.id)).notifications.map((n) => n.text);
    expect(await told()).toEqual([
      "Gloria accepted your invitation and sees the moments you share with Family and Everyone",
    ]);
    const friendship = (await listFriends(parent.id)).confirmed[0]!;
    const userId = String(friendship.user.id);
    await friendPage.action(
      args(
        req(`/current/friends/${userId}`, {
          cookie: await cookieFor(parent),
          form: { intent: "label", circle: "friends", relationship: "grandparent" },
        }),
        { userId },
      ),
    );
    expect(await told()).toEqual(["Gloria accepted your invitation and sees the moments you share with Everyone"]);
    await deleteFriendship(parent.id, friendship.friendshipId);
    expect(await told()).toEqual(["Gloria accepted your invitation"]);
  });

  it("My Kids: someone without kids who sees a family's kids gets those kids; a brand-new account gets none (the original empty text)", async () => {
    const parent = await makeUser();
    const { kid } = await kidWithMoments(parent.id);
    const made = await createInvitation(parent, { relationship: "cousin" }, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const cousin = await makeUser();
    const cousinCookie = await cookieFor(cousin);
    await invitePage.action(
      args(req(new URL(made.url).pathname, { cookie: cousinCookie, form: {} }), { token: tokenOf(made.url) }),
    );
    const relative = await myKidsLoader(args(req("/my-kids-list", { cookie: cousinCookie })) as never);
    expect(relative.kids).toEqual([]);
    expect(relative.seen.map((k) => [k.id, k.name, k.latest?.title])).toEqual([[kid.id, "Noa", "for everyone"]]);
    // its newest moment is the newest the relative may see: a newer Only us one changes nothing
    await db()("daily_logs").insert({
      kid_id: kid.id,
      title: "newest, only us",
      content: "",
      taken_on: "2026-11-02",
      audience: "us",
      posted_by: parent.id,
      created_at: "2026-11-02T00:00:00.000Z",
      updated_at: "2026-11-02T00:00:00.000Z",
    });
    const again = await myKidsLoader(args(req("/my-kids-list", { cookie: cousinCookie })) as never);
    expect(again.seen[0]!.latest).toMatchObject({ title: "for everyone", date: "1 November 2026" });
    expect(relative.news.map((n) => n.title)).toEqual(["for everyone", "for family"]);
    const own = await myKidsLoader(args(req("/my-kids-list", { cookie: await cookieFor(parent) })) as never);
    expect([own.kids.length, own.seen]).toEqual([1, []]);
    const nobody = await myKidsLoader(
      args(req("/my-kids-list", { cookie: await cookieFor(await makeUser()) })) as never,
    );
    expect([nobody.kids, nobody.seen, nobody.news]).toEqual([[], [], []]);
  });
});
