import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../server/env.mjs";
import { db } from "../../app/lib/db.server";
import { enqueueMail, LEASE_MS } from "../../app/mail/queue.server";
import { sendDueMail } from "../../app/mail/sender.server";
import { closeTransport } from "../../app/mail/transport.server";
import { startTestSmtp, uniqueByMessageId, type TestSmtp } from "../smtp-server";
import { buildApp, startBuiltServer, type BuiltServer } from "./support/built-server";
import { makeUser } from "../helpers";
import { insertFriendship, insertKid, insertMoment } from "./friends-fixtures";
import { dailyDigestDueNow } from "../kit/digests";

// The mail sender as it runs in production: inside real server processes (server/index.mjs on a
// fresh build), on this test file's database (SQLite, or PostgreSQL with TEST_DATABASE_URL), sending
// to a real SMTP server on loopback. docs/decisions/0025-mail-queue.md: the guarantee is
// at-least-once with de-duplication by Message-ID; here a sender is killed (SIGKILL) between its
// claim and the end of the send, and the message still arrives, once. Then two processes start
// their digest schedulers at the same moment on one database: each digest is claimed once.

let buildDir: string;
let smtp: TestSmtp;
const servers: BuiltServer[] = [];

beforeAll(async () => {
  smtp = await startTestSmtp();
  process.env.SMTP_URL = smtp.url;
  resetEnvCache();
  buildDir = await buildApp();
}, 240_000);

afterAll(async () => {
  for (const s of servers) await s.crash();
  closeTransport();
  delete process.env.SMTP_URL;
  resetEnvCache();
  await smtp.close();
});

const mail = (n: number) => ({ kind: "test", to: `aunt${n}@example.com`, subject: `Moment ${n}`, text: `Text ${n}` });

// each case starts real server processes: a budget of its own (not an assertion on speed)
describe("the sender in server processes", { timeout: 120_000 }, () => {
  it("a sender killed between claim and send: the message is claimed again after the lease and arrives once", async () => {
    const server = await startBuiltServer(buildDir, { SMTP_URL: smtp.url });
    servers.push(server);
    const arrived = smtp.holdNext(); // the server will receive the message's data and never answer
    const id = await enqueueMail(db(), mail(1));
    await arrived;
    await server.crash();

    const stuck = await db()("mail_messages").where("id", id).first();
    expect(stuck).toMatchObject({ status: "sending", attempts: 1 });
    expect(smtp.received.filter((m) => m.parsed.messageId === stuck.message_id)).toHaveLength(0);

    // before the lease runs out nobody takes it; after, another sender does
    expect(await sendDueMail()).toEqual({ sent: 0, failed: 0 });
    expect(await sendDueMail(() => new Date(Date.now() + LEASE_MS + 1_000))).toEqual({ sent: 1, failed: 0 });
    expect(smtp.received.filter((m) => m.parsed.messageId === stuck.message_id)).toHaveLength(1);
    expect(await db()("mail_messages").where("id", id).first()).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("two server processes on one database send every queued message exactly once", async () => {
    const before = smtp.received.length;
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await enqueueMail(db(), mail(100 + i)));
    const [a, b] = await Promise.all([
      startBuiltServer(buildDir, { SMTP_URL: smtp.url }),
      startBuiltServer(buildDir, { SMTP_URL: smtp.url }),
    ]);
    servers.push(a, b);
    const got = (await smtp.waitForCount(before + 20)).slice(before);
    await Promise.all([a.stop(), b.stop()]);
    expect(got).toHaveLength(20);
    expect(uniqueByMessageId(got)).toHaveLength(20);
    expect(smtp.received.length).toBe(before + 20);
    const rows = await db()("mail_messages").whereIn("id", ids).select("status", "attempts");
    expect(rows.every((r) => r.status === "sent" && Number(r.attempts) === 1)).toBe(true);
    expect(
      a
        .errorLines()
        .concat(b.errorLines())
        .filter((l) => l.includes("[mail]")),
    ).toEqual([]);
  });

  it("two server processes starting their digest schedulers at once on one database: each due digest arrives once", async () => {
    const parent = await makeUser();
    const readers = [await makeUser(), await makeUser(), await makeUser(), await makeUser(), await makeUser()];
    for (const r of readers) {
      await insertFriendship(parent, r, "accepted");
      await dailyDigestDueNow(r.id, new Date(Date.now() - 60_000).toISOString());
    }
    await insertMoment(await insertKid(parent, "Lou"), "Swimming");
    const before = smtp.received.length;
    const [a, b] = await Promise.all([
      startBuiltServer(buildDir, { SMTP_URL: smtp.url }),
      startBuiltServer(buildDir, { SMTP_URL: smtp.url }),
    ]);
    servers.push(a, b);
    const got = (await smtp.waitForCount(before + readers.length)).slice(before);
    await Promise.all([a.stop(), b.stop()]);
    expect(got.map((m) => m.envelopeTo[0]).sort()).toEqual(readers.map((r) => r.email).sort());
    expect(smtp.received.length).toBe(before + readers.length);
    expect(got.every((m) => m.parsed.subject === "Your daily Sweet Moments: 1 new moment")).toBe(true);
    expect(Number((await db()("mail_messages").where("kind", "digest").count({ n: "*" }).first())!.n)).toBe(
      readers.length,
    );
  });
});
