import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { hashLinkToken } from "~/lib/tokens.server";
import { createInvitation } from "./invitations.server";
import { joinByInvitation } from "./invitation-join.server";
import { createFriendSignInLink, readSignInLink, requestSignInLink, redeemSignInLink } from "./sign-in-links.server";
import { makeUser } from "../../tests/helpers";
import { resetEnvCache } from "../../server/env.mjs";

// Sign-in links on the real database (SQLite, or PostgreSQL with TEST_DATABASE_URL); invitations:
// invitations.server.test.ts.

const ORIGIN = "https://moments.test";
const tokenOf = (url: string) => url.split("/").pop()!;
/** Where a signed-out answer comes from (the client's address: the limits of emailed links count it). */
const FROM = { address: "192.0.2.1" };
const queued = (to: string) => db()("mail_messages").where("to_address", to).orderBy("id");

beforeEach(() => resetLimits());

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
    expect(await redeemSignInLink(token)).toMatchObject({ ok: true, user: { id: user.id } });
    expect(await redeemSignInLink(token)).toMatchObject({ ok: false, kind: "conflict" });
    expect((await readSignInLink(token)).state).toBe("used");
  });

  it("expired links fail; the reset purpose is kept", async () => {
    const user = await makeUser();
    await requestSignInLink(user.email, { reset: true, origin: ORIGIN, address: "10.0.0.2" });
    const [mail] = await queued(user.email);
    expect(mail.kind).toBe("reset");
    const token = /\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!;
    expect((await readSignInLink(token)).purpose).toBe("reset");
    await db()("sign_in_links")
      .where("token_hash", hashLinkToken(token))
      .update({ expires_at: new Date(Date.now() - 1).toISOString() });
    expect((await readSignInLink(token)).state).toBe("expired");
    expect(await redeemSignInLink(token)).toMatchObject({ ok: false, kind: "conflict" });
  });

  /** `perAccount` links reach one address (from several clients); one client gets `perAddress` requests through, then none. */
  async function expectSignInLinkLimits(perAccount: number, perAddress: number, net: string) {
    const user = await makeUser();
    for (let i = 0; i < perAccount + 2; i++)
      await requestSignInLink(user.email, { reset: false, origin: ORIGIN, address: `${net}.1.${i}` });
    expect(await queued(user.email)).toHaveLength(perAccount);
    const other = await makeUser();
    for (let i = 0; i < perAddress; i++)
      await requestSignInLink(`x${i}-${net}@example.com`, { reset: false, origin: ORIGIN, address: `${net}.9.9` });
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
    const joined = await joinByInvitation(
      tokenOf(made.url),
      { name: "Opa Hans", email: "opa@example.com" },
      ORIGIN,
      FROM,
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await createFriendSignInLink(stranger.id, joined.user.id, ORIGIN)).toMatchObject({
      ok: false,
      kind: "not-found",
    });
    expect(await createFriendSignInLink(parent.id, stranger.id, ORIGIN)).toMatchObject({
      ok: false,
      kind: "not-found",
    });
    expect(await createFriendSignInLink(parent.id, "abc", ORIGIN)).toMatchObject({ ok: false, kind: "not-found" });
    const link = await createFriendSignInLink(parent.id, joined.user.id, ORIGIN);
    if (!link.ok) throw new Error("refused");
    expect(link.url).toMatch(/^https:\/\/moments\.test\/login\/link\/[A-Za-z0-9_-]{43}$/);
    expect(await redeemSignInLink(tokenOf(link.url))).toMatchObject({
      ok: true,
      user: { id: joined.user.id },
      purpose: "friend",
    });
    // once the friend has a password, the parent no longer stands in for them
    await db()("users").where("id", joined.user.id).update({ password_hash: "scrypt$x" });
    expect(await createFriendSignInLink(parent.id, joined.user.id, ORIGIN)).toMatchObject({
      ok: false,
      kind: "forbidden",
    });
  });
});
