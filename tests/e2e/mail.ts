import { simpleParser, type ParsedMail } from "mailparser";
import { expect } from "./utils";

// What the e2e server sent: the messages the test SMTP server of tests/e2e/global-smtp.ts received.

type Received = { to: string[]; raw: string };

async function received(): Promise<Received[]> {
  const inbox = process.env.E2E_SMTP_INBOX;
  if (!inbox) throw new Error("E2E_SMTP_INBOX is not set (tests/e2e/global-smtp.ts sets it)");
  return (await (await fetch(inbox)).json()) as Received[];
}

/**
 * The newest message to `to`, once the SMTP server has received one (polled, never a fixed wait;
 * `timeout`: how long to poll, by default the config's expect timeout).
 */
export async function mailTo(to: string, { timeout }: { timeout?: number } = {}): Promise<ParsedMail> {
  const address = to.toLowerCase();
  let found: Received | undefined;
  await expect
    .poll(
      async () => {
        found = (await received()).findLast((m) => m.to.some((t) => t.toLowerCase() === address));
        return Boolean(found);
      },
      { message: `a message to ${to} reaches the test SMTP server`, timeout },
    )
    .toBe(true);
  // keepCidLinks: the HTML as sent (mailparser otherwise inlines cid: images as data: URLs)
  return simpleParser(found!.raw, { keepCidLinks: true });
}
