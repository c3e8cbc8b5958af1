import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { today } from "~/lib/dates.server";
import { SignupSchema } from "~/forms/auth";
import { profileSchema } from "~/forms/account";
import { kidApiSchema, kidFormSchema } from "~/forms/kid";
import { momentFormSchema } from "~/forms/moment";
import { InviteSchema, JoinSchema } from "~/forms/invite";
import { IMAGE_PRESENT } from "~/images/limits";
import { createInvitation } from "~/models/invitations.server";
import { createKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { jpegUpload } from "~/models/kids-test-helpers.server";
import { digestMail } from "~/mail/digest-mail.server";
import { newsMail } from "~/mail/news.server";
import * as signup from "~/routes/api/auth-signup";
import * as usersCurrent from "~/routes/api/users-current";
import * as kidsNew from "~/routes/api/kids-new";
import * as commentsNew from "~/routes/api/comments-new";
import * as momentsNew from "~/routes/api/kids-daily-logs-new";
import * as invite from "~/routes/invite";
import { args, cookieFor, makeUser, req } from "../helpers";

// Names, usernames, kid names, titles and labels are one line: CR, LF, NUL and every other control
// character is refused by the forms' schemas (pages and /api share them), while a moment's text
// keeps its line breaks; and no name (not even one saved before the rule) can put a line of its own
// into a mail's text part, such as a forged "Bcc: …".

const BAD = [
  "Ana\r\nBcc: victim@example.com",
  "Ana\nBen",
  "Ana\u0000x",
  "Ana\u001b[31m",
  "Ana\u0085x",
  "Ana\u2028Ben",
  "Ana\tBen",
];
const errorsOf = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => `${String(i.path[0])}: ${i.message}`);

/** No line of a mail's text starts with a header name at the margin. */
const headerLike = (text: string) =>
  text.split(/\r?\n/).filter((l) => /^(bcc|cc|to|from|subject|reply-to)\s*:/i.test(l));

describe("one-line text", () => {
  it("every name, username, kid name, title and label field refuses control characters; moment text keeps its lines", () => {
    const now = today();
    for (const bad of BAD) {
      const sign = SignupSchema.safeParse({
        first_name: bad,
        last_name: bad,
        username: `${bad}x`,
        email: "a@example.com",
        password: "secret1",
        confirmPassword: "secret1",
      });
      expect(errorsOf(sign)).toEqual([
        "first_name: First name cannot contain line breaks or control characters.",
        "last_name: Last name cannot contain line breaks or control characters.",
        "username: Username cannot contain line breaks or control characters.",
      ]);
      expect(
        errorsOf(
          profileSchema().safeParse({ first_name: bad, last_name: "Lopez", username: "maria", email: "m@example.com" }),
        ),
      ).toEqual(["first_name: First name cannot contain line breaks or control characters."]);
      const kid = { name: bad, year: "2020", month: "01", day: "02", relationship: "Mom" };
      expect(errorsOf(kidFormSchema("add", now).safeParse(kid))).toEqual([
        "name: Name cannot contain line breaks or control characters.",
      ]);
      expect(errorsOf(kidApiSchema("update", now).safeParse({ ...kid, birth_date: "2020-01-02" }))).toEqual([
        "name: Name cannot contain line breaks or control characters.",
      ]);
      const moment = {
        title: bad,
        content: "Line one\nLine two",
        image: IMAGE_PRESENT,
        milestone: "Other",
        milestone_label: bad,
      };
      expect(errorsOf(momentFormSchema("add").safeParse(moment))).toEqual([
        "title: Title cannot contain line breaks or control characters.",
        "milestone_label: Milestone label cannot contain line breaks or control characters.",
      ]);
      expect(errorsOf(JoinSchema.safeParse({ name: bad, email: "rose@example.com" }))).toEqual([
        "name: Your name cannot contain line breaks or control characters.",
      ]);
    }
    // emails too (they become a mail's To), with their own message
    expect(
      errorsOf(
        SignupSchema.safeParse({
          first_name: "Ana",
          last_name: "Lee",
          username: "analee",
          email: "a\u0000b@example.com",
          password: "secret1",
          confirmPassword: "secret1",
        }),
      ),
    ).toEqual(["email: Please provide a valid email."]);
    // what stays allowed: a moment's text with its lines, names with accents, emoji and joiners
    const ok = momentFormSchema("add").safeParse({
      title: "Zoë’s first 🏖️ day",
      content: "Line one\r\nLine two\n\n– the end",
      image: IMAGE_PRESENT,
    });
    expect(ok.success && ok.data.content).toBe("Line one\r\nLine two\n\n– the end");
    expect(
      kidFormSchema("add", now).safeParse({
        name: "José 👨‍👩‍👧",
        year: "2020",
        month: "01",
        day: "02",
        relationship: "Mom",
      }).success,
    ).toBe(true);
  });

  it("the API and the pages refuse it (400; sign-up 401 as its contract says) and write nothing: sign-up, profile, a kid, an alt text, joining by an invitation", async () => {
    const count = async () => Number((await db()("users").count({ n: "*" }))[0]!.n);
    const users = await count();
    const res = await signup.action(
      args(
        req("/api/auth/signup", {
          json: {
            email: "crlf@example.com",
            username: "crlfuser",
            first_name: "Eve\r\nBcc: x@example.com",
            last_name: "Smith",
            password: "secret1",
          },
        }),
      ),
    );
    expect([res.status, await res.json()]).toEqual([
      401,
      { first_name: ["First name cannot contain line breaks or control characters."] },
    ]);
    expect(await count()).toBe(users);

    const me = await makeUser({ first_name: "Maria", last_name: "Lopez" });
    const cookie = await cookieFor(me);
    const put = await usersCurrent.action(
      args(
        req("/api/users/current", {
          method: "PUT",
          cookie,
          json: { first_name: "Maria", last_name: "Lopez\u0000", username: me.username, email: me.email },
        }),
      ),
    );
    expect([put.status, await put.json()]).toEqual([
      400,
      { errors: { last_name: ["Last name cannot contain line breaks or control characters."] } },
    ]);
    expect((await db()("users").where("id", me.id).first()).last_name).toBe("Lopez");

    const kid = await kidsNew.action(
      args(
        req("/api/kids/new", {
          cookie,
          json: { name: "Mila\nBcc: x@example.com", birth_date: "2021-03-04", relationship: "Mom" },
        }),
      ),
    );
    expect([kid.status, await kid.json()]).toEqual([
      400,
      { errors: { name: ["Name cannot contain line breaks or control characters."] } },
    ]);
    expect(await db()("kids").where("user_id", me.id)).toEqual([]);

    // a photo's alt text (checked by the moment model, for pages and /api)
    const elsa = await createKid(me.id, { name: "Elsa", birth_date: "2021-03-04", relationship: "Mom" }, null);
    if (!elsa.ok) throw new Error("setup");
    const file = await jpegUpload();
    const moment = await createMoment(
      me.id,
      elsa.kid.id,
      { title: "Snow", content: "Flakes" },
      { added: [{ file, alt: "Elsa\nBcc: x@example.com", slot: 1 }] },
    );
    await file.discard();
    expect(moment).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { alt_1: ["Alt text of photo 1 cannot contain line breaks or control characters."] },
    });
    expect(await db()("daily_logs").where("kid_id", elsa.kid.id)).toEqual([]);

    const made = await createInvitation(me, {}, "https://moments.test");
    if (!made.ok) throw new Error("refused");
    const token = made.url.split("/").pop()!;
    const join = (await invite.action(
      args(req(`/invite/${token}`, { form: { name: "Rose\r\nBcc: x@example.com", email: "rose@example.com" } }), {
        token,
      }),
    )) as { init: { status: number }; data: { result: { error: Record<string, string[]> } } };
    expect(join.init.status).toBe(400);
    expect(join.data.result.error.name).toEqual(["Your name cannot contain line breaks or control characters."]);
    expect(await db()("users").where("email", "rose@example.com").first()).toBeUndefined();
  });

  it("a moment's text, a comment and a note keep their line breaks but refuse NUL and other control characters (PostgreSQL refuses NUL: never a 500)", async () => {
    expect(errorsOf(InviteSchema.safeParse({ note: "Hello\nGrandma\u0000" }))).toEqual([
      "note: The note cannot contain control characters.",
    ]);
    expect(InviteSchema.safeParse({ note: "Hello\r\nGrandma\tx" }).success).toBe(true);
    const me = await makeUser();
    const cookie = await cookieFor(me);
    const elsa = await createKid(me.id, { name: "Elsa", birth_date: "2021-03-04", relationship: "Mom" }, null);
    if (!elsa.ok) throw new Error("setup");
    const kidId = String(elsa.kid.id);
    const form = (content: string) => {
      const fd = new FormData();
      fd.set("title", "Snow");
      fd.set("content", content);
      return fd;
    };
    const bad = await momentsNew.action(
      args(req(`/api/kids/${kidId}/daily_logs/new`, { cookie, form: form("Eleven\u0000flakes") }), { kidId }),
    );
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { errors: { content: ["Content cannot contain control characters."], image: ["Image is required"] } },
    ]);
    const file = await jpegUpload();
    const made = await createMoment(
      me.id,
      elsa.kid.id,
      { title: "Snow", content: "Eleven\nflakes" },
      { added: [{ file, alt: "", slot: 1 }] },
    );
    await file.discard();
    if (!made.ok) throw new Error("setup");
    const momentId = String(made.moment.id);
    const comment = await commentsNew.action(
      args(req(`/api/comments/${momentId}/new-comment`, { cookie, json: { comment: "So\u0000cute" } }), {
        momentId,
      }),
    );
    expect(comment.status).toBe(400);
    expect(JSON.stringify(await comment.json())).toContain("Comment cannot contain control characters.");
    const fine = await commentsNew.action(
      args(req(`/api/comments/${momentId}/new-comment`, { cookie, json: { comment: "So\ncute" } }), { momentId }),
    );
    expect(fine.status).toBe(201);
    expect((await db()("comments").where("daily_log_id", made.moment.id)).map((c) => c.comment)).toEqual(["So\ncute"]);
  });

  it("no name, title or note puts a header-like line into a mail's text, even from rows saved before the rule", async () => {
    // rows as an older version could have saved them (the forms refuse such names now)
    const inviter = await makeUser({ first_name: "Eve\r\nBcc: victim@example.com", last_name: "\u0007Smith" });
    const made = await createInvitation(
      inviter,
      { email: "grandma@example.com", note: "Hello!\nBcc: victim@example.com\r\nSee you" },
      "https://moments.test",
    );
    if (!made.ok) throw new Error("refused");
    const mail = await db()("mail_messages").where("to_address", "grandma@example.com").first();
    expect(headerLike(mail.text_body)).toEqual([]);
    expect(mail.text_body).toContain("Eve Bcc: victim@example.com  Smith would like to share");
    expect(mail.text_body).toContain("  Hello!\n  Bcc: victim@example.com\n  See you");
    expect(mail.subject).not.toMatch(/[\r\n]/);

    const digest = await digestMail(
      { id: inviter.id, email: "eve@example.com" },
      {
        moments: [
          {
            id: 1,
            title: "Beach\nBcc: a@example.com",
            kidName: "Mila\r\nCc: b@example.com",
            kidAge: "2 years",
            posterName: "Ana\nTo: c@example.com",
            userIds: [],
            photo: null,
          },
        ],
        comments: [
          {
            momentId: 1,
            momentTitle: "Beach\nFrom: d@example.com",
            authorId: 2,
            authorName: "Ben\nSubject: hi",
            text: "Lovely!\nBcc: e@example.com",
          },
        ],
        replies: [],
      },
      "https://moments.test",
      "daily",
    );
    expect(headerLike(digest.text)).toEqual([]);
    expect(digest.text).toContain('- Ben Subject: hi on "Beach From: d@example.com": Lovely!\n    Bcc: e@example.com');

    const right = newsMail(
      { id: inviter.id, email: "eve@example.com" },
      { kind: "comment", momentId: 1, actorId: 2, text: "Lovely!\nBcc: e@example.com" },
      { title: "Beach\nFrom: d@example.com", kidName: "Mila\r\nCc: b@example.com", actorName: "Ben\nSubject: hi" },
      "https://moments.test",
    );
    expect(headerLike(right.text)).toEqual([]);
    expect(right.subject).not.toMatch(/[\r\n]/);
    expect(right.text).toContain("Ben Subject: hi wrote:\n  Lovely!\n  Bcc: e@example.com");
  });
});
