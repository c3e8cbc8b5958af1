import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { withNewImage } from "~/images/storage.server";
import { createInvitation } from "~/models/invitations.server";
import { joinByInvitation } from "~/models/invitation-join.server";
import { createUser } from "~/models/users.server";
import {
  DEFAULT_PREFERENCES,
  getEmailPreferences,
  nextDigestSlot,
  saveEmailPreferences,
} from "~/models/email-preferences.server";
import * as settingsPage from "~/routes/settings-email";
import * as unsubscribePage from "~/routes/email-unsubscribe";
import * as preferencesApi from "~/routes/api/users-current-email-preferences";
import { digestContent, sendDueDigests } from "./digest.server";
import { unsubscribeUrl } from "./messages.server";
import { sendDueMail } from "./sender.server";
import { testSmtpForFile } from "../../tests/smtp-server";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { everything, makeDue } from "../../tests/kit/digests";
import {
  insertCoParent,
  insertComment,
  insertFriendship,
  insertKid,
  insertMoment,
} from "../../tests/unit/friends-fixtures";

// Digests on the real database and photo store (disk, and S3 in the s3 project), delivered to a
// real SMTP server on loopback: content through the access module, an inline thumbnail without
// metadata, one-click unsubscribe, nothing new → nothing sent, two schedulers on one database.

const ORIGIN = "https://moments.test";
const testSmtp = testSmtpForFile();

/** A moment photo stored through the upload pipeline from a JPEG that carries GPS and camera EXIF. */
async function photoWithGps(ownerId: number): Promise<number> {
  const bytes = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#3a7" } })
    .withExif({
      IFD0: { Make: "PhoneMaker", Model: "Phone 15" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 2400/100",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 300/100",
      },
    })
    .jpeg()
    .toBuffer();
  const stored = await withNewImage(await uploadFromBuffer(bytes), { kind: "moment", ownerId }, async () => {});
  if (!stored.ok) throw new Error(stored.message);
  return stored.imageId;
}

describe("digest scheduling", () => {
  it("the next slot: daily at the hour, weekly on Sundays, in the configured time zone", () => {
    const now = new Date("2026-11-25T09:30:00.000Z"); // a Wednesday
    expect(nextDigestSlot(now, 8, "daily", "UTC").toISOString()).toBe("2026-11-26T08:00:00.000Z");
    expect(nextDigestSlot(now, 10, "daily", "UTC").toISOString()).toBe("2026-11-25T10:00:00.000Z");
    expect(nextDigestSlot(now, 8, "weekly", "UTC").toISOString()).toBe("2026-11-29T08:00:00.000Z");
    expect(nextDigestSlot(now, 8, "daily", "Europe/Berlin").toISOString()).toBe("2026-11-26T07:00:00.000Z");
    expect(nextDigestSlot(new Date("2026-07-01T12:00:00Z"), 8, "daily", "America/New_York").toISOString()).toBe(
      "2026-07-02T12:00:00.000Z",
    );
  });

  it("a new account, invited or signed up, gets the defaults: new moments and replies daily, comments right away; none without a row", async () => {
    const parent = await makeUser();
    const made = await createInvitation(parent, {}, ORIGIN);
    if (!made.ok) throw new Error("refused");
    const joined = await joinByInvitation(
      made.url.split("/").pop(),
      { name: "Opa Karl", email: "karl@example.com" },
      ORIGIN,
      { address: "192.0.2.1" },
    );
    if (!joined.ok || joined.outcome !== "joined") throw new Error("not joined");
    expect(await getEmailPreferences(joined.user.id)).toEqual({
      digest: "daily",
      hour: 8,
      moments: "digest",
      comments: "now",
      replies: "digest",
    });
    expect(DEFAULT_PREFERENCES).toEqual(await getEmailPreferences(joined.user.id));
    const signedUp = await createUser({
      email: "nina@example.com",
      username: "nina",
      first_name: "Nina",
      last_name: "Berg",
      password: "a long enough password",
    });
    if (!signedUp.ok) throw new Error("refused");
    expect(await getEmailPreferences(signedUp.user.id)).toEqual(DEFAULT_PREFERENCES);
    // made by the test kit, not by a sign-up: no row, no mail
    expect(await getEmailPreferences(parent.id)).toMatchObject({ moments: "off", comments: "off", replies: "off" });
  });
});

describe("a digest", () => {
  it("lists the new moments the reader may see and comments on their own moments; an inline thumbnail without metadata; unsubscribe headers", async () => {
    const parent = await makeUser({ first_name: "Pia", last_name: "Lind" });
    const reader = await makeUser({ first_name: "Rosa", last_name: "Alt" });
    const stranger = await makeUser();
    await insertFriendship(parent, reader, "accepted");
    await saveEmailPreferences(reader.id, everything());
    await makeDue(reader.id, new Date(Date.now() - 60_000).toISOString());
    const kid = await insertKid(parent, "Mila");
    const moment = await insertMoment(kid, "Beach day", await photoWithGps(parent.id));
    await insertMoment(await insertKid(stranger, "Hidden"), "Not for Rosa");
    const own = await insertMoment(await insertKid(reader, "Rosa's own"), "My own moment");
    await insertComment(own, parent, "Lovely!");
    await insertComment(own, reader, "Thanks"); // her own comment is not news to her

    const before = testSmtp().received.length;
    expect(await sendDueDigests(new Date(), ORIGIN)).toBe(1);
    expect(await sendDueMail()).toMatchObject({ sent: 1 });
    const [mail] = (await testSmtp().waitForCount(before + 1)).slice(before);
    const parsed = mail!.parsed;
    expect(parsed.subject).toBe("Your daily Sweet Moments: 1 new moment, 1 comment");
    expect(mail!.envelopeTo).toEqual([reader.email]);
    expect(parsed.text).toContain("- Beach day (Mila, ");
    expect(parsed.text).toContain("shared by Pia Lind)");
    expect(parsed.text).toContain(`${ORIGIN}/dailyLogs/${moment}`);
    expect(parsed.text).toContain('- Pia Lind on "My own moment": Lovely!');
    expect(parsed.text).not.toContain("Not for Rosa");
    expect(parsed.text).not.toContain("Thanks");
    // the HTML: headings, a list, the thumbnail inline by cid with alt text, no URL of a photo
    const html = String(parsed.html);
    expect(html).toContain("<h2");
    expect(html).toContain(`alt="Photo: Beach day"`);
    expect(html).toMatch(/src="cid:moment-\d+@sweet-moments"/);
    expect(html).not.toContain("/images/");
    expect(parsed.attachments).toHaveLength(1);
    const [thumb] = parsed.attachments;
    expect(thumb!.contentType).toBe("image/jpeg");
    expect(thumb!.contentDisposition).toBe("inline");
    expect(html).toContain(`cid:${thumb!.contentId?.replace(/[<>]/g, "")}`);
    const meta = await sharp(thumb!.content).metadata();
    // twice the size it shows at, in its own shape (640×480): 320×240 shown as 160×120
    expect([meta.width, meta.height]).toEqual([320, 240]);
    expect(html).toContain('width="160" height="120"');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(meta.exif).toBeUndefined();
    expect(thumb!.content.toString("latin1")).not.toContain("Phone 15");
    // one-click unsubscribe
    const unsubscribe = unsubscribeUrl(ORIGIN, reader.id);
    const headers = mail!.raw.split("\r\n\r\n")[0]!.replace(/\r\n(?=[ \t])/g, ""); // unfolded
    expect(headers).toContain(`List-Unsubscribe: <${unsubscribe}>`);
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);

    // nothing new since: nothing is sent
    await makeDue(reader.id);
    expect(await sendDueDigests(new Date(), ORIGIN)).toBe(0);
    expect(
      Date.parse((await db()("email_preferences").where("user_id", reader.id).first()).next_digest_at),
    ).toBeGreaterThan(Date.now());
  });

  it("never lists a moment the reader can no longer see", async () => {
    const parent = await makeUser();
    const reader = await makeUser();
    const friendship = await insertFriendship(parent, reader, "accepted");
    await saveEmailPreferences(reader.id, everything("weekly"));
    const since = new Date(Date.now() - 60_000).toISOString();
    await insertMoment(await insertKid(parent), "Was shared");
    expect((await digestContent(reader.id, since, new Date().toISOString())).moments.map((m) => m.title)).toEqual([
      "Was shared",
    ]);
    await db()("friendships").where("id", friendship).delete();
    expect((await digestContent(reader.id, since, new Date().toISOString())).moments).toEqual([]);
  });

  it("names who posted (a co-parent), by name; only what was chosen for it; only comments: no “0 new moments”", async () => {
    const owner = await makeUser({ first_name: "Pia", last_name: "Lind", username: "pia_l" });
    const partner = await makeUser({ first_name: "Cleo", last_name: "Lind", username: "cleo_l" });
    const reader = await makeUser({ first_name: "Rosa", last_name: "Alt" });
    const other = await makeUser({ first_name: "Ole", last_name: "Berg", username: "ole_b" });
    await insertFriendship(owner, reader, "accepted");
    await insertFriendship(owner, other, "accepted");
    const kid = await insertKid(owner, "Mila");
    await insertCoParent(kid, partner, "accepted");
    const since = new Date(Date.now() - 60_000).toISOString();
    const moment = await insertMoment(kid, "Zoo day");
    await db()("daily_logs").where("id", moment).update({ posted_by: partner.id });
    const own = await insertMoment(await insertKid(reader, "Rosa's own"), "My own moment");
    await insertComment(own, owner, "Lovely!");
    await insertComment(moment, reader, "So sweet");
    await insertComment(moment, other, "Agreed");

    const all = await digestContent(reader.id, since, new Date().toISOString());
    expect(all.moments.map((m) => m.posterName)).toEqual(["Cleo Lind"]);
    expect(all.comments.map((c) => c.authorName)).toEqual(["Pia Lind"]);
    expect(all.replies.map((c) => [c.authorName, c.text])).toEqual([["Ole Berg", "Agreed"]]);

    // new moments right away (not in the digest), comments and replies in it
    await saveEmailPreferences(reader.id, { ...everything(), moments: "now" });
    await makeDue(reader.id, since);
    const before = testSmtp().received.length;
    expect(await sendDueDigests(new Date(), ORIGIN)).toBe(1);
    expect(await sendDueMail()).toMatchObject({ sent: 1 });
    const [mail] = (await testSmtp().waitForCount(before + 1)).slice(before);
    expect(mail!.parsed.subject).toBe("Your daily Sweet Moments: 1 comment, 1 reply");
    expect(mail!.parsed.text).not.toContain("Zoo day (");
    expect(mail!.parsed.text).toContain('Replies where you commented\n- Ole Berg on "Zoo day": Agreed');
    expect(String(mail!.parsed.html)).not.toMatch(/pia_l|cleo_l|ole_b|0 new/);

    // the moment in the digest names its poster, the co-parent, never the owner's username
    await saveEmailPreferences(reader.id, { ...everything(), comments: "off", replies: "off" });
    await makeDue(reader.id, since);
    expect(await sendDueDigests(new Date(), ORIGIN)).toBe(1);
    expect(await sendDueMail()).toMatchObject({ sent: 1 });
    const [second] = (await testSmtp().waitForCount(before + 2)).slice(before + 1);
    expect(second!.parsed.subject).toBe("Your daily Sweet Moments: 1 new moment");
    expect(second!.parsed.text).toContain("- Zoo day (Mila, ");
    expect(second!.parsed.text).toContain("shared by Cleo Lind)");

    // every kind off or right away: no digest is due at all
    await saveEmailPreferences(reader.id, { ...everything(), moments: "now", comments: "off", replies: "now" });
    await makeDue(reader.id, since);
    expect(await sendDueDigests(new Date(), ORIGIN)).toBe(0);
  });

  it("two schedulers on one database queue each due digest once", async () => {
    const parent = await makeUser();
    const readers = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const r of readers) {
      await insertFriendship(parent, r, "accepted");
      await saveEmailPreferences(r.id, everything());
      await makeDue(r.id, since);
    }
    await insertMoment(await insertKid(parent), "For everyone");
    const [a, b] = await Promise.all([sendDueDigests(new Date(), ORIGIN), sendDueDigests(new Date(), ORIGIN)]);
    expect(a + b).toBe(readers.length);
    const queued = await db()("mail_messages")
      .where("kind", "digest")
      .whereIn(
        "to_address",
        readers.map((r) => r.email),
      );
    expect(queued.map((m) => m.to_address).sort()).toEqual(readers.map((r) => r.email).sort());
  });
});

describe("the settings page and unsubscribing", () => {
  it("/settings/email saves the choice and the hour; a bad choice is a form error", async () => {
    const user = await makeUser();
    const cookie = await cookieFor(user);
    expect(await settingsPage.loader(args(req("/settings/email", { cookie })))).toMatchObject({
      prefs: { digest: "daily", hour: 8, moments: "off", comments: "off", replies: "off" },
    });
    const chosen = { moments: "now", comments: "digest", replies: "off", digest: "weekly" } as const;
    const saved = (await settingsPage.action(
      args(req("/settings/email", { cookie, form: { ...chosen, hour: "19" } })),
    )) as Response;
    expect(saved.headers.get("Location")).toBe("/settings/email?saved=1");
    expect(await getEmailPreferences(user.id)).toEqual({ ...chosen, hour: 19 });
    for (const form of [
      { ...chosen, digest: "hourly", hour: "25" },
      { ...chosen, moments: "sometimes", hour: "8" },
      { digest: "daily", hour: "8" },
    ]) {
      const bad = (await settingsPage.action(args(req("/settings/email", { cookie, form })))) as {
        init: { status: number };
      };
      expect(bad.init.status).toBe(400);
    }
    expect(await getEmailPreferences(user.id)).toEqual({ ...chosen, hour: 19 });
  });

  it("GET and PUT /api/users/current/email-preferences: the same choices; a bad one is a 400 (B) and changes nothing", async () => {
    const user = await makeUser();
    const cookie = await cookieFor(user);
    const read = async () => {
      const answer = (await preferencesApi.loader(
        args(req("/api/users/current/email-preferences", { cookie })),
      )) as Response;
      expect(answer.status).toBe(200);
      return answer.json();
    };
    expect(await read()).toEqual({ digest: "daily", hour: 8, moments: "off", comments: "off", replies: "off" });
    const chosen = { moments: "now", comments: "digest", replies: "off", digest: "weekly", hour: 19 };
    const put = (json: unknown) =>
      preferencesApi.action(
        args(req("/api/users/current/email-preferences", { cookie, method: "PUT", json })),
      ) as Promise<Response>;
    const saved = await put(chosen);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual(chosen);
    expect(await getEmailPreferences(user.id)).toEqual(chosen);
    const bad = await put({ ...chosen, moments: "hourly", hour: 24 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errors: {
        moments: ["Choose how you want to hear about new moments."],
        hour: ["Choose an hour."],
      },
    });
    expect(await read()).toEqual(chosen);
  });

  it("the signed link unsubscribes (also as a one-click POST without a session); a forged one changes nothing", async () => {
    const user = await makeUser();
    await saveEmailPreferences(user.id, { ...everything("weekly"), comments: "now" });
    const url = new URL(unsubscribeUrl("http://localhost:3000", user.id));
    const path = url.pathname + url.search;
    expect(await unsubscribePage.loader(args(req(path)))).toEqual({ valid: true, done: false });
    const forged = path.replace(/s=[^&]+/, "s=AAAA");
    expect(await unsubscribePage.action(args(req(forged, { form: { "List-Unsubscribe": "One-Click" } })))).toEqual({
      valid: false,
      done: false,
    });
    expect(await getEmailPreferences(user.id)).toEqual({ ...everything("weekly"), comments: "now" });
    const other = (await makeUser()).id;
    expect(await unsubscribePage.action(args(req(path.replace(`u=${user.id}`, `u=${other}`), { form: {} })))).toEqual({
      valid: false,
      done: false,
    });
    expect(await unsubscribePage.action(args(req(path, { form: { "List-Unsubscribe": "One-Click" } })))).toEqual({
      valid: true,
      done: true,
    });
    // every kind off; the digest's frequency and hour stay for a return
    expect(await getEmailPreferences(user.id)).toEqual({
      digest: "weekly",
      hour: 8,
      moments: "off",
      comments: "off",
      replies: "off",
    });
  });
});
