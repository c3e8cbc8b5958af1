import { beforeEach, describe, expect, it } from "vitest";
import * as settings from "./settings";
import * as loginEmail from "./login-email";
import * as loginLink from "./login-link";
import * as apiLinksForMe from "./api/users-current-sign-in-links";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { createInvitation, listInvitations } from "~/models/invitations.server";
import { acceptInvitation } from "~/models/invitation-answers.server";
import { joinByInvitation } from "~/models/invitation-join.server";
import { createFriendSignInLink, redeemSignInLink } from "~/models/sign-in-links.server";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { cookieOf, lastMailTo, linkIn, post, signedIn } from "../../tests/kit/account-safety";

// Account safety (docs/decisions/0039-account-safety.md): a parent's sign-in links for a relative
// stop the moment the relative secures the account (the new password and the undoable email change:
// account-safety.test.ts). Pages as a browser without JavaScript posts them, the API as a client
// calls it; mail read from the real queue.

beforeEach(() => resetLimits());

/** A parent, and a relative whose account the parent's invitation made (no password). */
async function invitedRelative(tag: string) {
  const parent = await makeUser({ first_name: "Maria", last_name: "Lopez" });
  const made = await createInvitation(parent, {}, "https://moments.test");
  if (!made.ok) throw new Error("refused");
  const joined = await joinByInvitation(
    made.url.split("/").pop(),
    { name: "Opa Hans", email: `opa-${tag}@example.com` },
    "https://moments.test",
    { address: "192.0.2.1" },
  );
  if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
  return { parent, relative: joined.user };
}

const friendLink = async (parentId: number, relativeId: number) => {
  const link = await createFriendSignInLink(parentId, relativeId, "https://moments.test");
  if (!link.ok) throw new Error(`refused: ${link.kind}`);
  return link.url.split("/").pop()!;
};

describe("a parent's sign-in links for a relative never outlive the relative's own way in", () => {
  it("a link made before the relative set a password signs no one in after it, and no new one can be made", async () => {
    const { parent, relative } = await invitedRelative("pw");
    const early = await friendLink(parent.id, relative.id);
    expect((await listInvitations(parent.id))[0]!.friend).toMatchObject({ canMakeLink: true });
    const cookie = await cookieFor(relative);
    const set = (await post(
      settings,
      "/settings",
      { intent: "password", password: "mine123", confirmPassword: "mine123" },
      cookie,
    )) as Response;
    expect(set.headers.get("Location")).toBe("/settings?done=password");
    expect(await redeemSignInLink(early)).toMatchObject({ ok: false, kind: "conflict" });
    expect(await createFriendSignInLink(parent.id, relative.id, "https://moments.test")).toMatchObject({
      ok: false,
      kind: "forbidden",
    });
    expect((await listInvitations(parent.id))[0]!.friend).toMatchObject({ canMakeLink: false });
  });

  it("a relative who signed in by a link from their own email is no longer the parent's to sign in as", async () => {
    const { parent, relative } = await invitedRelative("mail");
    const early = await friendLink(parent.id, relative.id);
    await post(loginEmail, "/login/email", { email: relative.email });
    const [, , token] = linkIn((await lastMailTo(relative.email)).text_body, "/login/link")!;
    expect(await redeemSignInLink(token)).toMatchObject({ ok: true, user: { id: relative.id } });
    expect(await redeemSignInLink(early)).toMatchObject({ ok: false });
    expect(await createFriendSignInLink(parent.id, relative.id, "https://moments.test")).toMatchObject({
      ok: false,
      kind: "forbidden",
    });
  });

  it("an existing account that accepted the parent's invitation was not made by it: no links for it", async () => {
    const parent = await makeUser();
    const cousin = await makeUser();
    await db()("users").where("id", cousin.id).update({ password_hash: "" });
    const made = await createInvitation(parent, {}, "https://moments.test");
    if (!made.ok) throw new Error("refused");
    expect(await acceptInvitation(cousin.id, made.url.split("/").pop())).toMatchObject({ ok: true });
    expect(await createFriendSignInLink(parent.id, cousin.id, "https://moments.test")).toMatchObject({
      ok: false,
      kind: "not-found",
    });
  });

  it("the relative's settings page lists who made links and when, and turns them off (the older links stop too)", async () => {
    const { parent, relative } = await invitedRelative("list");
    const used = await friendLink(parent.id, relative.id);
    expect(await redeemSignInLink(used)).toMatchObject({ ok: true, purpose: "friend" });
    const unused = await friendLink(parent.id, relative.id);
    const cookie = await cookieFor(relative);
    const page = await settings.loader(args(req("/settings", { cookie })));
    expect(page.linksForMe.open).toBe(true);
    expect(page.linksForMe.links).toEqual([
      { by: "Maria Lopez", created: expect.any(String), used: null },
      { by: "Maria Lopez", created: expect.any(String), used: expect.any(String) },
    ]);
    const off = (await post(settings, "/settings", { intent: "links-off" }, cookie)) as Response;
    expect(off.headers.get("Location")).toBe("/settings?done=links-off");
    expect(await redeemSignInLink(unused)).toMatchObject({ ok: false });
    expect(await createFriendSignInLink(parent.id, relative.id, "https://moments.test")).toMatchObject({
      ok: false,
      kind: "forbidden",
    });
    expect((await settings.loader(args(req("/settings", { cookie })))).linksForMe.open).toBe(false);
  });

  it("whoever a parent's link signed in is signed out when the relative secures the account; the relative's own session stays", async () => {
    const { parent, relative } = await invitedRelative("sessions");
    const signInAs = async () => {
      const token = await friendLink(parent.id, relative.id);
      const used = (await post(loginLink, `/login/link/${token}`, {}, undefined, { token })) as Response;
      expect(used.headers.get("Location")).toBe("/my-kids-list");
      return cookieOf(used);
    };
    // turning links off, from a session a link started: that one stays, the others end
    const impostor = await signInAs();
    const relativesOwn = await signInAs();
    const off = (await post(settings, "/settings", { intent: "links-off" }, relativesOwn)) as Response;
    expect(off.headers.get("Location")).toBe("/settings?done=links-off");
    expect(await signedIn(impostor)).toBe(false);
    expect(await signedIn(relativesOwn)).toBe(true);

    // setting a password from a session a link started: the same
    const other = await invitedRelative("sessions-pw");
    const token1 = await friendLink(other.parent.id, other.relative.id);
    const token2 = await friendLink(other.parent.id, other.relative.id);
    const first = cookieOf(
      (await post(loginLink, `/login/link/${token1}`, {}, undefined, { token: token1 })) as Response,
    );
    const second = cookieOf(
      (await post(loginLink, `/login/link/${token2}`, {}, undefined, { token: token2 })) as Response,
    );
    const set = (await post(
      settings,
      "/settings",
      { intent: "password", password: "mine123", confirmPassword: "mine123" },
      second,
    )) as Response;
    expect(set.headers.get("Location")).toBe("/settings?done=password");
    expect(await signedIn(first)).toBe(false);
    expect(await signedIn(second)).toBe(true);
  });

  it("GET and DELETE /api/users/current/sign-in-links: the same list, and the same way to turn them off", async () => {
    const { parent, relative } = await invitedRelative("api");
    const unused = await friendLink(parent.id, relative.id);
    const cookie = await cookieFor(relative);
    const listed = await apiLinksForMe.loader(args(req("/api/users/current/sign-in-links", { cookie })));
    expect(await listed.json()).toEqual({
      open: true,
      links: [{ made_by: { id: parent.id, name: "Maria Lopez" }, created_at: expect.any(String), used_at: null }],
    });
    const off = await apiLinksForMe.action(args(req("/api/users/current/sign-in-links", { method: "DELETE", cookie })));
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ open: false });
    expect(await redeemSignInLink(unused)).toMatchObject({ ok: false });
  });
});
