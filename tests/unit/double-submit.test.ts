// Every creating form and /api create, sent twice with the same one-time token (a double click, a
// resend): one row, and the second answer is the first's. In sequence and at the same moment (two
// requests in flight together). Without a token (or header) nothing changes.
import { describe, expect, it } from "vitest";
import * as kidNew from "../../app/routes/kid-new";
import * as momentNew from "../../app/routes/moment-new";
import * as signupPage from "../../app/routes/signup";
import * as friendSearch from "../../app/routes/friend-search";
import * as momentSocial from "../../app/routes/moment-social";
import * as apiKidsNew from "../../app/routes/api/kids-new";
import * as apiMomentsNew from "../../app/routes/api/kids-daily-logs-new";
import * as apiFriendshipsNew from "../../app/routes/api/friendships-new";
import * as apiCommentsNew from "../../app/routes/api/comments-new";
import * as apiSignup from "../../app/routes/api/auth-signup";
import * as apiMe from "../../app/routes/api/auth";
import * as friendsPage from "../../app/routes/friends";
import * as coParentsPage from "../../app/routes/kid-co-parents";
import * as invitePage from "../../app/routes/invite";
import * as apiInvites from "../../app/routes/api/invites";
import * as apiCoParents from "../../app/routes/api/kids-co-parents";
import { args, cookieFor, makeUser, req } from "../helpers";
import { db } from "../../app/lib/db.server";
import { createKid } from "../../app/models/kids.server";
import { newSubmissionToken } from "../../app/models/submissions.server";
import { IDEMPOTENCY_HEADER, SUBMISSION_FIELD } from "../../app/forms/submission";
import { jpeg } from "../../app/models/kids-test-helpers.server";
import { makeMoment } from "../../app/models/social-test-fixtures.server";
import { listUploads } from "../../app/images/test-fixtures.server";
import { befriend } from "../../app/models/social-test-fixtures.server";
import { createInvitation } from "../../app/models/invitations.server";
import { readLinkFlash } from "../../app/web/invitations.server";

const count = async (table: string, where: Record<string, unknown>) =>
  Number((await db()(table).where(where).count({ n: "*" }).first())?.n ?? 0);

/** What an action answered or threw, comparable: a redirect's status and Location, or data's status and body. */
async function answer(
  run: () => Promise<unknown>,
): Promise<{ status: number; location?: string | null; data?: unknown }> {
  let result: unknown;
  try {
    result = await run();
  } catch (thrown) {
    result = thrown;
  }
  if (result instanceof Response) return { status: result.status, location: result.headers.get("Location") };
  const d = result as { data?: unknown; init?: { status?: number } | null };
  return { status: d.init?.status ?? 200, data: d.data ?? result };
}

/** A redirect that signs someone in: where to, and who (GET /api/auth with its session cookie). */
async function signedInAs(res: unknown): Promise<{ status: number; location: string | null; username: string }> {
  expect(res).toBeInstanceOf(Response);
  const r = res as Response;
  const cookie = r.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  const who = await apiMe.loader(args(req("/api/auth", { cookie })));
  return { status: r.status, location: r.headers.get("Location"), username: (await who.json()).username };
}

/** An invitation made by `inviter` (a fresh user), and its link's token. */
async function invitation() {
  const inviter = await makeUser();
  const made = await createInvitation(inviter, {}, "http://localhost:3000");
  if (!made.ok) throw new Error("setup");
  return { inviter, made, token: made.url.split("/").pop()! };
}

/** An /api answer: status and JSON body. */
async function apiAnswer(res: Response) {
  return { status: res.status, body: await res.json() };
}

function kidForm(token?: string, image?: Buffer) {
  const fd = new FormData();
  for (const [k, v] of Object.entries({ name: "Elsa", year: "2019", month: "03", day: "14", relationship: "Mom" }))
    fd.set(k, v);
  if (token) fd.set(SUBMISSION_FIELD, token);
  if (image) fd.set("image", new Blob([new Uint8Array(image)], { type: "image/jpeg" }), "elsa.jpg");
  return fd;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("pages: a creating form sent twice with its token", () => {
  it("Add a kid: both answers redirect to My Kids, one kid (60 ms apart, and at once, with a photo)", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const post = (token?: string, image?: Buffer) =>
      answer(() => kidNew.action(args(req("/kids/add-new", { cookie, form: kidForm(token, image) }))));
    const token = newSubmissionToken();
    const first = await post(token);
    await pause(60);
    const second = await post(token);
    expect(first).toEqual({ status: 302, location: "/my-kids-list" });
    expect(second).toEqual(first);
    expect(await count("kids", { user_id: me.id })).toBe(1);

    const photo = await jpeg();
    const together = newSubmissionToken();
    const both = await Promise.all([post(together, photo), post(together, photo)]);
    expect(both).toEqual([first, first]);
    expect(await count("kids", { user_id: me.id })).toBe(2);
    expect(await count("images", { owner_id: me.id })).toBe(1);
    expect(listUploads().filter((f) => f.startsWith(".tmp"))).toEqual([]);

    // without the token (an old page, a script): two kids, as before
    await post();
    await post();
    expect(await count("kids", { user_id: me.id })).toBe(4);
  });

  it("Add a moment: both answers redirect to the same moment, one moment", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const kid = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("setup");
    const photo = await jpeg();
    const post = (token: string) => {
      const fd = new FormData();
      fd.set("title", "Beach day");
      fd.set("content", "Sand everywhere");
      fd.set(SUBMISSION_FIELD, token);
      fd.set("image", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "beach.jpg");
      const request = req(`/kids/${kid.kid.id}/dailyLogs/new`, { cookie, form: fd });
      return answer(() => momentNew.action(args(request, { kidId: String(kid.kid.id) })));
    };
    const token = newSubmissionToken();
    const first = await post(token);
    await pause(60);
    const second = await post(token);
    expect(first).toMatchObject({ status: 302, location: expect.stringMatching(/^\/dailyLogs\/\d+$/) });
    expect(second).toEqual(first);
    const together = newSubmissionToken();
    const [a, b] = await Promise.all([post(together), post(together)]);
    expect(a).toEqual(b);
    expect(a.location).not.toBe(first.location);
    expect(await count("daily_logs", { kid_id: kid.kid.id })).toBe(2);
    expect(await count("images", { owner_id: me.id })).toBe(2);
  });

  it("Register: a double click signs the new account in twice, never 'already in use'", async () => {
    const tag = Math.random().toString(36).slice(2, 10);
    const fields = {
      variant: "modal",
      email: `reg${tag}@example.com`,
      username: `reg${tag}`,
      first_name: "Reggie",
      last_name: "Ster",
      password: "secret12",
      confirmPassword: "secret12",
      redirectTo: "/friendships/new",
    };
    const post = async (token: string) => {
      try {
        return await signupPage.action(args(req("/signup", { form: { ...fields, [SUBMISSION_FIELD]: token } })));
      } catch (thrown) {
        return thrown;
      }
    };
    const token = newSubmissionToken();
    const signedIn = async (res: unknown) => {
      expect(res).toBeInstanceOf(Response);
      const r = res as Response;
      expect([r.status, r.headers.get("Location")]).toEqual([302, "/friendships/new"]);
      const who = await apiMe.loader(args(req("/api/auth", { cookie: r.headers.get("Set-Cookie")!.split(";")[0] })));
      return (await who.json()).username;
    };
    const first = await post(token);
    await pause(60);
    const second = await post(token);
    expect(await signedIn(first)).toBe(fields.username);
    expect(await signedIn(second)).toBe(fields.username);
    expect(await count("users", { email_normalized: fields.email })).toBe(1);
    // the second click sent after the browser kept the first answer's cookie: where the form
    // sends a new session (its redirectTo, else My Kids), not the landing page
    const cookie = (first as Response).headers.get("Set-Cookie")!.split(";")[0];
    const signedInPost = async (form: Record<string, string>) => {
      const res = await signupPage
        .action(args(req("/signup", { cookie, form: { ...form, [SUBMISSION_FIELD]: token } })))
        .catch((thrown: unknown) => thrown);
      expect(res).toBeInstanceOf(Response);
      return [(res as Response).status, (res as Response).headers.get("Location")];
    };
    expect(await signedInPost(fields)).toEqual([302, "/friendships/new"]);
    const { redirectTo: _, ...withoutRedirect } = fields;
    expect(await signedInPost(withoutRedirect)).toEqual([302, "/my-kids-list"]);
    expect(await count("users", { email_normalized: fields.email })).toBe(1);

    const other = { ...fields, email: `x${fields.email}`, username: `x${fields.username}` };
    const together = newSubmissionToken();
    const both = await Promise.all(
      [0, 1].map(async () => {
        try {
          return await signupPage.action(args(req("/signup", { form: { ...other, [SUBMISSION_FIELD]: together } })));
        } catch (thrown) {
          return thrown;
        }
      }),
    );
    for (const res of both) expect((res as Response).status).toBe(302);
    expect(await count("users", { email_normalized: other.email })).toBe(1);
  });

  it("Add friend (without JavaScript): both answers are the same redirect, one request; without a token the second is 'already exists'", async () => {
    const [me, you, them] = [await makeUser(), await makeUser(), await makeUser()];
    const cookie = await cookieFor(me);
    const post = (friendId: number, token?: string) =>
      answer(() =>
        friendSearch.action(
          args(
            req("/friendships/new?q=x", {
              cookie,
              form: { intent: "add", friendId: String(friendId), ...(token ? { [SUBMISSION_FIELD]: token } : {}) },
            }),
          ),
        ),
      );
    const token = newSubmissionToken();
    const first = await post(you.id, token);
    await pause(60);
    expect(first).toEqual({ status: 303, location: `/friendships/new?q=x&sent=${you.id}` });
    expect(await post(you.id, token)).toEqual(first);
    const together = newSubmissionToken();
    expect(await Promise.all([post(them.id, together), post(them.id, together)])).toEqual([
      { status: 303, location: `/friendships/new?q=x&sent=${them.id}` },
      { status: 303, location: `/friendships/new?q=x&sent=${them.id}` },
    ]);
    expect(await count("friendships", { user_id: me.id })).toBe(2);
    expect(await post(you.id)).toEqual({
      status: 400,
      data: { error: "Friendship already exists. Please try another name.", status: 400 },
    });
  });

  it("a comment (with and without JavaScript): the same answer twice, one comment", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const logId = await makeMoment(me.id);
    const post = (token: string, viaFetcher: boolean) =>
      answer(() =>
        momentSocial.action(
          args(
            req(`/dailyLogs/${logId}/social`, {
              cookie,
              form: {
                intent: "comment",
                comment: "So cute",
                returnTo: `/dailyLogs/${logId}`,
                [SUBMISSION_FIELD]: token,
                ...(viaFetcher ? { _fetcher: "1" } : {}),
              },
            }),
            { momentId: String(logId) },
          ),
        ),
      );
    const plain = newSubmissionToken();
    const first = await post(plain, false);
    await pause(60);
    expect(first).toMatchObject({
      status: 303,
      location: expect.stringMatching(new RegExp(`^/dailyLogs/${logId}\\?showComments=${logId}#comment-\\d+$`)),
    });
    expect(await post(plain, false)).toEqual(first);
    const fetched = newSubmissionToken();
    const [a, b] = await Promise.all([post(fetched, true), post(fetched, true)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: 200, data: { ok: true, intent: "comment", commentId: expect.any(Number) } });
    expect(await count("comments", { daily_log_id: logId })).toBe(2);
  });

  it("Create invitation link: both answers show the same link, one invitation, one email", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const email = `gran${me.id}@example.com`;
    const post = async (token: string, note = "For Gran") => {
      const res = (await friendsPage.action(
        args(
          req("/current/friends", {
            cookie,
            form: { intent: "invite", note, email, circle: "family", [SUBMISSION_FIELD]: token },
          }),
        ),
      )) as Response;
      return {
        status: res.status,
        location: res.headers.get("Location"),
        link: await readLinkFlash(
          new Request("http://x/", { headers: { Cookie: res.headers.get("Set-Cookie")!.split(";")[0]! } }),
        ),
      };
    };
    const token = newSubmissionToken();
    const first = await post(token);
    await pause(60);
    expect(first).toMatchObject({
      status: 303,
      location: "/current/friends#new-link",
      link: { kind: "invitation", url: expect.stringMatching(/\/invite\/[\w-]{43}$/), who: email },
    });
    expect(await post(token)).toEqual(first);
    expect(await count("invitations", { inviter_id: me.id })).toBe(1);
    expect(await count("mail_messages", { to_address: email })).toBe(1);
    const together = newSubmissionToken();
    const [a, b] = await Promise.all([post(together), post(together)]);
    expect(a).toEqual(b);
    expect(a.link!.url).not.toBe(first.link!.url);
    expect(await count("invitations", { inviter_id: me.id })).toBe(2);
    // the same token with another note (a form restored by Back and changed): a new invitation
    const changed = await post(token, "For Grandpa");
    expect(changed.link!.url).not.toBe(first.link!.url);
    expect(await count("invitations", { inviter_id: me.id })).toBe(3);
    expect(await count("mail_messages", { to_address: email })).toBe(3);
  });

  it("Invite as co-parent: both answers are the same redirect, one invitation; without a token the second is 'already invited'", async () => {
    const [me, friend, other] = [await makeUser(), await makeUser(), await makeUser()];
    await befriend(me.id, friend.id);
    await befriend(me.id, other.id);
    const cookie = await cookieFor(me);
    const kid = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("setup");
    const kidId = String(kid.kid.id);
    const post = (userId: number, token?: string) =>
      answer(() =>
        coParentsPage.action(
          args(
            req(`/kids/${kidId}/co-parents`, {
              cookie,
              form: { intent: "invite", userId: String(userId), ...(token ? { [SUBMISSION_FIELD]: token } : {}) },
            }),
            { kidId },
          ),
        ),
      );
    const token = newSubmissionToken();
    const first = await post(friend.id, token);
    await pause(60);
    expect(first).toEqual({ status: 303, location: `/kids/${kidId}/co-parents` });
    expect(await post(friend.id, token)).toEqual(first);
    const together = newSubmissionToken();
    expect(await Promise.all([post(other.id, together), post(other.id, together)])).toEqual([first, first]);
    expect(await count("co_parents", { kid_id: kid.kid.id })).toBe(2);
    expect(await post(friend.id)).toEqual({
      status: 400,
      data: { error: "This user is already a co-parent of this kid or has been invited" },
    });
  });

  it("Join by invitation (signed out): both answers sign the new account in, never 'already used'", async () => {
    const { inviter, token: link } = await invitation();
    const email = `join${link.slice(0, 8).toLowerCase()}@example.com`;
    const post = async (token: string, fields: Record<string, string>) => {
      try {
        return await invitePage.action(
          args(req(`/invite/${link}`, { form: { ...fields, [SUBMISSION_FIELD]: token } }), { token: link }),
        );
      } catch (thrown) {
        return thrown;
      }
    };
    // no password: the invitation link is what proves who it is
    const fields = { name: "Rosa Pérez", email, password: "" };
    const token = newSubmissionToken();
    const first = await signedInAs(await post(token, fields));
    await pause(60);
    expect(first).toMatchObject({
      status: 303,
      location: `/feed?welcome=${inviter.id}`,
      username: expect.stringMatching(/^rosa\.perez/),
    });
    expect(await signedInAs(await post(token, fields))).toEqual(first);
    expect(await count("users", { email_normalized: email })).toBe(1);
    // the repeat sent with the session the first answer set (the browser kept its cookie): done, not "already used"
    const session = ((await post(token, fields)) as Response).headers.get("Set-Cookie")!.split(";")[0]!;
    expect(
      await answer(() =>
        invitePage.action(
          args(req(`/invite/${link}`, { cookie: session, form: { ...fields, [SUBMISSION_FIELD]: token } }), {
            token: link,
          }),
        ),
      ),
    ).toEqual({
      status: 303,
      location: `/feed?welcome=${inviter.id}`,
    });
    // another token, or other content, after the link was used: the page that says it is used
    expect(await answer(() => post(newSubmissionToken(), fields) as Promise<unknown>)).toEqual({
      status: 303,
      location: `/invite/${link}`,
    });
    expect(await answer(() => post(token, { ...fields, name: "Someone Else" }) as Promise<unknown>)).toEqual({
      status: 303,
      location: `/invite/${link}`,
    });

    // with a password, at the same moment: one account, both signed in; the wrong password is not let in
    const second = await invitation();
    const withPassword = { name: "Tom Lee", email: `x${email}`, password: "secret12" };
    const together = newSubmissionToken();
    const both = await Promise.all(
      [0, 1].map(async () =>
        signedInAs(
          await invitePage.action(
            args(req(`/invite/${second.token}`, { form: { ...withPassword, [SUBMISSION_FIELD]: together } }), {
              token: second.token,
            }),
          ),
        ),
      ),
    );
    expect(both[1]).toEqual(both[0]);
    expect(both[0]).toMatchObject({ status: 303, location: `/feed?welcome=${second.inviter.id}` });
    expect(await count("users", { email_normalized: withPassword.email })).toBe(1);
    const wrong = await invitePage.action(
      args(
        req(`/invite/${second.token}`, {
          form: { ...withPassword, password: "other123", [SUBMISSION_FIELD]: together },
        }),
        { token: second.token },
      ),
    );
    expect([
      (wrong as Response).status,
      (wrong as Response).headers.get("Location"),
      (wrong as Response).headers.get("Set-Cookie"),
    ]).toEqual([303, `/invite/${second.token}`, null]);
  });

  it("Accept an invitation (signed in): both answers go to the feed, one friendship", async () => {
    const { inviter, token: link } = await invitation();
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const post = (token: string) =>
      answer(() =>
        invitePage.action(
          args(req(`/invite/${link}`, { cookie, form: { [SUBMISSION_FIELD]: token } }), { token: link }),
        ),
      );
    const token = newSubmissionToken();
    const first = await post(token);
    await pause(60);
    expect(first).toEqual({ status: 303, location: `/feed?welcome=${inviter.id}` });
    expect(await post(token)).toEqual(first);
    expect(await count("friendships", { user_id: inviter.id, friend_id: me.id })).toBe(1);
    // an invitation the viewer used is done for them, token or not; for anyone else it is used
    expect(await post("")).toEqual(first);
    const someoneElse = await cookieFor(await makeUser());
    expect(
      await answer(() =>
        invitePage.action(
          args(req(`/invite/${link}`, { cookie: someoneElse, form: { [SUBMISSION_FIELD]: token } }), { token: link }),
        ),
      ),
    ).toEqual({
      status: 303,
      location: `/invite/${link}`,
    });
    const other = await invitation();
    const together = newSubmissionToken();
    const both = await Promise.all(
      [0, 1].map(() =>
        answer(() =>
          invitePage.action(
            args(req(`/invite/${other.token}`, { cookie, form: { [SUBMISSION_FIELD]: together } }), {
              token: other.token,
            }),
          ),
        ),
      ),
    );
    const atOnce = { status: 303, location: `/feed?welcome=${other.inviter.id}` };
    expect(both).toEqual([atOnce, atOnce]);
  });
});

describe("/api creates with an Idempotency-Key header", () => {
  const withKey = (key?: string): Record<string, string> => (key ? { [IDEMPOTENCY_HEADER]: key } : {});

  it("POST /api/kids/new: the same 201 Kid twice, one kid; without the header two kids as before", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const post = async (key?: string) => {
      const fd = new FormData();
      for (const [k, v] of Object.entries({ name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }))
        fd.set(k, v);
      return apiAnswer(
        await apiKidsNew.action(args(req("/api/kids/new", { cookie, form: fd, headers: withKey(key) }))),
      );
    };
    const first = await post("kid-1");
    await pause(60);
    expect(first).toMatchObject({ status: 201, body: { name: "Elsa", user_id: me.id } });
    expect(await post("kid-1")).toEqual(first);
    expect(await post('"kid-1"')).toEqual(first); // a quoted (structured-field) key is the same key
    const [a, b] = await Promise.all([post("kid-2"), post("kid-2")]);
    expect(a).toEqual(b);
    expect(await count("kids", { user_id: me.id })).toBe(2);
    await post();
    await post();
    await post("a key with spaces is ignored");
    expect(await count("kids", { user_id: me.id })).toBe(5);
  });

  it("POST /api/kids/{id}/daily_logs/new: the same 201 DailyLog twice, one moment", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const kid = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("setup");
    const photo = await jpeg();
    const post = async (key: string) => {
      const fd = new FormData();
      fd.set("title", "Beach");
      fd.set("content", "Sand");
      fd.set("image", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "beach.jpg");
      const request = req(`/api/kids/${kid.kid.id}/daily_logs/new`, { cookie, form: fd, headers: withKey(key) });
      return apiAnswer(await apiMomentsNew.action(args(request, { kidId: String(kid.kid.id) })));
    };
    const [a, b] = await Promise.all([post("log-1"), post("log-1")]);
    expect(a).toMatchObject({ status: 201, body: { title: "Beach", kid_id: kid.kid.id } });
    expect(b).toEqual(a);
    await pause(60);
    expect(await post("log-1")).toEqual(a);
    expect(await count("daily_logs", { kid_id: kid.kid.id })).toBe(1);
  });

  it("POST /api/friendships/new: the same 201 Friendship twice instead of 400 'already exists'", async () => {
    const [me, you] = [await makeUser(), await makeUser()];
    const cookie = await cookieFor(me);
    const post = async (key?: string) =>
      apiAnswer(
        await apiFriendshipsNew.action(
          args(req("/api/friendships/new", { cookie, json: { friend_id: you.id }, headers: withKey(key) })),
        ),
      );
    const [a, b] = await Promise.all([post("f-1"), post("f-1")]);
    expect(a).toEqual({
      status: 201,
      body: { id: expect.any(Number), user_id: me.id, friend_id: you.id, status: "pending" },
    });
    expect(b).toEqual(a);
    expect(await post()).toEqual({
      status: 400,
      body: { errors: { message: "Friendship already exists. Please try another name." } },
    });
    expect(await count("friendships", { user_id: me.id })).toBe(1);
  });

  it("POST /api/comments/{id}/new-comment: the same 201 Comment twice, one comment", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const logId = await makeMoment(me.id);
    const post = async (key?: string) =>
      apiAnswer(
        await apiCommentsNew.action(
          args(
            req(`/api/comments/${logId}/new-comment`, { cookie, json: { comment: "Lovely" }, headers: withKey(key) }),
            { momentId: String(logId) },
          ),
        ),
      );
    const first = await post("c-1");
    await pause(60);
    expect(first).toMatchObject({ status: 201, body: { comment: "Lovely" } });
    expect(await post("c-1")).toEqual(first);
    await post();
    expect(await count("comments", { daily_log_id: logId })).toBe(2);
  });

  it("POST /api/auth/signup: the same User twice, each with a session; a wrong password with the key is the usual 401", async () => {
    const tag = Math.random().toString(36).slice(2, 10);
    const body = { email: `api${tag}@example.com`, username: `api${tag}`, password: "secret1" };
    const post = (key: string, password = body.password) =>
      apiSignup.action(args(req("/api/auth/signup", { json: { ...body, password }, headers: withKey(key) })));
    const [a, b] = await Promise.all([post("s-1"), post("s-1")]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(await b.json()).toEqual(await a.json());
    expect(b.headers.get("Set-Cookie")).toMatch(/HttpOnly/);
    const wrong = await post("s-1", "other12");
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      email: ["Email address is already in use."],
      username: ["Username is already in use."],
    });
    expect(await count("users", { email_normalized: body.email })).toBe(1);
  });
  it("POST /api/invites: the same 201 with the same link twice, one invitation", async () => {
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const post = async (key?: string) =>
      apiAnswer(
        await apiInvites.action(args(req("/api/invites", { cookie, json: { note: "Hi" }, headers: withKey(key) }))),
      );
    const [a, b] = await Promise.all([post("i-1"), post("i-1")]);
    expect(a).toMatchObject({
      status: 201,
      body: { id: expect.any(Number), url: expect.stringMatching(/\/invite\/[\w-]{43}$/) },
    });
    expect(b).toEqual(a);
    await pause(60);
    expect(await post("i-1")).toEqual(a);
    expect(await count("invitations", { inviter_id: me.id })).toBe(1);
    await post();
    expect(await count("invitations", { inviter_id: me.id })).toBe(2);
  });

  it("POST /api/kids/{id}/co_parents: the same 201 twice instead of 400 'already invited'", async () => {
    const [me, friend] = [await makeUser(), await makeUser()];
    await befriend(me.id, friend.id);
    const cookie = await cookieFor(me);
    const kid = await createKid(me.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("setup");
    const id = String(kid.kid.id);
    const post = async (key?: string) =>
      apiAnswer(
        await apiCoParents.action(
          args(req(`/api/kids/${id}/co_parents`, { cookie, json: { user_id: friend.id }, headers: withKey(key) }), {
            id,
          }),
        ),
      );
    const [a, b] = await Promise.all([post("cp-1"), post("cp-1")]);
    expect(a).toEqual({
      status: 201,
      body: { id: expect.any(Number), kid_id: kid.kid.id, user_id: friend.id, status: "pending" },
    });
    expect(b).toEqual(a);
    await pause(60);
    expect(await post("cp-1")).toEqual(a);
    expect(await post()).toEqual({
      status: 400,
      body: { errors: { message: "This user is already a co-parent of this kid or has been invited" } },
    });
    expect(await count("co_parents", { kid_id: kid.kid.id })).toBe(1);
  });
});
