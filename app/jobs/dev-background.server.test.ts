import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../server/env.mjs";
import { db } from "~/lib/db.server";
import { enqueueMail } from "~/mail/queue.server";
import { closeTransport } from "~/mail/transport.server";
import { startTestSmtp, type TestSmtp } from "../../tests/smtp-server";
import { devBackgroundsRunning, startDevBackground, stopDevBackground } from "./dev-background.server";

// `npm run dev`'s background work (app/jobs/dev-background.server.ts): started again on every
// evaluation of the entry (hot reloads), it stays one set per process, and its sender delivers what
// the app queues, over a real SMTP server on loopback.

let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startTestSmtp();
  process.env.SMTP_URL = smtp.url;
  resetEnvCache();
});
afterAll(async () => {
  await stopDevBackground();
  closeTransport();
  delete process.env.SMTP_URL;
  resetEnvCache();
  await smtp.close();
  await db()("mail_messages").delete();
});

describe("the dev server's background work", () => {
  it("one mail sender and digest scheduler per process however often the entry is evaluated; queued mail goes out", async () => {
    expect(devBackgroundsRunning()).toBe(0);
    await startDevBackground();
    await startDevBackground(); // a hot reload
    await startDevBackground();
    expect(devBackgroundsRunning()).toBe(1);
    const before = smtp.received.length;
    await enqueueMail(db(), {
      kind: "test",
      to: "dev-background@example.com",
      subject: "From dev",
      text: "Plain",
      html: "<p>Html</p>",
    });
    const got = (await smtp.waitForCount(before + 1)).slice(before);
    expect(got.map((m) => m.envelopeTo)).toEqual([["dev-background@example.com"]]);
    await stopDevBackground(); // waits for the round in flight (it marks the message sent)
    expect(devBackgroundsRunning()).toBe(0);
    expect((await db()("mail_messages").where("to_address", "dev-background@example.com").first("status")).status).toBe(
      "sent",
    );
  });
});
