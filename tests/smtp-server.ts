// A real SMTP server on loopback for the tests (smtp-server + mailparser): every message it accepts
// is parsed and kept. No mock transport: the app talks SMTP to it through nodemailer.
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "../server/env.mjs";
import { closeTransport } from "../app/mail/transport.server";

export type ReceivedMail = { parsed: ParsedMail; raw: string; envelopeTo: string[] };

export type TestSmtp = {
  url: string;
  received: ReceivedMail[];
  /** Resolves once `count` messages have been accepted in all. */
  waitForCount(count: number): Promise<ReceivedMail[]>;
  /** The next message's data is read but never answered (the client hangs in DATA); resolves when it arrives. */
  holdNext(): Promise<void>;
  /** The next `n` messages are refused with a temporary error (451). */
  refuseNext(n: number): void;
  close(): Promise<void>;
};

/** Starts the server on 127.0.0.1: on `port`, or (default) on a free one. */
export async function startTestSmtp({ port: wanted = 0 }: { port?: number } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: { count: number; resolve: (m: ReceivedMail[]) => void }[] = [];
  let hold: (() => void) | null = null;
  let refuse = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // close() waits this long for clients still connected (a pooled transport, a held DATA) before
    // ending them: the default 30 s is a test hook's whole budget
    closeTimeout: 200,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        if (hold) {
          const arrived = hold;
          hold = null;
          arrived(); // the data is here, and no answer is ever given
          return;
        }
        if (refuse > 0) {
          refuse -= 1;
          const error = Object.assign(new Error("Try again later"), { responseCode: 451 });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const parsed = await simpleParser(raw, { skipImageLinks: true }); // keep cid: links as sent
        received.push({ parsed, raw, envelopeTo: session.envelope.rcptTo.map((r) => r.address) });
        callback();
        for (const w of [...waiters]) {
          if (received.length >= w.count) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(received);
          }
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(wanted, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    waitForCount(count) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    holdNext() {
      return new Promise((resolve) => (hold = resolve));
    },
    refuseNext(n) {
      refuse = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The messages, keeping one per Message-ID (how a mail client de-duplicates a repeat). */
export function uniqueByMessageId(mails: ReceivedMail[]): ReceivedMail[] {
  const seen = new Set<string>();
  return mails.filter((m) => {
    const id = m.parsed.messageId ?? "";
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * A test SMTP server for the whole test file: started and set as SMTP_URL before its tests, closed
 * (with the app's SMTP transport) after them. Answers a getter for it.
 */
export function testSmtpForFile(): () => TestSmtp {
  let smtp: TestSmtp | undefined;
  beforeAll(async () => {
    smtp = await startTestSmtp();
    process.env.SMTP_URL = smtp.url;
    resetEnvCache();
  });
  afterAll(async () => {
    closeTransport();
    delete process.env.SMTP_URL;
    resetEnvCache();
    await smtp?.close();
  });
  return () => {
    if (!smtp) throw new Error("the test SMTP server is not started yet");
    return smtp;
  };
}
