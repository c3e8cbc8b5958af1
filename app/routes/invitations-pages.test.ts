import { beforeEach, describe, expect, it } from "vitest";
import * as friendsPage from "./friends";
import * as invitePage from "./invite";
import * as loginEmailPage from "./login-email";
import * as loginLinkPage from "./login-link";
import * as invitesApi from "./api/invites";
import * as inviteIdApi from "./api/invites-id";
import * as magicLinkApi from "./api/auth-magic-link";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { canSeeKidsOf } from "~/models/access.server";
import { getUserWithPasswordByEmail } from "~/models/users.server";
import { checkCredentials, LoginError } from "~/web/auth.server";
import { args, BASE, context, cookieFor, makeUser, req, sessionCookieOf, statusOf } from "../../tests/helpers";
import { resetEnvCache } from "../../server/env.mjs";

// The invitation and sign-in-link pages and API through their route modules, with real requests,
// sessions and database (tests/e2e/invitations.spec.ts drives the same in a browser).

type DataWithResponseInit = { type: "DataWithResponseInit"; data: unknown; init: { status?: number } | null };
const isData = (v: unknown): v is DataWithResponseInit => (v as DataWithResponseInit)?.type === "DataWithResponseInit";
const sessionCookie = sessionCookieOf;
const tokenIn = (text: string, path: string) => new RegExp(`${path}/([A-Za-z0-9_-]{43})`).exec(text)![1]!;

beforeEach(() => resetLimits());

async function invite(cookie: string, form: Record<string, string> = {}) {
  const res = (await friendsPage.action(
    args(req("/current/friends", { cookie, form: { intent: "invite", ...form } })),
  )) as Response;
  return res;
}

describe("the friends page's invitations", () => {
  it("creating one redirects (PRG) and the next page shows the link once; pending invitations are listed and revocable", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const res = await invite(cookie, {
      note: "For Oma",
      email: "oma@example.com",
      circle: "family",
      relationship: "grandparent",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/current/friends#new-link");
    const flash = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("sm_new_link="))!
      .split(";")[0]!;
    const page = await friendsPage.loader(args(req("/current/friends", { cookie: `${cookie}; ${flash}` })));
    expect(page.newLink).toMatchObject({ kind: "invitation", who: "oma@example.com" });
    expect(page.newLink!.url).toMatch(new RegExp(`^${BASE}/invite/[A-Za-z0-9_-]{43}$`));
    expect(page.familyInvitations).toMatchObject([
      { state: "pending", note: "For Oma", email: "oma@example.com", circle: "family", relationship: "grandparent" },
    ]);
    // without the cookie the link is not shown again (its token is not stored)
    expect((await friendsPage.loader(args(req("/current/friends", { cookie })))).newLink).toBeNull();
    const revoked = (await friendsPage.action(
      args(
        req("/current/friends", {
          cookie,
          form: { intent: "revoke-invite", invitationId: String(page.familyInvitations[0]!.id) },
        }),
      ),
    )) as Response;
    expect(revoked.status).toBe(303);
    expect((await friendsPage.loader(args(req("/current/friends", { cookie })))).familyInvitations[0]!.state).toBe(
      "revoked",
    );
  });

  it("a bad email is a form error (400) and nothing is made; someone else's invitation cannot be revoked", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const bad = await invite(cookie, { email: "not an email" });
    expect(statusOf(bad)).toBe(400);
    for (const form of [{ circle: "enemies" }, { relationship: "boss" }] as Record<string, string>[])
      expect(statusOf(await invite(cookie, form))).toBe(400);
    expect(await db()("invitations").where("inviter_id", parent.id)).toEqual([]);
    await invite(cookie);
    const [row] = await db()("invitations").where("inviter_id", parent.id);
    const other = await cookieFor(await makeUser());
    const answer = await friendsPage.action(
      args(req("/current/friends", { cookie: other, form: { intent: "revoke-invite", invitationId: String(row.id) } })),
    );
    expect(statusOf(answer)).toBe(404);
    expect((await db()("invitations").where("id", row.id).first()).revoked_at).toBeNull();
  });
});

describe("/invite/:token", () => {
  async function link(parentCookie: string) {
    const res = await invite(parentCookie);
    const flash = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("sm_new_link="))!
      .split(";")[0]!;
    const page = await friendsPage.loader(args(req("/current/friends", { cookie: `${parentCookie}; ${flash}` })));
    return new URL(page.newLink!.url).pathname;
  }

  it("signed out: who invited you; name and email make an account without a password, signed in, friend of the inviter", async () => {
    const parent = await makeUser({ first_name: "Lena", last_name: "Berg" });
    const path = await link(await cookieFor(parent));
    const token = path.split("/").pop()!;
    expect(await invitePage.loader(args(req(path), { token }))).toMatchObject({
      state: "pending",
      inviterName: "Lena Berg",
      signedIn: false,
    });
    const missing = await invitePage.action(args(req(path, { form: { name: "", email: "" } }), { token }));
    expect(statusOf(missing)).toBe(400);
    const res = (await invitePage.action(
      args(req(path, { form: { name: "Grandpa Joe", email: "joe@example.com", password: "" } }), { token }),
    )) as Response;
    expect(res.status).toBe(303);
    // a relative lands on the inviter's moments, welcomed with what they see
    expect(res.headers.get("Location")).toBe(`/feed?welcome=${parent.id}`);
    // the next page offers a passkey ("Next time, sign in with your face or fingerprint")
    expect(res.headers.getSetCookie().filter((c) => c.startsWith("sm_passkey_offer=1;"))).toHaveLength(1);
    const joe = await getUserWithPasswordByEmail("joe@example.com");
    expect(joe!.password_hash).toBe("");
    expect(await canSeeKidsOf(joe!.id, parent.id)).toBe(true);
    const friends = await friendsPage.loader(args(req("/current/friends", { cookie: sessionCookie(res) })));
    expect(friends.friends.map((f) => f.userId)).toEqual([parent.id]);
    // the link is used now: a clear page, 200
    expect(await invitePage.loader(args(req(path), { token }))).toMatchObject({ state: "accepted", inviterName: null });
    const again = (await invitePage.action(
      args(req(path, { form: { name: "Other", email: "other@example.com" } }), { token }),
    )) as Response;
    expect(again.headers.get("Location")).toBe(path);
    // with JavaScript the form posts to the data URL: the answer still leads to the page
    const viaData = (await invitePage.action(
      args(req(`${path}.data`, { form: { name: "Other", email: "other@example.com" } }), { token }),
    )) as Response;
    expect(viaData.headers.get("Location")).toBe(path);
  });

  it("an account without a password cannot log in with any password", async () => {
    const parent = await makeUser();
    const path = await link(await cookieFor(parent));
    const token = path.split("/").pop()!;
    await invitePage.action(
      args(req(path, { form: { name: "Nopass Person", email: "nopass@example.com" } }), { token }),
    );
    expect((await getUserWithPasswordByEmail("nopass@example.com"))!.password_hash).toBe("");
    const error = await checkCredentials("nopass@example.com", "secret1", "10.2.2.2").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoginError);
    expect((error as LoginError).status).toBe(401);
  });

  it("signed in: Accept makes the two friends", async () => {
    const parent = await makeUser();
    const path = await link(await cookieFor(parent));
    const token = path.split("/").pop()!;
    const aunt = await makeUser();
    const cookie = await cookieFor(aunt);
    expect(await invitePage.loader(args(req(path, { cookie }), { token }))).toMatchObject({
      state: "pending",
      signedIn: true,
      own: false,
    });
    const res = (await invitePage.action(args(req(path, { cookie, form: {} }), { token }))) as Response;
    expect(res.headers.get("Location")).toBe(`/feed?welcome=${parent.id}`);
    expect(await canSeeKidsOf(aunt.id, parent.id)).toBe(true);
  });

  it("answered signed out with the address of an existing account: no friendship; the mailed link signs in to the invitation page, where Accept or Decline decides (no JavaScript needed)", async () => {
    const stranger = await makeUser({ first_name: "Sam", last_name: "Stranger" });
    const victim = await makeUser();
    const victimCookie = await cookieFor(victim);
    for (const answerWith of ["decline", "accept"] as const) {
      const path = await link(await cookieFor(stranger));
      const token = path.split("/").pop()!;
      const joined = (await invitePage.action(
        args(req(path, { form: { name: "Someone", email: victim.email } }), { token }),
      )) as Response;
      expect([joined.status, joined.headers.get("Location"), joined.headers.getSetCookie()]).toEqual([
        303,
        "/login/email?sent=1",
        [],
      ]);
      expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
      // the mail names the inviter; its sign-in link leads to the invitation's page (the form posts to the link's own URL)
      const mail = (await db()("mail_messages").where("to_address", victim.email).orderBy("id", "desc"))[0];
      expect(mail.subject).toBe("Sam Stranger invited you to be friends on Sweet Moments");
      const signIn = new RegExp(`${BASE}(/login/link/([A-Za-z0-9_-]{43})\\?invitation=${token})`).exec(mail.text_body)!;
      const used = (await loginLinkPage.action(args(req(signIn[1]!, { form: {} }), { token: signIn[2]! }))) as Response;
      expect([used.status, used.headers.get("Location")]).toEqual([303, path]);
      const cookie = sessionCookie(used);
      expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
      // signed in as someone else or signed out, it is just a used link
      expect(await invitePage.loader(args(req(path), { token }))).toMatchObject({ state: "used", inviterName: null });
      expect(await invitePage.loader(args(req(path, { cookie: await cookieFor(stranger) }), { token }))).toMatchObject({
        state: "used",
      });
      expect(await invitePage.loader(args(req(path, { cookie }), { token }))).toMatchObject({
        state: "offered",
        inviterName: "Sam Stranger",
        signedIn: true,
        own: false,
      });
      const answer = (await invitePage.action(
        args(req(path, { cookie: victimCookie, form: { intent: answerWith } }), { token }),
      )) as Response;
      if (answerWith === "decline") {
        expect([answer.status, answer.headers.get("Location")]).toEqual([303, path]);
        expect(await invitePage.loader(args(req(path, { cookie }), { token }))).toMatchObject({
          state: "declined",
          inviterName: null,
        });
        expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
        // Accept after Decline: the page says why it no longer works
        const late = (await invitePage.action(
          args(req(path, { cookie, form: { intent: "accept" } }), { token }),
        )) as Response;
        expect(late.headers.get("Location")).toBe(path);
        expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(false);
      } else {
        expect([answer.status, answer.headers.get("Location")]).toEqual([303, `/feed?welcome=${stranger.id}`]);
        expect(await canSeeKidsOf(victim.id, stranger.id)).toBe(true);
      }
    }
  });

  it("a sign-in link leads to no invitation but the one it was mailed for", async () => {
    const parent = await makeUser();
    const path = await link(await cookieFor(parent));
    const token = path.split("/").pop()!;
    const aunt = await makeUser();
    await loginEmailPage.action(args(req("/login/email", { form: { email: aunt.email } })));
    const [mail] = await db()("mail_messages").where("to_address", aunt.email);
    const plain = tokenIn(mail.text_body, "/login/link");
    const used = (await loginLinkPage.action(
      args(req(`/login/link/${plain}?invitation=${token}`, { form: {} }), { token: plain }),
    )) as Response;
    expect(used.headers.get("Location")).toBe("/my-kids-list");
  });

  it("the mail of an answer with an existing account's address counts against the client address's limit of emailed sign-in links", async () => {
    process.env.SIGN_IN_LINK_MAX_PER_ADDRESS = "1";
    resetEnvCache();
    try {
      const parent = await makeUser();
      const path = await link(await cookieFor(parent));
      const token = path.split("/").pop()!;
      const aunt = await makeUser();
      const from = context("203.0.113.7");
      await loginEmailPage.action(args(req("/login/email", { form: { email: "nobody-here@example.com" } }), {}, from));
      const joined = (await invitePage.action(
        args(req(path, { form: { name: "Someone", email: aunt.email } }), { token }, from),
      )) as Response;
      expect(joined.headers.get("Location")).toBe("/login/email?sent=1");
      expect(await db()("mail_messages").where("to_address", aunt.email)).toEqual([]);
    } finally {
      delete process.env.SIGN_IN_LINK_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("signed in with a block between the two: Accept says only that the link cannot be used, and makes no friendship", async () => {
    const parent = await makeUser();
    const parentCookie = await cookieFor(parent);
    const path = await link(parentCookie);
    const token = path.split("/").pop()!;
    const blocked = await makeUser();
    await friendsPage.action(
      args(req("/current/friends", { cookie: parentCookie, form: { intent: "block", userId: String(blocked.id) } })),
    );
    const answer = await invitePage.action(args(req(path, { cookie: await cookieFor(blocked), form: {} }), { token }));
    expect(statusOf(answer)).toBe(400);
    expect(isData(answer) && answer.data).toEqual({
      result: undefined,
      error: "This invitation can no longer be used.",
    });
    expect(await canSeeKidsOf(blocked.id, parent.id)).toBe(false);
    expect(await db()("blocks").where({ blocker_id: parent.id, blocked_id: blocked.id })).toHaveLength(1);
  });
});

describe("sign-in links", () => {
  it("/login/email answers the same for a known and an unknown address; the emailed link signs in once", async () => {
    const user = await makeUser();
    const known = (await loginEmailPage.action(args(req("/login/email", { form: { email: user.email } })))) as Response;
    const unknown = (await loginEmailPage.action(
      args(req("/login/email", { form: { email: "ghost@example.com" } })),
    )) as Response;
    expect([known.status, known.headers.get("Location")]).toEqual([303, "/login/email?sent=1"]);
    expect([unknown.status, unknown.headers.get("Location")]).toEqual([303, "/login/email?sent=1"]);
    const [mail] = await db()("mail_messages").where("to_address", user.email);
    const token = tokenIn(mail.text_body, "/login/link");
    const path = `/login/link/${token}`;
    expect(await loginLinkPage.loader(args(req(path), { token }))).toEqual({ state: "valid", reset: false });
    const res = (await loginLinkPage.action(args(req(path, { form: {} }), { token }))) as Response;
    expect(res.headers.get("Location")).toBe("/my-kids-list");
    expect(sessionCookie(res)).toMatch(/^sm_session=/);
    const again = (await loginLinkPage.action(args(req(path, { form: {} }), { token }))) as Response;
    expect(again.headers.get("Location")).toBe(path);
    expect(again.headers.getSetCookie()).toEqual([]);
    // with JavaScript the form posts to the data URL: the answer still leads to the page
    const viaData = (await loginLinkPage.action(args(req(`${path}.data`, { form: {} }), { token }))) as Response;
    expect(viaData.headers.get("Location")).toBe(path);
    expect(await loginLinkPage.loader(args(req(path), { token }))).toEqual({ state: "used", reset: false });
  });

  it("Forgot your password?: the link leads to the settings page's password form", async () => {
    const user = await makeUser();
    await loginEmailPage.action(args(req("/login/email", { form: { email: user.email, reset: "1" } })));
    const [mail] = await db()("mail_messages").where("to_address", user.email);
    expect(mail.subject).toBe("Reset your Sweet Moments password");
    const token = tokenIn(mail.text_body, "/login/link");
    const res = (await loginLinkPage.action(args(req(`/login/link/${token}`, { form: {} }), { token }))) as Response;
    expect(res.headers.get("Location")).toBe("/settings#password");
  });
});

describe("the API", () => {
  it("POST /api/invites → 201 {id, url, expires_at}; GET lists; DELETE revokes once; someone else's is 404", async () => {
    const parent = await makeUser();
    const cookie = await cookieFor(parent);
    const created = await invitesApi.action(
      args(req("/api/invites", { cookie, json: { email: "gran@example.com", note: "Hi" } })),
    );
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(Object.keys(body).sort()).toEqual(["circle", "co_parent_kids", "expires_at", "id", "relationship", "url"]);
    expect([body.circle, body.relationship]).toEqual(["friends", null]);
    expect(body.url).toMatch(new RegExp(`^${BASE}/invite/[A-Za-z0-9_-]{43}$`));
    const list = await (await invitesApi.loader(args(req("/api/invites", { cookie })))).json();
    expect(list).toEqual({
      invites: [
        {
          id: body.id,
          note: "Hi",
          email: "gran@example.com",
          state: "pending",
          created_at: expect.any(String),
          expires_at: body.expires_at,
          circle: "friends",
          relationship: null,
          co_parent_kids: [],
          friend: null,
        },
      ],
    });
    const preset = await invitesApi.action(
      args(req("/api/invites", { cookie, json: { circle: "family", relationship: "parents_sibling" } })),
    );
    expect([preset.status, (await preset.json()).circle]).toEqual([201, "family"]);
    expect((await (await invitesApi.loader(args(req("/api/invites", { cookie })))).json()).invites[0]).toMatchObject({
      circle: "family",
      relationship: "parents_sibling",
    });
    for (const [json, field, message] of [
      [{ circle: "enemies" }, "circle", "Choose a circle: Family or Friends"],
      [{ circle: ["family"] }, "circle", "Choose a circle: Family or Friends"],
      [{ relationship: "boss" }, "relationship", "Choose a relationship from the list"],
    ] as const) {
      const refused = await invitesApi.action(args(req("/api/invites", { cookie, json })));
      expect([refused.status, await refused.json()]).toEqual([400, { errors: { [field]: [message] } }]);
    }
    expect(await db()("invitations").where("inviter_id", parent.id)).toHaveLength(2);
    const bad = await invitesApi.action(args(req("/api/invites", { cookie, json: { email: "nope" } })));
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { errors: { email: ["Enter an email address like name@example.com."] } },
    ]);
    const other = await inviteIdApi.action(
      args(req(`/api/invites/${body.id}`, { method: "DELETE", cookie: await cookieFor(await makeUser()) }), {
        id: String(body.id),
      }),
    );
    expect([other.status, await other.json()]).toEqual([404, { errors: { message: "Invitation not found" } }]);
    const del = await inviteIdApi.action(
      args(req(`/api/invites/${body.id}`, { method: "DELETE", cookie }), { id: String(body.id) }),
    );
    expect([del.status, (await del.json()).state]).toEqual([200, "revoked"]);
    const twice = await inviteIdApi.action(
      args(req(`/api/invites/${body.id}`, { method: "DELETE", cookie }), { id: String(body.id) }),
    );
    expect([twice.status, await twice.json()]).toEqual([
      400,
      { errors: { message: "This invitation has already been used or revoked." } },
    ]);
  });

  it("POST /api/auth/magic-link → 202 with the same body whether or not the address has an account; 400 for a malformed one", async () => {
    const user = await makeUser();
    const a = await magicLinkApi.action(args(req("/api/auth/magic-link", { json: { email: user.email } })));
    const b = await magicLinkApi.action(args(req("/api/auth/magic-link", { json: { email: "ghost@example.com" } })));
    expect([a.status, await a.text()]).toEqual([b.status, await b.text()]);
    expect(a.status).toBe(202);
    expect(await db()("mail_messages").where("to_address", user.email)).toHaveLength(1);
    const bad = await magicLinkApi.action(args(req("/api/auth/magic-link", { json: { email: 7 } })));
    expect(bad.status).toBe(400);
  });
});
