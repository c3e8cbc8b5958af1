import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { siteOrigin } from "~/lib/config.server";
import { requireKid } from "./access.server";
import { acceptInvitation } from "./invitation-answers.server";
import { joinByInvitation } from "./invitation-join.server";
import { createInvitation, listInvitations } from "./invitations.server";
import { INVITATION_KID_MESSAGES, kidsOfInvitationLink } from "./invitation-kids.server";
import { coParentsOf, inviteCoParent } from "./co-parents.server";
import { listNotifications } from "./notifications.server";
import { removeKid } from "./kids.server";
import { befriend, makeKid } from "./social-test-fixtures.server";
import { makeUser } from "../../tests/helpers";

// A partner in one step (docs/decisions/0060-co-parent-invitations.md) on the real database
// (SQLite, or PostgreSQL with TEST_DATABASE_URL): an invitation names kids of the inviter, and
// whoever accepts it becomes their co-parent in the same transaction as the friendship.

const ORIGIN = "https://moments.test";
const FROM = { address: "192.0.2.7" };
const tokenOf = (url: string) => url.split("/").pop()!;
const mailsTo = (to: string) => db()("mail_messages").where("to_address", to).orderBy("id");
const count = async (table: string) => Number((await db()(table).count({ n: "*" }).first())?.n ?? 0);

beforeEach(() => resetLimits());

async function invite(parent: Awaited<ReturnType<typeof makeUser>>, kids: number[], email?: string) {
  const made = await createInvitation(parent, { coParentKids: kids, ...(email ? { email } : {}) }, ORIGIN);
  if (!made.ok) throw new Error(`refused: ${made.message}`);
  return made;
}

describe("an invitation as co-parent of chosen kids", () => {
  it("names the kids in the invitation, its mail and its page; a new account joining co-parents them at once", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: "Silva" });
    const mia = await makeKid(parent.id, "Mia");
    const leo = await makeKid(parent.id, "Leo");
    const other = await makeKid(parent.id, "Ada");
    const made = await invite(parent, [mia, leo], "partner1@example.com");
    expect(made.invitation.coParentKids).toEqual([
      { id: mia, name: "Mia" },
      { id: leo, name: "Leo" },
    ]);
    const [invitationMail] = await mailsTo("partner1@example.com");
    expect(invitationMail.text_body).toContain("Ana Silva invites you as co-parent of Mia and Leo");
    expect(await kidsOfInvitationLink(tokenOf(made.url))).toEqual(made.invitation.coParentKids);

    const joined = await joinByInvitation(
      tokenOf(made.url),
      { name: "Bo", email: "partner1@example.com" },
      ORIGIN,
      FROM,
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    const partner = joined.user;
    for (const kid of [mia, leo]) expect(await requireKid(partner.id, kid, "change")).toMatchObject({ ok: true });
    // a friend sees Ada, but co-parents only what the invitation named
    expect(await requireKid(partner.id, other, "change")).toMatchObject({ ok: false, kind: "forbidden" });
    expect((await coParentsOf([mia])).get(mia)).toEqual([
      { id: partner.id, username: partner.username, name: "Bo", pending: false },
    ]);

    const { notifications } = await listNotifications(partner.id);
    expect(notifications[0]).toMatchObject({
      kind: "co-parent-added",
      text: "Ana Silva made you a co-parent of Mia and Leo",
      href: "/my-kids-list",
    });
    const mails = await mailsTo("partner1@example.com");
    const added = mails.find((m) => m.kind === "co-parent-added");
    expect(added.subject).toBe("You are now a co-parent of Mia and Leo on Sweet Moments");
    expect(added.text_body).toContain(`${siteOrigin()}/my-kids-list`);
    expect(added.text_body).toContain("Ana Silva made you a co-parent of Mia and Leo.");
  });

  it("someone else's kid, a kid the inviter only co-parents, or no such kid: refused, nothing written", async () => {
    const parent = await makeUser();
    const stranger = await makeUser();
    const theirs = await makeKid(stranger.id, "Theirs");
    const coParented = await makeKid(stranger.id, "Shared");
    await befriend(stranger.id, parent.id);
    expect(await inviteCoParent(stranger.id, coParented, parent.id)).toMatchObject({ ok: true });
    await db()("co_parents").where({ kid_id: coParented }).update({ status: "accepted" });
    const own = await makeKid(parent.id, "Own");
    const before = await Promise.all(["invitations", "invitation_kids", "mail_messages", "rate_limits"].map(count));
    for (const ids of [[theirs], [own, coParented], [own, 999_999]]) {
      const made = await createInvitation(parent, { coParentKids: ids, email: "x@example.com" }, ORIGIN, {
        token: "b".repeat(43),
      });
      expect(made).toEqual({
        ok: false,
        kind: "invalid",
        message: INVITATION_KID_MESSAGES.notYours,
        fieldErrors: { coParentKids: [INVITATION_KID_MESSAGES.notYours] },
      });
    }
    expect(await Promise.all(["invitations", "invitation_kids", "mail_messages", "rate_limits"].map(count))).toEqual(
      before,
    );
  });

  it("an existing account accepting (signed in) becomes friend and co-parent in one step; a pending kid-page invitation becomes the role", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: null });
    const partner = await makeUser({ first_name: "Bo", last_name: null });
    const mia = await makeKid(parent.id, "Mia");
    const made = await invite(parent, [mia]);
    const accepted = await acceptInvitation(partner.id, tokenOf(made.url));
    expect(accepted).toMatchObject({ ok: true });
    expect(await requireKid(partner.id, mia, "change")).toMatchObject({ ok: true, isParent: true, isOwner: false });
    expect((await listNotifications(partner.id)).notifications[0]?.text).toBe("Ana made you a co-parent of Mia");
    expect((await mailsTo(partner.email)).map((m) => m.kind)).toEqual(["co-parent-added"]);

    // already a friend with a pending invitation on the kid's page: the invitation's Accept makes it the role
    const leo = await makeKid(parent.id, "Leo");
    expect(await inviteCoParent(parent.id, leo, partner.id)).toMatchObject({ ok: true });
    const again = await invite(parent, [leo]);
    expect(await acceptInvitation(partner.id, tokenOf(again.url))).toMatchObject({ ok: true });
    expect((await coParentsOf([leo], { pending: true })).get(leo)).toMatchObject([{ id: partner.id, pending: false }]);
  });

  it("answered signed out with an existing account's address: offered, the mail names the kids, only Accept gives them", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: null });
    const partner = await makeUser({ email: "partner5@example.com" });
    const mia = await makeKid(parent.id, "Mia");
    const made = await invite(parent, [mia]);
    const answered = await joinByInvitation(tokenOf(made.url), { name: "Bo", email: partner.email }, ORIGIN, FROM);
    expect(answered).toMatchObject({ ok: true, outcome: "check-email" });
    expect(await requireKid(partner.id, mia, "view")).toMatchObject({ ok: false });
    const [offer] = await mailsTo(partner.email);
    expect(offer.kind).toBe("invitation-answer");
    expect(offer.text_body).toContain("Ana invites you as co-parent of Mia:");
    expect(await acceptInvitation(partner.id, tokenOf(made.url))).toMatchObject({ ok: true });
    expect(await requireKid(partner.id, mia, "change")).toMatchObject({ ok: true });
    expect((await mailsTo(partner.email)).map((m) => m.kind)).toEqual(["invitation-answer", "co-parent-added"]);
  });

  it("the notification names the kids co-parented now; one already co-parented is not news", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: null });
    const partner = await makeUser();
    const mia = await makeKid(parent.id, "Mia");
    expect(await acceptInvitation(partner.id, tokenOf((await invite(parent, [mia])).url))).toMatchObject({ ok: true });
    // a second invitation naming Mia again tells nothing new
    expect(await acceptInvitation(partner.id, tokenOf((await invite(parent, [mia])).url))).toMatchObject({ ok: true });
    expect((await listNotifications(partner.id)).notifications.map((n) => n.kind)).toEqual(["co-parent-added"]);
    expect((await mailsTo(partner.email)).map((m) => m.kind)).toEqual(["co-parent-added"]);
    await db()("co_parents").where({ kid_id: mia, user_id: partner.id }).delete();
    expect((await listNotifications(partner.id)).notifications[0]?.text).toBe(
      "Ana made you a co-parent (that has ended since)",
    );
  });

  it("a kid removed or handed over before the answer is skipped; the rest still happens", async () => {
    const parent = await makeUser();
    const mia = await makeKid(parent.id, "Mia");
    const gone = await makeKid(parent.id, "Gone");
    const moved = await makeKid(parent.id, "Moved");
    const made = await invite(parent, [mia, gone, moved]);
    expect(await removeKid(parent.id, gone)).toMatchObject({ ok: true });
    const elsewhere = await makeUser();
    await db()("kids").where("id", moved).update({ user_id: elsewhere.id });
    expect((await listInvitations(parent.id))[0]!.coParentKids.map((k) => k.name)).toEqual(["Mia"]);

    const joined = await joinByInvitation(
      tokenOf(made.url),
      { name: "Bo Li", email: "partner3@example.com" },
      ORIGIN,
      FROM,
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await requireKid(joined.user.id, mia, "change")).toMatchObject({ ok: true });
    expect(await requireKid(joined.user.id, moved, "view")).toMatchObject({ ok: false });
    expect(await db()("co_parents").where({ user_id: joined.user.id }).pluck("kid_id")).toEqual([mia]);
  });

  it("an invitation without kids makes a friend only, and tells nobody about co-parenting", async () => {
    const parent = await makeUser();
    const mia = await makeKid(parent.id, "Mia");
    const made = await invite(parent, [], "friend4@example.com");
    expect(made.invitation.coParentKids).toEqual([]);
    const joined = await joinByInvitation(
      tokenOf(made.url),
      { name: "Jo", email: "friend4@example.com" },
      ORIGIN,
      FROM,
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await requireKid(joined.user.id, mia, "view")).toMatchObject({ ok: true, isParent: false });
    expect((await mailsTo("friend4@example.com")).map((m) => m.kind)).toEqual(["invitation"]);
    expect((await listNotifications(joined.user.id)).notifications).toEqual([]);
  });
});
