import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { addComment } from "~/models/comments.server";
import { saveEmailPreferences, DEFAULT_PREFERENCES, type EmailPreferences } from "~/models/email-preferences.server";
import { createMoment, deleteMoment, updateMoment } from "~/models/moment-changes.server";
import { listNotifications } from "~/models/notifications.server";
import { jpegUpload } from "~/models/kids-test-helpers.server";
import { unsubscribeUrl } from "./messages.server";
import { sendDueMail } from "./sender.server";
import { testSmtpForFile } from "../../tests/smtp-server";
import { makeUser } from "../../tests/helpers";
import {
  fileFriend,
  insertBlock,
  insertCoParent,
  insertFriendship,
  insertKid,
  insertMoment,
} from "../../tests/unit/friends-fixtures";

// New moments and right-away mails (docs/decisions/0062-new-moments-and-notification-choices.md)
// on the real database, delivered to a real SMTP server on loopback: who is told of a new moment
// (the access module's audience: not the poster, "Only us" the parents only, no one in a block
// with the poster), one mail per moment however many photos, only to those who chose "right
// away", with the one-click unsubscribe; comments and replies the same way; and a notification
// that no longer shows once its moment is out of the reader's sight or gone.

const testSmtp = testSmtpForFile();

const named = (first: string) => makeUser({ first_name: first, last_name: "Test" });
const texts = async (userId: number) => (await listNotifications(userId)).notifications.map((n) => n.text);
const choose = (userId: number, choices: Partial<EmailPreferences>) =>
  saveEmailPreferences(userId, { ...DEFAULT_PREFERENCES, moments: "off", comments: "off", replies: "off", ...choices });
const queuedTo = (email: string) => db()("mail_messages").where("to_address", email).select("kind", "subject");

/** A family: Pia owns Mila, Cleo co-parents her; Gloria is Family, Fred a Friend, Sam a stranger. */
async function family() {
  const [pia, cleo, gloria, fred, sam] = [
    await named("Pia"),
    await named("Cleo"),
    await named("Gloria"),
    await named("Fred"),
    await named("Sam"),
  ];
  const kid = await insertKid(pia, "Mila");
  await insertFriendship(pia, cleo, "accepted");
  await insertCoParent(kid, cleo, "accepted");
  await fileFriend(await insertFriendship(pia, gloria, "accepted"), pia, "family");
  await fileFriend(await insertFriendship(pia, fred, "accepted"), pia, "friends");
  return { pia, cleo, gloria, fred, sam, kid };
}

/** `count` photos, as a moment form would hand them over. */
async function photos(count: number) {
  return {
    added: await Promise.all(
      Array.from({ length: count }, async (_, i) => ({ file: await jpegUpload(), alt: `Photo ${i + 1}`, slot: i + 1 })),
    ),
  };
}

describe("a new moment", () => {
  it("tells everyone who may see it in the app, but the poster; one mail for ten photos to whoever chose right away", async () => {
    const { pia, cleo, gloria, fred, sam, kid } = await family();
    const dora = await named("Dora");
    const bea = await named("Bea");
    await fileFriend(await insertFriendship(pia, dora, "accepted"), pia, "family");
    await fileFriend(await insertFriendship(pia, bea, "accepted"), pia, "family");
    await insertBlock(bea, cleo); // Bea blocked the poster: nothing of Cleo's reaches her
    for (const u of [gloria, fred, sam, bea]) await choose(u.id, { moments: "now" });
    await choose(dora.id, { moments: "digest" });

    const before = testSmtp().received.length;
    const made = await createMoment(
      cleo.id,
      kid,
      { title: "Ten at the zoo", content: "", audience: "family" },
      await photos(10),
    );
    if (!made.ok) throw new Error(made.kind);
    const id = made.moment.id;

    const told = `Cleo Test shared a new moment of Mila: “Ten at the zoo”`;
    for (const u of [pia, gloria, dora]) expect(await texts(u.id)).toEqual([told]);
    for (const u of [cleo, fred, sam, bea]) expect(await texts(u.id)).toEqual([]);
    expect((await listNotifications(gloria.id)).notifications[0]).toMatchObject({
      kind: "moment",
      href: `/dailyLogs/${id}`,
      actors: [{ id: cleo.id, name: "Cleo Test" }],
    });

    // one mail, to the one who may see it and chose right away
    expect(await queuedTo(gloria.email)).toEqual([{ kind: "news-moment", subject: told }]);
    for (const u of [pia, cleo, dora, fred, sam, bea]) expect(await queuedTo(u.email)).toEqual([]);
    expect(await sendDueMail()).toMatchObject({ sent: 1, failed: 0 });
    const [mail] = (await testSmtp().waitForCount(before + 1)).slice(before);
    expect(mail!.envelopeTo).toEqual([gloria.email]);
    expect(mail!.parsed.subject).toBe(told);
    expect(mail!.parsed.text).toContain(`/dailyLogs/${id}`);
    expect(String(mail!.parsed.html)).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const headers = mail!.raw.split("\r\n\r\n")[0]!.replace(/\r\n(?=[ \t])/g, "");
    const unsubscribe = /^List-Unsubscribe: <([^>]+)>\r?$/m.exec(headers)?.[1];
    expect(unsubscribe).toMatch(new RegExp(`/email/unsubscribe\\?u=${gloria.id}&s=`));
    expect(unsubscribe!.slice(unsubscribe!.indexOf("/email/"))).toBe(unsubscribeUrl("", gloria.id));
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    expect(mail!.parsed.text).toContain(`Unsubscribe: ${unsubscribe}`);

    // the parents make it "Only us": Gloria's notification no longer shows; deleted: Pia's neither
    expect((await updateMoment(pia.id, id, { title: "Ten at the zoo", content: "", audience: "us" }, null)).ok).toBe(
      true,
    );
    expect(await texts(gloria.id)).toEqual([]);
    expect(await texts(pia.id)).toEqual([told]);
    expect((await deleteMoment(pia.id, id)).ok).toBe(true);
    expect(await texts(pia.id)).toEqual([]);
  });

  it("“Only us” tells the kid's other parent and nobody else", async () => {
    const { pia, cleo, gloria, fred, kid } = await family();
    for (const u of [cleo, gloria, fred]) await choose(u.id, { moments: "now" });
    const made = await createMoment(pia.id, kid, { title: "Just us", content: "", audience: "us" }, await jpegUpload());
    if (!made.ok) throw new Error(made.kind);
    expect(await texts(cleo.id)).toEqual(["Pia Test shared a new moment of Mila: “Just us”"]);
    for (const u of [pia, gloria, fred]) expect(await texts(u.id)).toEqual([]);
    expect(await queuedTo(cleo.email)).toHaveLength(1);
    for (const u of [gloria, fred]) expect(await queuedTo(u.email)).toEqual([]);
  });
});

describe("comments and replies right away", () => {
  it("the owner hears of a comment, earlier commenters of a reply, each as they chose and only while they may see the moment", async () => {
    const { pia, gloria, fred, kid } = await family();
    const moment = await insertMoment(kid, "Beach day");
    await db()("daily_logs").where("id", moment).update({ audience: "everyone" });
    const dora = await named("Dora");
    await insertFriendship(pia, dora, "accepted");
    await choose(pia.id, { comments: "now" });
    await choose(fred.id, { replies: "now" });
    await choose(dora.id, { replies: "digest" });
    expect((await addComment(fred.id, moment, "First!")).ok).toBe(true);
    expect((await addComment(dora.id, moment, "Second")).ok).toBe(true);
    expect(await queuedTo(pia.email)).toEqual([
      { kind: "news-comment", subject: "Fred Test commented on “Beach day”" },
      { kind: "news-comment", subject: "Dora Test commented on “Beach day”" },
    ]);
    expect(await queuedTo(fred.email)).toEqual([
      { kind: "news-reply", subject: "Dora Test also commented on “Beach day”" },
    ]);
    expect(await queuedTo(dora.email)).toEqual([]);
    const text = (await db()("mail_messages").where("to_address", fred.email).first("text_body")).text_body;
    expect(text).toContain("Dora Test wrote:\n  Second");

    // Family only now: Fred (a Friend) may not see it any more, so he hears of no more replies
    await db()("daily_logs").where("id", moment).update({ audience: "family" });
    await choose(gloria.id, { replies: "now" });
    expect((await addComment(gloria.id, moment, "Third")).ok).toBe(true);
    expect(await queuedTo(fred.email)).toHaveLength(1);
    expect(await queuedTo(pia.email)).toHaveLength(3);
  });
});
