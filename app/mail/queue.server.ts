import crypto from "node:crypto";
import type { MailMessageRow } from "~/lib/tables";
import type { Knex } from "knex";
import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";

// The mail queue (docs/decisions/0025-mail-queue.md). Sending never happens inside a request: a
// request (or the digest scheduler) adds a row here, in its own transaction when it has one, and
// the sender (./sender.server.ts) delivers it later. Guarantee: AT-LEAST-ONCE with de-duplication
// by Message-ID. A claim is a compare-and-set UPDATE (queued → sending, with a random claim token
// and a lease), so two senders on one database never claim the same row at once; a sender that
// dies after claiming leaves a lease that runs out, and the row is claimed again. A crash after the
// mail server accepted the message but before the row is marked sent means one repeat, carrying
// the same Message-ID (fixed at enqueue), which mail clients and our tests recognise.

/** An inline attachment (a digest's thumbnails), referred to from the HTML as `cid:<cid>`. */
export type InlineAttachment = { cid: string; filename: string; contentType: string; content: Buffer };

export type OutgoingMail = {
  kind: string;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  headers?: Record<string, string>;
  attachments?: InlineAttachment[];
  /**
   * The accounts whose message this is: the one it is addressed to, the one who sent it (an
   * invitation), the ones whose moments or comments it carries (a digest). Deleting one of them
   * deletes the message, queued or sent (deleteMailOf).
   */
  users?: number[];
};

export type QueuedMail = OutgoingMail & {
  id: number;
  messageId: string;
  attempts: number;
  claimToken: string;
};

/** How long a claim holds before another sender may take the message over (longer than any SMTP timeout we set). */
export const LEASE_MS = 5 * 60_000;
/** Back-off after the n-th failed attempt: 30 s, 1 min, 2 min, … at most an hour; retried for ever, never dropped. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60 * 60_000, 30_000 * 2 ** Math.max(0, attempts - 1));
}

/** The Message-ID of a new message: random, on the domain of MAIL_FROM. */
function newMessageId(): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(config().mailFrom)?.[1] ?? "localhost";
  return `<${crypto.randomBytes(16).toString("hex")}@${domain}>`;
}

/** Adds a message to the queue on `conn` (the caller's transaction, so it is sent only if that commits). Answers its id. */
export async function enqueueMail(conn: Db, mail: OutgoingMail, at: Date = new Date()): Promise<number> {
  const now = at.toISOString();
  const id = insertedId(
    await conn("mail_messages")
      .insert({
        message_id: newMessageId(),
        kind: mail.kind,
        to_address: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html ?? null,
        headers_json: mail.headers ? JSON.stringify(mail.headers) : null,
        attachments_json: mail.attachments?.length
          ? JSON.stringify(
              mail.attachments.map((a) => ({
                cid: a.cid,
                filename: a.filename,
                contentType: a.contentType,
                base64: a.content.toString("base64"),
              })),
            )
          : null,
        status: "queued",
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
      })
      .returning("id"),
  );
  const users = [...new Set(mail.users ?? [])];
  if (users.length) await conn("mail_message_users").insert(users.map((user_id) => ({ mail_message_id: id, user_id })));
  // wake the sender once the row is visible to it: after the caller's transaction commits
  const trx = conn as Partial<Knex.Transaction>;
  if (trx.isTransaction && trx.executionPromise) trx.executionPromise.then(mailQueued, () => {});
  else mailQueued();
  return id;
}

// The in-process sender listens here, so a message queued by this process goes out at once
// instead of at the next poll.
const listeners = new Set<() => void>();
export function onMailQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
function mailQueued() {
  for (const listener of listeners) listener();
}

const dueCandidates = query<{ now: string }, Pick<MailMessageRow, "id">>((p, k) =>
  k("mail_messages")
    .where((w) =>
      w
        .where((q) => q.where("status", "queued").andWhere("next_attempt_at", "<=", p("now")))
        .orWhere((q) => q.where("status", "sending").andWhere("claimed_until", "<=", p("now"))),
    )
    .orderBy([{ column: "next_attempt_at" }, { column: "id" }])
    .limit(5)
    .select("id"),
);

type Claimed = Pick<
  MailMessageRow,
  | "id"
  | "message_id"
  | "kind"
  | "to_address"
  | "subject"
  | "text_body"
  | "html_body"
  | "headers_json"
  | "attachments_json"
  | "attempts"
> & { claim_token: string };

const claimedRow = query<{ id: number; token: string }, Claimed>((p, k) =>
  k("mail_messages")
    .where("id", p("id"))
    .andWhere("claim_token", p("token"))
    .first(
      "id",
      "message_id",
      "kind",
      "to_address",
      "subject",
      "text_body",
      "html_body",
      "headers_json",
      "attachments_json",
      "attempts",
      "claim_token",
    ),
);

/**
 * Claims one due message (queued and due, or claimed by a sender whose lease ran out) for this
 * sender, or null when none is due. The UPDATE repeats the "due" condition, so of two senders
 * racing for one row exactly one changes it (SQLite: one writer; PostgreSQL: the second UPDATE
 * waits for the first's row lock and re-checks the condition on the new row).
 */
export async function claimNextMail(now: Date = new Date(), leaseMs = LEASE_MS): Promise<QueuedMail | null> {
  const at = now.toISOString();
  for (let round = 0; round < 3; round++) {
    const candidates = await dueCandidates.all({ now: at });
    if (!candidates.length) return null;
    for (const { id } of candidates) {
      const token = crypto.randomBytes(16).toString("hex");
      const claim = await writeTransaction(async (trx) => {
        const changed = await trx("mail_messages")
          .where("id", id)
          .andWhere((w) =>
            w
              .where((q) => q.where("status", "queued").andWhere("next_attempt_at", "<=", at))
              .orWhere((q) => q.where("status", "sending").andWhere("claimed_until", "<=", at)),
          )
          .update({
            status: "sending",
            claim_token: token,
            claimed_until: new Date(now.getTime() + leaseMs).toISOString(),
            attempts: trx.raw("?? + 1", ["attempts"]),
          });
        return changed === 1 ? claimedRow.first({ id, token }, { conn: trx }) : undefined;
      });
      if (claim) return fromRow(claim); // else another sender was first
    }
  }
  return null;
}

function fromRow(row: Claimed): QueuedMail {
  return {
    id: row.id,
    messageId: row.message_id,
    kind: row.kind,
    to: row.to_address,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    headers: row.headers_json ? (JSON.parse(row.headers_json) as Record<string, string>) : undefined,
    attachments: row.attachments_json
      ? (
          JSON.parse(row.attachments_json) as {
            cid: string;
            filename: string;
            contentType: string;
            base64: string;
          }[]
        ).map((a) => ({
          cid: a.cid,
          filename: a.filename,
          contentType: a.contentType,
          content: Buffer.from(a.base64, "base64"),
        }))
      : undefined,
    attempts: row.attempts,
    claimToken: row.claim_token,
  };
}

/** The message went out: marked sent, if this sender still holds the claim. Answers whether it did. */
export async function markMailSent(mail: QueuedMail): Promise<boolean> {
  const changed = await writeTransaction((trx) =>
    trx("mail_messages")
      .where({ id: mail.id, claim_token: mail.claimToken, status: "sending" })
      .update({ status: "sent", sent_at: nowIso(), claim_token: null, claimed_until: null, last_error: null }),
  );
  return changed === 1;
}

/** Sending failed: back in the queue after the back-off, with the error kept for whoever looks. */
export async function markMailFailed(mail: QueuedMail, error: unknown, now: Date = new Date()): Promise<void> {
  await writeTransaction((trx) =>
    trx("mail_messages")
      .where({ id: mail.id, claim_token: mail.claimToken, status: "sending" })
      .update({
        status: "queued",
        claim_token: null,
        claimed_until: null,
        next_attempt_at: new Date(now.getTime() + retryDelayMs(mail.attempts)).toISOString(),
        last_error: String((error as Error)?.message ?? error).slice(0, 1000),
      }),
  );
}

/**
 * Deletes every message of a deleted account, queued or sent, on `conn` (the deleting transaction):
 * those that name it (mail_message_users: to, from or about it) and any addressed to its email
 * address. A queued digest to a friend that carries the account's moments is cancelled with them
 * (its other news stay on the friend's feed). A message being sent at this very moment may still go
 * out; its row is gone all the same. Answers how many were deleted.
 */
export async function deleteMailOf(conn: Db, user: { id: number; email: string }): Promise<number> {
  return conn("mail_messages")
    .whereIn("id", conn("mail_message_users").where("user_id", user.id).select("mail_message_id"))
    .orWhereRaw("lower(to_address) = ?", [user.email.trim().toLowerCase()])
    .delete();
}

/** How long a sent message is kept (to look into "it never arrived"); digests hold photo thumbnails. */
export const SENT_MAIL_KEEP_DAYS = 7;

/** Deletes the messages sent more than SENT_MAIL_KEEP_DAYS ago (a job of the housekeeping). Answers how many. */
export async function purgeSentMail(now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - SENT_MAIL_KEEP_DAYS * 24 * 60 * 60_000).toISOString();
  return writeTransaction((trx) =>
    trx("mail_messages").where("status", "sent").andWhere("sent_at", "<", before).delete(),
  );
}
