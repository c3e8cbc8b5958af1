import fs from "node:fs/promises";
import path from "node:path";
import type Nodemailer from "nodemailer";
import { config } from "~/lib/config.server";
import { privateDir, privateFile } from "../../db/private-files.mjs";
import type { QueuedMail } from "./queue.server";

// Where a claimed message goes (docs/decisions/0025-mail-queue.md): to the SMTP server of SMTP_URL
// through nodemailer, or, without SMTP_URL, into an .eml file in the outbox folder beside the
// database, with one log line, so a self-hoster sees exactly what would have been sent.

// nodemailer is loaded with the first message a process sends, not at start: it adds about 20 MB
// to every process that imports it, and most processes never send a mail
// (docs/decisions/0036-lean-processes.md).
type Mailer = typeof Nodemailer;
let mailerLoading: Promise<Mailer> | null = null;
const loadMailer = (): Promise<Mailer> => (mailerLoading ??= import("nodemailer").then((m) => m.default));

type Transport = ReturnType<Mailer["createTransport"]>;
let smtp: { url: string; transport: Transport } | null = null;

function smtpTransport(nodemailer: Mailer, url: string): Transport {
  if (smtp?.url !== url) {
    smtp?.transport.close();
    // timeouts well under the queue's lease (LEASE_MS), so a hung server is a failed attempt
    smtp = {
      url,
      transport: nodemailer.createTransport(url, {
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
      } as never),
    };
  }
  return smtp.transport;
}

function message(mail: QueuedMail) {
  return {
    from: config().mailFrom,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    messageId: mail.messageId,
    headers: mail.headers ?? {},
    attachments: (mail.attachments ?? []).map((a) => ({
      cid: a.cid,
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      contentDisposition: "inline" as const,
    })),
  };
}

/** Delivers one claimed message; throws when it did not go out. */
export async function deliver(mail: QueuedMail): Promise<void> {
  const cfg = config();
  const nodemailer = await loadMailer();
  if (cfg.smtpUrl) {
    await smtpTransport(nodemailer, cfg.smtpUrl).sendMail(message(mail));
    return;
  }
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  const info = await composer.sendMail(message(mail));
  // the messages hold sign-in links: the folder and its files are the owner's only (docs/decisions/0042-*)
  privateDir(cfg.outboxDir, { always: true });
  // one file per queued message: a repeat after a crash overwrites it instead of adding a second
  const file = path.join(cfg.outboxDir, `${String(mail.id).padStart(6, "0")}-${mail.kind}.eml`);
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, info.message as Buffer, { mode: 0o600 });
  privateFile(tmp);
  await fs.rename(tmp, file);
  console.log(`[mail] outbox: ${mail.kind} to ${mail.to} "${mail.subject}" → ${file}`);
}

/** Closes the SMTP connection pool (server shutdown, tests). */
export function closeTransport(): void {
  smtp?.transport.close();
  smtp = null;
}
