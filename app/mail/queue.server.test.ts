import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../server/env.mjs";
import { db } from "~/lib/db.server";
import { config } from "~/lib/config.server";
import {
  claimNextMail,
  enqueueMail,
  LEASE_MS,
  markMailSent,
  purgeSentMail,
  retryDelayMs,
  SENT_MAIL_KEEP_DAYS,
} from "./queue.server";
import { runMaintenance } from "~/models/maintenance.server";
import { sendDueMail } from "./sender.server";
import { closeTransport, deliver } from "./transport.server";
import { startTestSmtp, uniqueByMessageId, type TestSmtp } from "../../tests/smtp-server";

// The queue and the sender against a real SMTP server on loopback and the real database (SQLite,
// or PostgreSQL with TEST_DATABASE_URL). The guarantee tested: at-least-once, de-duplicated by
// Message-ID (docs/decisions/0025-mail-queue.md); the kill of a real sender process between claim
// and send is in tests/unit/mail-processes.test.ts.

let smtp: TestSmtp;
const later = (ms: number) => () => new Date(Date.now() + ms);

beforeAll(async () => {
  smtp = await startTestSmtp();
  process.env.SMTP_URL = smtp.url;
  process.env.MAIL_FROM = "Sweet Moments <hello@moments.test>";
  resetEnvCache();
});
afterEach(async () => {
  // every test starts with an empty queue
  await db()("mail_messages").delete();
});
afterAll(async () => {
  closeTransport();
  delete process.env.SMTP_URL;
  delete process.env.MAIL_FROM;
  resetEnvCache();
  await smtp.close();
});

const mail = (n: number) => ({
  kind: "test",
  to: `grandma${n}@example.com`,
  subject: `Hello ${n}`,
  text: `Plain ${n}`,
  html: `<p>Html ${n}</p>`,
});

describe("the mail queue", () => {
  it("sent messages (a digest's thumbnails) are purged after SENT_MAIL_KEEP_DAYS by the housekeeping; queued ones never", async () => {
    const day = 24 * 60 * 60_000;
    const thumbnail = {
      cid: "moment-1@sweet-moments",
      filename: "moment-1.jpg",
      contentType: "image/jpeg",
      content: Buffer.from("jpeg"),
    };
    const old = await enqueueMail(db(), { ...mail(1), attachments: [thumbnail] });
    const recent = await enqueueMail(db(), mail(2));
    const waiting = await enqueueMail(db(), mail(3), new Date(Date.now() - 30 * day));
    const sentAt = (days: number) => new Date(Date.now() - days * day).toISOString();
    await db()("mail_messages")
      .where("id", old)
      .update({ status: "sent", sent_at: sentAt(SENT_MAIL_KEEP_DAYS + 1) });
    await db()("mail_messages")
      .where("id", recent)
      .update({ status: "sent", sent_at: sentAt(SENT_MAIL_KEEP_DAYS - 1) });
    expect(await purgeSentMail(new Date(Date.now() - 2 * day))).toBe(0); // two days ago, the old one was not old enough yet
    expect((await runMaintenance()).sentMail).toBe(1);
    expect((await db()("mail_messages").orderBy("id").pluck("id")).map(Number)).toEqual([recent, waiting]);
  });

  it("delivers a queued message over SMTP with its Message-ID, text and HTML, and marks it sent", async () => {
    const before = smtp.received.length;
    const id = await enqueueMail(db(), { ...mail(1), headers: { "List-Unsubscribe": "<https://x.test/u>" } });
    expect(await sendDueMail()).toEqual({ sent: 1, failed: 0 });
    const [got] = (await smtp.waitForCount(before + 1)).slice(before);
    const row = await db()("mail_messages").where("id", id).first();
    expect(row).toMatchObject({ status: "sent", attempts: 1, claim_token: null });
    expect(got!.parsed.messageId).toBe(row.message_id);
    expect(row.message_id).toMatch(/^<[0-9a-f]{32}@moments\.test>$/);
    expect(got!.parsed.subject).toBe("Hello 1");
    expect(got!.parsed.text?.trim()).toBe("Plain 1");
    expect(got!.parsed.html).toContain("<p>Html 1</p>");
    expect(got!.parsed.from?.text).toBe('"Sweet Moments" <hello@moments.test>');
    expect(got!.envelopeTo).toEqual(["grandma1@example.com"]);
    expect(got!.raw).toMatch(/^List-Unsubscribe: <https:\/\/x\.test\/u>\r?$/m);
    // nothing due any more
    expect(await sendDueMail()).toEqual({ sent: 0, failed: 0 });
  });

  it("a refused message is logged, kept and retried after its back-off, never lost", async () => {
    const before = smtp.received.length;
    const id = await enqueueMail(db(), mail(2));
    smtp.refuseNext(1);
    expect(await sendDueMail()).toEqual({ sent: 0, failed: 1 });
    const failed = await db()("mail_messages").where("id", id).first();
    expect(failed).toMatchObject({ status: "queued", attempts: 1, claim_token: null });
    expect(failed.last_error).toMatch(/451/);
    expect(Date.parse(failed.next_attempt_at)).toBeGreaterThan(Date.now() + retryDelayMs(1) - 5_000);
    // not due yet: nothing happens
    expect(await sendDueMail()).toEqual({ sent: 0, failed: 0 });
    // after the back-off it goes out
    expect(await sendDueMail(later(retryDelayMs(1) + 1_000))).toEqual({ sent: 1, failed: 0 });
    expect(await db()("mail_messages").where("id", id).first()).toMatchObject({
      status: "sent",
      attempts: 2,
      last_error: null,
    });
    expect(smtp.received.length).toBe(before + 1);
  });

  it("back-off doubles from 30 seconds up to an hour", () => {
    expect([1, 2, 3, 8, 20].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 3_600_000, 3_600_000]);
  });

  it("two workers on one database claim every message exactly once between them", async () => {
    const before = smtp.received.length;
    for (let i = 0; i < 12; i++) await enqueueMail(db(), mail(100 + i));
    const [a, b] = await Promise.all([sendDueMail(), sendDueMail()]);
    expect(a.sent + b.sent).toBe(12);
    expect(a.failed + b.failed).toBe(0);
    const got = (await smtp.waitForCount(before + 12)).slice(before);
    expect(got).toHaveLength(12);
    expect(new Set(got.map((m) => m.parsed.messageId)).size).toBe(12);
    expect(Number((await db()("mail_messages").whereNot("status", "sent").count({ n: "*" }))[0]!.n)).toBe(0);
  });

  it("a claim is taken by one worker only; a second sees nothing due until the lease runs out", async () => {
    await enqueueMail(db(), mail(3));
    const first = await claimNextMail();
    expect(first).not.toBeNull();
    expect(await claimNextMail()).toBeNull();
    const taken = await claimNextMail(new Date(Date.now() + LEASE_MS + 1_000));
    expect(taken?.id).toBe(first!.id);
    expect(taken!.claimToken).not.toBe(first!.claimToken);
    // the first worker's late "sent" no longer counts: the claim is the second's
    expect(await markMailSent(first!)).toBe(false);
    expect(await markMailSent(taken!)).toBe(true);
  });

  it("a sender that dies after the server accepted the message but before marking it: one repeat, with the same Message-ID", async () => {
    const before = smtp.received.length;
    const id = await enqueueMail(db(), mail(4));
    const claimed = await claimNextMail();
    await deliver(claimed!); // … and the process dies here, before markMailSent
    expect(await sendDueMail()).toEqual({ sent: 0, failed: 0 }); // still leased
    expect(await sendDueMail(later(LEASE_MS + 1_000))).toEqual({ sent: 1, failed: 0 });
    const got = (await smtp.waitForCount(before + 2)).slice(before);
    expect(got).toHaveLength(2);
    expect(got[0]!.parsed.messageId).toBe(got[1]!.parsed.messageId);
    expect(uniqueByMessageId(got)).toHaveLength(1);
    expect(await db()("mail_messages").where("id", id).first()).toMatchObject({ status: "sent", attempts: 2 });
  });
});

describe("without SMTP_URL", () => {
  it("writes each message as an .eml file into the outbox beside the database and logs one line", async () => {
    delete process.env.SMTP_URL;
    resetEnvCache();
    try {
      const outbox = config().outboxDir;
      expect(outbox).toBe(path.join(path.dirname(config().databaseFile), "outbox"));
      const id = await enqueueMail(db(), mail(5));
      const logged: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => void logged.push(args.join(" "));
      try {
        expect(await sendDueMail()).toEqual({ sent: 1, failed: 0 });
      } finally {
        console.log = log;
      }
      const files = fs.readdirSync(outbox).filter((f) => f.startsWith(String(id).padStart(6, "0")));
      expect(files).toEqual([`${String(id).padStart(6, "0")}-test.eml`]);
      const eml = fs.readFileSync(path.join(outbox, files[0]!), "utf8");
      expect(eml).toMatch(/^Subject: Hello 5\r$/m);
      expect(eml).toMatch(/^To: grandma5@example\.com\r$/m);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(`[mail] outbox: test to grandma5@example.com "Hello 5"`);
    } finally {
      process.env.SMTP_URL = smtp.url;
      resetEnvCache();
    }
  });
});
