import { beforeEach, describe, expect, it } from "vitest";
import * as friendsPage from "./friends";
import * as invitePage from "./invite";
import * as coParentsPage from "./kid-co-parents";
import * as invitesApi from "./api/invites";
import * as notificationsApi from "./api/notifications";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { requireKid } from "~/models/access.server";
import { INVITATION_KID_MESSAGES } from "~/models/invitation-kids.server";
import { CO_PARENT_KIDS_MESSAGE } from "~/forms/invite";
import { befriend, makeKid } from "~/models/social-test-fixtures.server";
import { args, cookieFor, makeUser, req, statusOf } from "../../tests/helpers";

// A partner in one step (docs/decisions/0060-co-parent-invitations.md) through the route modules,
// with real requests, sessions and database: the invitation form's kid checkboxes (none, one,
// several; someone else's kid refused on the field, nothing made), the invitation page, joining,
// the API's co_parent_kid_ids, and the Co-parents page's friends by name.

type Answer = { type: "DataWithResponseInit"; data: { inviteResult?: { error?: Record<string, string[]> } } };

beforeEach(() => resetLimits());

function inviteForm(cookie: string, kids: number[], extra: Record<string, string> = {}) {
  const form = new FormData();
  form.set("intent", "invite");
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  for (const id of kids) form.append("coParentKids", String(id));
  return friendsPage.action(args(req("/current/friends", { cookie, form })));
}

const tokenIn = (text: string) => /\/invite\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;

describe("Invite family as co-parent", () => {
  it("the form lists the parent's own kids; checked ones go with the invitation, its mail and its page", async () => {
    const parent = await makeUser({ first_name: "Ana", last_name: "Silva" });
    const cookie = await cookieFor(parent);
    const mia = await makeKid(parent.id, "Mia");
    const leo = await makeKid(parent.id, "Leo");
    // a kid the parent only co-parents is not theirs to give
    const other = await makeUser();
    const shared = await makeKid(other.id, "Shared");
    await befriend(other.id, parent.id);
    await db()("co_parents").insert({
      kid_id: shared,
      user_id: parent.id,
      status: "accepted",
      created_at: "2026-01-01",
    });
    const page = await friendsPage.loader(args(req("/current/friends", { cookie })));
    expect(page.ownKids).toEqual([
      { id: mia, name: "Mia" },
      { id: leo, name: "Leo" },
    ]);

    const one = (await inviteForm(cookie, [mia], { email: "one@example.com" })) as Response;
    expect(one.status).toBe(303);
    const two = (await inviteForm(cookie, [mia, leo], { email: "two@example.com" })) as Response;
    expect(two.status).toBe(303);
    const listed = (await friendsPage.loader(args(req("/current/friends", { cookie })))).familyInvitations;
    expect(listed.map((i) => i.coParentKids.map((k) => k.name))).toEqual([["Mia", "Leo"], ["Mia"]]);

    const mail = await db()("mail_messages").where("to_address", "two@example.com").first();
    expect(mail.text_body).toContain("Ana Silva invites you as co-parent of Mia and Leo");
    const token = tokenIn(mail.text_body);
    const shown = await invitePage.loader(args(req(`/invite/${token}`), { token }));
    expect(shown).toMatchObject({ state: "pending", coParentKids: "Mia and Leo" });
    expect(shown.coParentOf).toMatch(/^Ana Silva invites you as co-parent of Mia and Leo: you add their moments/);

    // joining signed out: friend and co-parent of both at once
    const joined = (await invitePage.action(
      args(req(`/invite/${token}`, { form: { name: "Bo", email: "two@example.com" } }), { token }),
    )) as Response;
    expect(joined.status).toBe(303);
    const partner = await db()("users").where("email", "two@example.com").first("id");
    for (const kid of [mia, leo]) expect(await requireKid(partner.id, kid, "change")).toMatchObject({ ok: true });
    const partnerCookie = await cookieFor(partner);
    const notes = await (
      await notificationsApi.loader(args(req("/api/notifications", { cookie: partnerCookie })))
    ).json();
    expect(notes.notifications[0]).toMatchObject({
      kind: "co-parent-added",
      text: "Ana Silva made you a co-parent of Mia and Leo",
    });
  });

  it("someone else's kid (or a bad id) is the field's error, 400, and nothing is made", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const theirs = await makeKid((await makeUser()).id, "Theirs");
    const before = await db()("invitations").where("inviter_id", parent.id);
    const refused = (await inviteForm(cookie, [theirs])) as unknown as Answer;
    expect(statusOf(refused)).toBe(400);
    expect(refused.data.inviteResult?.error).toEqual({ coParentKids: [INVITATION_KID_MESSAGES.notYours] });
    const bad = new FormData();
    bad.set("intent", "invite");
    bad.set("coParentKids", "Mia");
    const badAnswer = (await friendsPage.action(
      args(req("/current/friends", { cookie, form: bad })),
    )) as unknown as Answer;
    expect(statusOf(badAnswer)).toBe(400);
    expect(badAnswer.data.inviteResult?.error?.coParentKids).toEqual([CO_PARENT_KIDS_MESSAGE]);
    expect(await db()("invitations").where("inviter_id", parent.id)).toEqual(before);
    expect(await db()("invitation_kids").whereIn("kid_id", [theirs])).toEqual([]);
  });

  it("the API takes co_parent_kid_ids and answers co_parent_kids; someone else's kid is a (B) field error", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const mia = await makeKid(parent.id, "Mia");
    const made = await invitesApi.action(args(req("/api/invites", { cookie, json: { co_parent_kid_ids: [mia] } })));
    expect(made.status).toBe(201);
    expect((await made.json()).co_parent_kids).toEqual([{ id: mia, name: "Mia" }]);
    const list = await (await invitesApi.loader(args(req("/api/invites", { cookie })))).json();
    expect(list.invites[0].co_parent_kids).toEqual([{ id: mia, name: "Mia" }]);
    const theirs = await makeKid((await makeUser()).id, "Theirs");
    for (const [ids, message] of [
      [[theirs], INVITATION_KID_MESSAGES.notYours],
      [["x"], CO_PARENT_KIDS_MESSAGE],
      [{ a: 1 }, CO_PARENT_KIDS_MESSAGE],
    ] as const) {
      const refused = await invitesApi.action(args(req("/api/invites", { cookie, json: { co_parent_kid_ids: ids } })));
      expect([refused.status, await refused.json()]).toEqual([400, { errors: { co_parent_kid_ids: [message] } }]);
    }
    expect(await db()("invitations").where("inviter_id", parent.id)).toHaveLength(1);
  });
});

describe("the Co-parents page picks a friend by name", () => {
  it("candidates and co-parents carry the name, the username as a hint", async () => {
    const parent = await makeUser();
    const friend = await makeUser({ first_name: "Jo", last_name: null });
    await befriend(parent.id, friend.id);
    const kid = await makeKid(parent.id, "Mia");
    const cookie = await cookieFor(parent);
    const page = await coParentsPage.loader(args(req(`/kids/${kid}/co-parents`, { cookie }), { kidId: String(kid) }));
    expect(page.candidates).toEqual([{ id: friend.id, name: "Jo", username: friend.username }]);
    const form = new FormData();
    form.set("intent", "invite");
    form.set("userId", String(friend.id));
    await coParentsPage.action(args(req(`/kids/${kid}/co-parents`, { cookie, form }), { kidId: String(kid) }));
    const after = await coParentsPage.loader(args(req(`/kids/${kid}/co-parents`, { cookie }), { kidId: String(kid) }));
    expect(after.coParents).toEqual([{ id: friend.id, name: "Jo", username: friend.username, pending: true }]);
  });
});
