import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { hashLinkToken } from "~/lib/tokens.server";
import { canSeeKidsOf } from "./access.server";
import { acceptInvitation, declineInvitation } from "./invitation-answers.server";
import { joinByInvitation } from "./invitation-join.server";
import {
  createInvitation,
  INVITATION_MESSAGES,
  listInvitations,
  readInvitation,
  revokeInvitation,
} from "./invitations.server";
import { requestSignInLink, redeemSignInLink } from "./sign-in-links.server";
import { getUserWithPasswordByEmail } from "./users.server";
import { blockUser } from "./blocks.server";
import { setFriendLabel } from "./circles.server";
import { labelFromRow } from "./friend-lists.server";
import { pairOf } from "./friendships.server";
import { makeUser } from "../../tests/helpers";
import { resetEnvCache } from "../../server/env.mjs";

// Invitations on the real database (SQLite, or PostgreSQL with TEST_DATABASE_URL); sign-in links:
// sign-in-links.server.test.ts.

const ORIGIN = "https://moments.test";
const tokenOf = (url: string) => url.split("/").pop()!;
/** Where a signed-out answer comes from (the client's address: the limits of emailed links count it). */
const FROM = { address: "192.0.2.1" };
const queued = (to: string) => db()("mail_messages").where("to_address", to).orderBy("id");

beforeEach(() => resetLimits());

describe("invitations", () => {
  it("a link with a 256-bit token, only its hash stored; emailed when an address is given; listed as pending", async () => {
    const parent = await makeUser({ first_name: "Maria", last_name: "Lopez" });
    const made = await createInvitation(parent, { note: "For Grandma", email: "grandma1@example.com" }, ORIGIN);
    if (!made.ok) throw new Error("refused");
    expect(made.url).toMatch(/^https:\/\/moments\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(made.url);
    const row = await db()("invitations").where("id", made.invitation.id).first();
    expect(row.token_hash).toBe(hashLinkToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const days = (Date.parse(row.expires_at) - Date.parse(row.created_at)) / 86_400_000;
    expect(days).toBe(14);
    const [mail] = await queued("grandma1@example.com");
    expect(mail).toMatchObject({ kind: "invitation", subject: "Maria Lopez invited you to Sweet Moments" });
    expect(mail.text_body).toContain(made.url);
    expect(mail.text_body).toContain("For Grandma");
    expect((await listInvitations(parent.id)).map((i) => [i.id, i.state])).toEqual([[made.invitation.id, "pending"]]);
    expect(await readInvitation(token)).toEqual({
      state: "pending",
      inviterId: parent.id,
      inviterName: "Maria Lopez",
      note: "For Grandma",
      email: "grandma1@example.com",
      sees: { youSee: "Everyone", inviterSees: "Everyone" },
    });
  });

  it("joining signed out: an account without a password, an accepted friend of the inviter; the link is then used", async () => {
    const parent = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const token = tokenOf(made.url);
    const joined = await joinByInvitation(token, { name: "Rosa María Pérez", email: "Rosa@Example.com" }, ORIGIN, FROM);
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(joined.user).toMatchObject({
      email: "rosa@example.com",
      first_name: "Rosa",
      last_name: "María Pérez",
      username: "rosa.maria.perez",
    });
    expect((await getUserWithPasswordByEmail("rosa@example.com"))!.password_hash).toBe("");
    expect(await canSeeKidsOf(joined.user.id, parent.id)).toBe(true);
    expect((await listInvitations(parent.id))[0]).toMatchObject({
      state: "accepted",
      friend: { id: joined.user.id, name: "Rosa María Pérez", hasPassword: false },
    });
    expect((await readInvitation(token)).state).toBe("accepted");
    expect(
      await joinByInvitation(token, { name: "Another", email: "another@example.com" }, ORIGIN, FROM),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect(await getUserWithPasswordByEmail("another@example.com")).toBeNull();
  });

  it("an answer with the address of an existing account makes no friendship by itself: the mail names the inviter, their note and what accepting does; its link signs in and leads to the invitation; only Accept makes the friendship", async () => {
    const stranger = await makeUser({ first_name: "Sam", last_name: "Stranger" });
    const victim = await makeUser();
    const made = await createInvitation(stranger, { note: "Let us share our photos" }, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const token = tokenOf(made.url);
    // the stranger opens their own link signed out and "joins" with the victim's address
    expect(await joinByInvitation(token, { name: "Someone", email: victim.email.toUpperCase() }, ORIGIN, FROM)).toEqual(
      { ok: true, outcome: "check-email" },
    );
    expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
    expect(await canSeeKidsOf(stranger.id, victim.id)).toBe(false);
    // used for everyone else; offered to the victim, who sees who sent it
    expect((await readInvitation(token)).state).toBe("used");
    expect((await readInvitation(token, stranger.id)).state).toBe("used");
    expect(await readInvitation(token, victim.id)).toEqual({
      state: "offered",
      inviterId: stranger.id,
      inviterName: "Sam Stranger",
      note: "Let us share our photos",
      email: null,
      sees: { youSee: "Everyone", inviterSees: "Everyone" },
    });
    const [mail] = await queued(victim.email);
    expect(mail).toMatchObject({
      kind: "invitation-answer",
      subject: "Sam Stranger invited you to be friends on Sweet Moments",
    });
    for (const body of [mail.text_body, mail.html_body]) {
      expect(body).toContain("Let us share our photos");
      expect(body).toContain(
        "If you accept, you and Sam Stranger become friends: you see the moments Sam Stranger shares with Everyone, and Sam Stranger sees the moments you share with Everyone.",
      );
      expect(body).toContain("Nothing changes unless you accept.");
      expect(body).toContain(`${ORIGIN}/invite/${token}`);
    }
    const link = new RegExp(`${ORIGIN}/login/link/([A-Za-z0-9_-]{43})\\?invitation=${token}`).exec(mail.text_body)![1]!;
    // signing in leads to the invitation, and makes nobody a friend
    expect(await redeemSignInLink(link, { invitation: token })).toMatchObject({
      ok: true,
      user: { id: victim.id },
      purpose: "sign-in",
      invitation: token,
    });
    expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
    expect(await canSeeKidsOf(stranger.id, victim.id)).toBe(false);
    expect(await db()("notifications").where({ user_id: stranger.id, kind: "invite-accepted" })).toEqual([]);
    // nobody else may answer it
    const other = await makeUser();
    expect(await acceptInvitation(other.id, token)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await declineInvitation(other.id, token)).toMatchObject({ ok: false, kind: "conflict" });
    // Accept does
    expect(await acceptInvitation(victim.id, token)).toEqual({ ok: true, inviterName: "Sam Stranger" });
    expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(true);
    expect((await listInvitations(stranger.id))[0]).toMatchObject({ state: "accepted", friend: { id: victim.id } });
    expect(await acceptInvitation(victim.id, token)).toMatchObject({ ok: true }); // a repeat
    expect(await declineInvitation(victim.id, token)).toMatchObject({ ok: false, kind: "conflict" });
  });

  it("the invitation offered to an existing account can be declined: nothing changes, and it can no longer be accepted", async () => {
    const parent = await makeUser();
    const aunt = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const token = tokenOf(made.url);
    await joinByInvitation(token, { name: "Aunt", email: aunt.email }, ORIGIN, FROM);
    expect(await declineInvitation(aunt.id, token)).toEqual({ ok: true });
    expect(await declineInvitation(aunt.id, token)).toEqual({ ok: true }); // a repeat
    expect(await readInvitation(token, aunt.id)).toEqual({
      state: "declined",
      inviterId: null,
      inviterName: null,
      note: null,
      email: null,
      sees: null,
    });
    expect(await acceptInvitation(aunt.id, token)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await canSeeKidsOf(aunt.id, parent.id)).toBe(false);
    expect((await listInvitations(parent.id))[0]).toMatchObject({ state: "used", friend: null });
    // a link that offers no invitation leads to none, whatever its address says
    await requestSignInLink(aunt.email, { reset: false, origin: ORIGIN, address: "192.0.2.9" });
    const plain = /\/login\/link\/([A-Za-z0-9_-]{43})/.exec((await queued(aunt.email)).at(-1)!.text_body)![1]!;
    expect(await redeemSignInLink(plain, { invitation: token })).toMatchObject({ ok: true, invitation: null });
  });

  it("mail sent for an answer with an existing account's address counts against the limits of emailed sign-in links, per account and per client address", async () => {
    process.env.SIGN_IN_LINK_MAX_PER_ACCOUNT = "2";
    process.env.SIGN_IN_LINK_MAX_PER_ADDRESS = "3";
    resetEnvCache();
    try {
      const parent = await makeUser();
      const answer = async (email: string, address: string) => {
        const made = await createInvitation(parent, {}, ORIGIN);
        if (!made.ok) throw new Error("refused");
        expect(await joinByInvitation(tokenOf(made.url), { name: "Someone", email }, ORIGIN, { address })).toEqual({
          ok: true,
          outcome: "check-email",
        });
        return tokenOf(made.url);
      };
      // per account: answers and "Email me a sign-in link" share one count
      const aunt = await makeUser();
      await answer(aunt.email, "192.0.2.10");
      await requestSignInLink(aunt.email, { reset: false, origin: ORIGIN, address: "192.0.2.11" });
      const over = await answer(aunt.email, "192.0.2.12");
      expect((await queued(aunt.email)).map((m) => m.kind)).toEqual(["invitation-answer", "sign-in"]);
      expect((await readInvitation(over, aunt.id)).state).toBe("used"); // not offered: no mail said so
      await requestSignInLink(aunt.email, { reset: false, origin: ORIGIN, address: "192.0.2.13" });
      expect(await queued(aunt.email)).toHaveLength(2);
      // per client address: the answers from one address count with its sign-in link requests
      const [uncle, cousin, niece] = [await makeUser(), await makeUser(), await makeUser()];
      await requestSignInLink("nobody-1@example.com", { reset: false, origin: ORIGIN, address: "192.0.2.20" });
      await requestSignInLink("nobody-2@example.com", { reset: false, origin: ORIGIN, address: "192.0.2.20" });
      await answer(uncle.email, "192.0.2.20");
      await answer(cousin.email, "192.0.2.20");
      await requestSignInLink(niece.email, { reset: false, origin: ORIGIN, address: "192.0.2.20" });
      expect((await queued(uncle.email)).map((m) => m.kind)).toEqual(["invitation-answer"]);
      expect(await queued(cousin.email)).toEqual([]);
      expect(await queued(niece.email)).toEqual([]);
      await answer(cousin.email, "192.0.2.21");
      expect((await queued(cousin.email)).map((m) => m.kind)).toEqual(["invitation-answer"]);
    } finally {
      delete process.env.SIGN_IN_LINK_MAX_PER_ACCOUNT;
      delete process.env.SIGN_IN_LINK_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("signed in: accepting makes the two friends; one's own invitation is refused", async () => {
    const parent = await makeUser();
    const uncle = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    expect(await acceptInvitation(parent.id, tokenOf(made.url))).toMatchObject({ ok: false, kind: "invalid" });
    expect(await acceptInvitation(uncle.id, tokenOf(made.url))).toMatchObject({ ok: true });
    expect(await canSeeKidsOf(uncle.id, parent.id)).toBe(true);
    // used: done for the one who used it (a repeat), "can no longer be used" for anyone else
    expect(await acceptInvitation(uncle.id, tokenOf(made.url))).toMatchObject({ ok: true });
    expect(await acceptInvitation((await makeUser()).id, tokenOf(made.url))).toMatchObject({
      ok: false,
      kind: "conflict",
    });
  });

  it("revoked and expired links can no longer be used; only the inviter revokes", async () => {
    const parent = await makeUser();
    const other = await makeUser();
    const a = await createInvitation(parent, {}, ORIGIN);
    const b = await createInvitation(parent, {}, ORIGIN);
    if (!a.ok || !b.ok) throw new Error("refused");
    expect(await revokeInvitation(other.id, a.invitation.id)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await revokeInvitation(parent.id, a.invitation.id)).toMatchObject({
      ok: true,
      invitation: { state: "revoked" },
    });
    expect(await revokeInvitation(parent.id, a.invitation.id)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await readInvitation(tokenOf(a.url))).toEqual({
      state: "revoked",
      inviterId: null,
      inviterName: null,
      note: null,
      email: null,
      sees: null,
    });
    expect(
      await joinByInvitation(tokenOf(a.url), { name: "X Y", email: "xy@example.com" }, ORIGIN, FROM),
    ).toMatchObject({ ok: false, kind: "conflict" });
    await db()("invitations")
      .where("id", b.invitation.id)
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect((await readInvitation(tokenOf(b.url))).state).toBe("expired");
    expect(
      await joinByInvitation(tokenOf(b.url), { name: "X Y", email: "xy@example.com" }, ORIGIN, FROM),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect((await readInvitation("not-a-token")).state).toBe("unknown");
  });

  it("an invitation presets the inviter's circle and relationship; accepting applies them to the inviter's side only", async () => {
    const uncle = await makeUser(); // made first: the inviter below is the friendship's high side
    const parent = await makeUser();
    const aunt = await makeUser();
    const labelsOf = async (a: number, b: number) => {
      const row = await db()("friendships").where(pairOf(a, b)).first();
      return { [a]: labelFromRow(row, a), [b]: labelFromRow(row, b), status: row.status };
    };
    // signed out: a new account (the inviter is the low side)
    const family = await createInvitation(parent, { circle: "family", relationship: "grandparent" }, ORIGIN);
    if (!family.ok) throw new Error("refused");
    expect(family.invitation).toMatchObject({ circle: "family", relationship: "grandparent" });
    const joined = await joinByInvitation(
      tokenOf(family.url),
      { name: "Oma Greta", email: "oma-preset@example.com" },
      ORIGIN,
      FROM,
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await labelsOf(parent.id, joined.user.id)).toEqual({
      [parent.id]: { circle: "family", relationship: "grandparent" },
      [joined.user.id]: { circle: "friends", relationship: null },
      status: "accepted",
    });
    // signed in (the inviter is the high side)
    const cousin = await createInvitation(parent, { circle: "family", relationship: "cousin" }, ORIGIN);
    if (!cousin.ok) throw new Error("refused");
    expect(await acceptInvitation(uncle.id, tokenOf(cousin.url))).toMatchObject({ ok: true });
    expect(await labelsOf(parent.id, uncle.id)).toMatchObject({
      [parent.id]: { circle: "family", relationship: "cousin" },
      [uncle.id]: { circle: "friends", relationship: null },
    });
    // offered to an existing address, and accepted by its account
    const caregiver = await createInvitation(parent, { circle: "family", relationship: "caregiver" }, ORIGIN);
    if (!caregiver.ok) throw new Error("refused");
    await joinByInvitation(tokenOf(caregiver.url), { name: "Aunt", email: aunt.email }, ORIGIN, FROM);
    expect(await acceptInvitation(aunt.id, tokenOf(caregiver.url))).toMatchObject({ ok: true });
    expect((await labelsOf(parent.id, aunt.id))[parent.id]).toEqual({ circle: "family", relationship: "caregiver" });
    // no preset: Friends, no relationship; a friendship accepted already keeps the labels its sides chose
    const plain = await createInvitation(parent, {}, ORIGIN);
    if (!plain.ok) throw new Error("refused");
    expect(plain.invitation).toMatchObject({ circle: "friends", relationship: null });
    const row = await db()("friendships").where(pairOf(parent.id, uncle.id)).first("id");
    expect(await setFriendLabel(parent.id, row.id, { circle: "friends", relationship: "other" })).toMatchObject({
      ok: true,
    });
    expect(await acceptInvitation(uncle.id, tokenOf(plain.url))).toMatchObject({ ok: true });
    const again = await createInvitation(parent, { circle: "family" }, ORIGIN);
    if (!again.ok) throw new Error("refused");
    expect(await acceptInvitation(uncle.id, tokenOf(again.url))).toMatchObject({ ok: true });
    expect((await labelsOf(parent.id, uncle.id))[parent.id]).toEqual({ circle: "friends", relationship: "other" });
  });

  it("blocks: no invitation is emailed between blocked users, and answering one makes no friendship; nothing says why", async () => {
    const blocker = await makeUser();
    const blocked = await makeUser();
    expect(await blockUser(blocker.id, blocked.id)).toMatchObject({ ok: true });
    // emailed either way: the answer is the same as for any address, and no message is queued
    const toBlocked = await createInvitation(blocker, { email: blocked.email }, ORIGIN);
    const toBlocker = await createInvitation(blocked, { email: blocker.email.toUpperCase() }, ORIGIN);
    const toNobody = await createInvitation(blocked, { email: "nobody-here@example.com" }, ORIGIN);
    for (const made of [toBlocked, toBlocker, toNobody])
      expect(made).toMatchObject({ ok: true, invitation: { state: "pending" } });
    expect(await queued(blocked.email)).toEqual([]);
    expect(await queued(blocker.email)).toEqual([]);
    expect(await queued("nobody-here@example.com")).toHaveLength(1);
    if (!toBlocked.ok || !toBlocker.ok) throw new Error("refused");
    // signed in, either way round: the answer of a link that can no longer be used; the link stays pending
    for (const [viewer, made] of [
      [blocked, toBlocked],
      [blocker, toBlocker],
    ] as const) {
      expect(await acceptInvitation(viewer.id, tokenOf(made.url))).toEqual({
        ok: false,
        kind: "invalid",
        message: INVITATION_MESSAGES.unusable,
      });
      expect((await readInvitation(tokenOf(made.url))).state).toBe("pending");
    }
    expect(await canSeeKidsOf(blocked.id, blocker.id)).toBe(false);
    expect(await canSeeKidsOf(blocker.id, blocked.id)).toBe(false);
    expect(await db()("friendships").where(pairOf(blocker.id, blocked.id))).toEqual([]);
    // signed out with the address of the other one, either way: "check your email" as for any
    // account, but no mail and no offer (a blocked user cannot make the server write to the blocker)
    const ownLink = await createInvitation(blocked, {}, ORIGIN);
    if (!ownLink.ok) throw new Error("refused");
    for (const [made, to] of [
      [toBlocked, blocked],
      [ownLink, blocker],
    ] as const) {
      expect(await joinByInvitation(tokenOf(made.url), { name: "Someone", email: to.email }, ORIGIN, FROM)).toEqual({
        ok: true,
        outcome: "check-email",
      });
      expect((await readInvitation(tokenOf(made.url), to.id)).state).toBe("used");
      expect(await acceptInvitation(to.id, tokenOf(made.url))).toMatchObject({ ok: false, kind: "conflict" });
    }
    expect(await queued(blocked.email)).toEqual([]);
    expect(await queued(blocker.email)).toEqual([]);
    expect(await canSeeKidsOf(blocked.id, blocker.id)).toBe(false);
    expect((await listInvitations(blocker.id)).find((i) => i.id === toBlocked.invitation.id)).toMatchObject({
      state: "used",
      friend: null,
    });
    expect(await db()("notifications").where({ user_id: blocker.id, kind: "invite-accepted" })).toEqual([]);
    // an invitation offered before the block: its Accept makes no friendship afterwards
    const parent = await makeUser();
    const aunt = await makeUser();
    const early = await createInvitation(parent, {}, ORIGIN);
    if (!early.ok) throw new Error("refused");
    await joinByInvitation(tokenOf(early.url), { name: "Aunt", email: aunt.email }, ORIGIN, FROM);
    expect(await blockUser(aunt.id, parent.id)).toMatchObject({ ok: true });
    expect(await acceptInvitation(aunt.id, tokenOf(early.url))).toEqual({
      ok: false,
      kind: "invalid",
      message: INVITATION_MESSAGES.unusable,
    });
    expect(await canSeeKidsOf(aunt.id, parent.id)).toBe(false);
  });

  it("invitation creation is limited per user per day", async () => {
    const parent = await makeUser();
    for (let i = 0; i < 20; i++) expect((await createInvitation(parent, {}, ORIGIN)).ok).toBe(true);
    expect(await createInvitation(parent, {}, ORIGIN)).toMatchObject({ ok: false, kind: "too-many" });
    expect((await createInvitation(await makeUser(), {}, ORIGIN)).ok).toBe(true);
  });
});
