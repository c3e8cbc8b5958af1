import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { hashLinkToken } from "~/lib/tokens.server";
import { canSeeKidsOf } from "./access.server";
import { acceptInvitation, createInvitation, INVITATION_MESSAGES, joinByInvitation, listInvitations, readInvitation, revokeInvitation } from "./invitations.server";
import { createFriendSignInLink, readSignInLink, requestSignInLink, useSignInLink } from "./sign-in-links.server";
import { getUserWithPasswordByEmail } from "./users.server";
import { blockUser } from "./blocks.server";
import { setFriendLabel } from "./circles.server";
import { labelFromRow } from "./friendships.server";
import { makeUser } from "../../tests/helpers";
import { resetEnvCache } from "../../server/env.mjs";

// Invitations and sign-in links on the real database (SQLite, or PostgreSQL with TEST_DATABASE_URL).

const ORIGIN = "https://moments.test";
const tokenOf = (url: string) => url.split("/").pop()!;
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
    expect(await readInvitation(token)).toEqual({ state: "pending", inviterId: parent.id, inviterName: "Maria Lopez", note: "For Grandma" });
  });

  it("joining signed out: an account without a password, an accepted friend of the inviter; the link is then used", async () => {
    const parent = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const token = tokenOf(made.url);
    const joined = await joinByInvitation(token, { name: "Rosa María Pérez", email: "Rosa@Example.com" }, ORIGIN);
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(joined.user).toMatchObject({ email: "rosa@example.com", first_name: "Rosa", last_name: "María Pérez", username: "rosa.maria.perez" });
    expect((await getUserWithPasswordByEmail("rosa@example.com"))!.password_hash).toBe("");
    expect(await canSeeKidsOf(joined.user.id, parent.id)).toBe(true);
    expect((await listInvitations(parent.id))[0]).toMatchObject({ state: "accepted", friend: { id: joined.user.id, name: "Rosa María Pérez", hasPassword: false } });
    expect((await readInvitation(token)).state).toBe("accepted");
    expect(await joinByInvitation(token, { name: "Another", email: "another@example.com" }, ORIGIN)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await getUserWithPasswordByEmail("another@example.com")).toBeNull();
  });

  it("an address that already has an account is not told so: the link is used and that address gets a sign-in link that accepts it", async () => {
    const parent = await makeUser();
    const aunt = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const answer = await joinByInvitation(tokenOf(made.url), { name: "Someone", email: aunt.email.toUpperCase() }, ORIGIN);
    expect(answer).toEqual({ ok: true, outcome: "check-email" });
    expect(await canSeeKidsOf(aunt.id, parent.id)).toBe(false);
    expect((await readInvitation(tokenOf(made.url))).state).toBe("used");
    const [mail] = await queued(aunt.email);
    const link = /https:\/\/moments\.test\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!;
    const used = await useSignInLink(link);
    expect(used).toMatchObject({ ok: true, user: { id: aunt.id }, purpose: "sign-in" });
    expect(await canSeeKidsOf(aunt.id, parent.id)).toBe(true);
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
    expect(await acceptInvitation((await makeUser()).id, tokenOf(made.url))).toMatchObject({ ok: false, kind: "conflict" });
  });

  it("revoked and expired links can no longer be used; only the inviter revokes", async () => {
    const parent = await makeUser();
    const other = await makeUser();
    const a = await createInvitation(parent, {}, ORIGIN);
    const b = await createInvitation(parent, {}, ORIGIN);
    if (!a.ok || !b.ok) throw new Error("refused");
    expect(await revokeInvitation(other.id, a.invitation.id)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await revokeInvitation(parent.id, a.invitation.id)).toMatchObject({ ok: true, invitation: { state: "revoked" } });
    expect(await revokeInvitation(parent.id, a.invitation.id)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await readInvitation(tokenOf(a.url))).toEqual({ state: "revoked", inviterId: null, inviterName: null, note: null });
    expect(await joinByInvitation(tokenOf(a.url), { name: "X Y", email: "xy@example.com" }, ORIGIN)).toMatchObject({ ok: false, kind: "conflict" });
    await db()("invitations").where("id", b.invitation.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect((await readInvitation(tokenOf(b.url))).state).toBe("expired");
    expect(await joinByInvitation(tokenOf(b.url), { name: "X Y", email: "xy@example.com" }, ORIGIN)).toMatchObject({ ok: false, kind: "conflict" });
    expect((await readInvitation("not-a-token")).state).toBe("unknown");
  });

  it("an invitation presets the inviter's circle and relationship; accepting applies them to the inviter's side only", async () => {
    const uncle = await makeUser(); // made first: the inviter below is the friendship's high side
    const parent = await makeUser();
    const aunt = await makeUser();
    const labelsOf = async (a: number, b: number) => {
      const row = await db()("friendships").where({ user_low: Math.min(a, b), user_high: Math.max(a, b) }).first();
      return { [a]: labelFromRow(row, a), [b]: labelFromRow(row, b), status: row.status };
    };
    // signed out: a new account (the inviter is the low side)
    const family = await createInvitation(parent, { circle: "family", relationship: "grandparent" }, ORIGIN);
    if (!family.ok) throw new Error("refused");
    expect(family.invitation).toMatchObject({ circle: "family", relationship: "grandparent" });
    const joined = await joinByInvitation(tokenOf(family.url), { name: "Oma Greta", email: "oma-preset@example.com" }, ORIGIN);
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
    expect(await labelsOf(parent.id, uncle.id)).toMatchObject({ [parent.id]: { circle: "family", relationship: "cousin" }, [uncle.id]: { circle: "friends", relationship: null } });
    // by the sign-in link an existing address is sent
    const caregiver = await createInvitation(parent, { circle: "family", relationship: "caregiver" }, ORIGIN);
    if (!caregiver.ok) throw new Error("refused");
    await joinByInvitation(tokenOf(caregiver.url), { name: "Aunt", email: aunt.email }, ORIGIN);
    const [mail] = await queued(aunt.email);
    expect(await useSignInLink(/\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!)).toMatchObject({ ok: true });
    expect((await labelsOf(parent.id, aunt.id))[parent.id]).toEqual({ circle: "family", relationship: "caregiver" });
    // no preset: Friends, no relationship; a friendship accepted already keeps the labels its sides chose
    const plain = await createInvitation(parent, {}, ORIGIN);
    if (!plain.ok) throw new Error("refused");
    expect(plain.invitation).toMatchObject({ circle: "friends", relationship: null });
    const row = await db()("friendships").where({ user_low: Math.min(parent.id, uncle.id), user_high: Math.max(parent.id, uncle.id) }).first("id");
    expect(await setFriendLabel(parent.id, row.id, { circle: "friends", relationship: "other" })).toMatchObject({ ok: true });
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
    for (const made of [toBlocked, toBlocker, toNobody]) expect(made).toMatchObject({ ok: true, invitation: { state: "pending" } });
    expect(await queued(blocked.email)).toEqual([]);
    expect(await queued(blocker.email)).toEqual([]);
    expect(await queued("nobody-here@example.com")).toHaveLength(1);
    if (!toBlocked.ok || !toBlocker.ok) throw new Error("refused");
    // signed in, either way round: the answer of a link that can no longer be used; the link stays pending
    for (const [viewer, made] of [
      [blocked, toBlocked],
      [blocker, toBlocker],
    ] as const) {
      expect(await acceptInvitation(viewer.id, tokenOf(made.url))).toEqual({ ok: false, kind: "invalid", message: INVITATION_MESSAGES.unusable });
      expect((await readInvitation(tokenOf(made.url))).state).toBe("pending");
    }
    expect(await canSeeKidsOf(blocked.id, blocker.id)).toBe(false);
    expect(await canSeeKidsOf(blocker.id, blocked.id)).toBe(false);
    expect(await db()("friendships").where({ user_low: Math.min(blocker.id, blocked.id), user_high: Math.max(blocker.id, blocked.id) })).toEqual([]);
    // signed out with the blocked user's address: "check your email" as for any account, then the sign-in link signs in without a friendship
    expect(await joinByInvitation(tokenOf(toBlocked.url), { name: "Someone", email: blocked.email }, ORIGIN)).toEqual({ ok: true, outcome: "check-email" });
    const [mail] = await queued(blocked.email);
    expect(await useSignInLink(/\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!)).toMatchObject({ ok: true, user: { id: blocked.id } });
    expect(await canSeeKidsOf(blocked.id, blocker.id)).toBe(false);
    expect((await listInvitations(blocker.id)).find((i) => i.id === toBlocked.invitation.id)).toMatchObject({ state: "used", friend: null });
    expect(await db()("notifications").where({ user_id: blocker.id, kind: "invite-accepted" })).toEqual([]);
  });

  it("invitation creation is limited per user per day", async () => {
    const parent = await makeUser();
    for (let i = 0; i < 20; i++) expect((await createInvitation(parent, {}, ORIGIN)).ok).toBe(true);
    expect(await createInvitation(parent, {}, ORIGIN)).toMatchObject({ ok: false, kind: "too-many" });
    expect((await createInvitation(await makeUser(), {}, ORIGIN)).ok).toBe(true);
  });
});

describe("sign-in links", () => {
  it("an emailed link for a known address only, the same answer either way; single use; 15 minutes", async () => {
    const user = await makeUser();
    await requestSignInLink(user.email, { reset: false, origin: ORIGIN, address: "10.0.0.1" });
    await requestSignInLink("nobody@example.com", { reset: false, origin: ORIGIN, address: "10.0.0.1" });
    expect(await queued("nobody@example.com")).toEqual([]);
    const [mail] = await queued(user.email);
    expect(mail.kind).toBe("sign-in");
    const token = /\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!;
    const row = await db()("sign_in_links").where("token_hash", hashLinkToken(token)).first();
    expect((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 60_000).toBe(15);
    expect(await readSignInLink(token)).toEqual({ state: "valid", purpose: "sign-in" });
    expect(await useSignInLink(token)).toMatchObject({ ok: true, user: { id: user.id } });
    expect(await useSignInLink(token)).toMatchObject({ ok: false, kind: "conflict" });
    expect((await readSignInLink(token)).state).toBe("used");
  });

  it("expired links fail; the reset purpose is kept", async () => {
    const user = await makeUser();
    await requestSignInLink(user.email, { reset: true, origin: ORIGIN, address: "10.0.0.2" });
    const [mail] = await queued(user.email);
    expect(mail.kind).toBe("reset");
    const token = /\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!;
    expect((await readSignInLink(token)).purpose).toBe("reset");
    await db()("sign_in_links").where("token_hash", hashLinkToken(token)).update({ expires_at: new Date(Date.now() - 1).toISOString() });
    expect((await readSignInLink(token)).state).toBe("expired");
    expect(await useSignInLink(token)).toMatchObject({ ok: false, kind: "conflict" });
  });

  /** `perAccount` links reach one address (from several clients); one client gets `perAddress` requests through, then none. */
  async function expectSignInLinkLimits(perAccount: number, perAddress: number, net: string) {
    const user = await makeUser();
    for (let i = 0; i < perAccount + 2; i++) await requestSignInLink(user.email, { reset: false, origin: ORIGIN, address: `${net}.1.${i}` });
    expect(await queued(user.email)).toHaveLength(perAccount);
    const other = await makeUser();
    for (let i = 0; i < perAddress; i++) await requestSignInLink(`x${i}-${net}@example.com`, { reset: false, origin: ORIGIN, address: `${net}.9.9` });
    await requestSignInLink(other.email, { reset: false, origin: ORIGIN, address: `${net}.9.9` });
    expect(await queued(other.email)).toHaveLength(0);
    await requestSignInLink(other.email, { reset: false, origin: ORIGIN, address: `${net}.9.8` });
    expect(await queued(other.email)).toHaveLength(1);
  }

  it("limited per address and per account, silently", async () => {
    await expectSignInLinkLimits(5, 30, "10.1");
  });

  it("the limits follow SIGN_IN_LINK_MAX_PER_ACCOUNT and SIGN_IN_LINK_MAX_PER_ADDRESS", async () => {
    process.env.SIGN_IN_LINK_MAX_PER_ACCOUNT = "2";
    process.env.SIGN_IN_LINK_MAX_PER_ADDRESS = "3";
    resetEnvCache();
    try {
      await expectSignInLinkLimits(2, 3, "10.2");
    } finally {
      delete process.env.SIGN_IN_LINK_MAX_PER_ACCOUNT;
      delete process.env.SIGN_IN_LINK_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("a parent makes a link for a friend who joined by their invitation without a password; nobody else", async () => {
    const parent = await makeUser();
    const stranger = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const joined = await joinByInvitation(tokenOf(made.url), { name: "Opa Hans", email: "opa@example.com" }, ORIGIN);
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await createFriendSignInLink(stranger.id, joined.user.id, ORIGIN)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await createFriendSignInLink(parent.id, stranger.id, ORIGIN)).toMatchObject({ ok: false, kind: "not-found" });
    expect(await createFriendSignInLink(parent.id, "abc", ORIGIN)).toMatchObject({ ok: false, kind: "not-found" });
    const link = await createFriendSignInLink(parent.id, joined.user.id, ORIGIN);
    if (!link.ok) throw new Error("refused");
    expect(link.url).toMatch(/^https:\/\/moments\.test\/login\/link\/[A-Za-z0-9_-]{43}$/);
    expect(await useSignInLink(tokenOf(link.url))).toMatchObject({ ok: true, user: { id: joined.user.id }, purpose: "friend" });
    // once the friend has a password, the parent no longer stands in for them
    await db()("users").where("id", joined.user.id).update({ password_hash: "scrypt$x" });
    expect(await createFriendSignInLink(parent.id, joined.user.id, ORIGIN)).toMatchObject({ ok: false, kind: "forbidden" });
  });
});
