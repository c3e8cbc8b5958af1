import { href } from "react-router";
import type { EmailChangeRow, UserRow } from "~/lib/tables";
import { nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { hashLinkToken, looksLikeLinkToken, newLinkToken } from "~/lib/tokens.server";
import { enqueueMail } from "~/mail/queue.server";
import { emailChangedMail } from "~/mail/messages.server";
import { deleteOtherSessions } from "./sessions.server";
import { closeRelativeLinks } from "./sign-in-links.server";
import { conflict, type Result } from "./refusal";
import { getUserById, type User } from "./users.server";

// An email change is told to the old address, with a link that undoes it
// (docs/decisions/0039-account-safety.md): someone who got into the account (a stolen session, a
// link meant for someone else) and moved it to their own address must not keep it. Like sign-in
// links: 256-bit token, only its sha256 stored, single use, a GET only shows the button.

/** How long the old address can undo a change (at least a week: people read mail late). */
export const EMAIL_UNDO_DAYS = 7;

export const emailUndoPath = (token: string) => href("/email/undo/:token", { token });

export const EMAIL_UNDO_MESSAGES = {
  unusable: "This link has already been used or has expired.",
  taken: "Your old address now belongs to another account, so it cannot be put back. Nothing was changed.",
} as const;

/**
 * On `conn` (the transaction that changes the address): a new undo link for the change, mailed to
 * the old address. `origin`: the site's origin, as for sign-in links.
 */
export async function recordEmailChange(
  conn: Db,
  input: { userId: number; oldEmail: string; newEmail: string; origin: string },
): Promise<void> {
  const { token, hash } = newLinkToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + EMAIL_UNDO_DAYS * 24 * 60 * 60_000).toISOString();
  await conn("email_changes").insert({
    user_id: input.userId,
    old_email: input.oldEmail,
    new_email: input.newEmail,
    token_hash: hash,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  });
  const mail = emailChangedMail({
    to: input.oldEmail,
    newEmail: input.newEmail,
    url: input.origin + emailUndoPath(token),
    expiresAt,
  });
  await enqueueMail(conn, { ...mail, users: [input.userId] });
}

export type EmailUndoState = "valid" | "used" | "expired" | "unknown";

const changeByHash = query<
  { hash: string },
  Pick<EmailChangeRow, "id" | "user_id" | "old_email" | "new_email" | "expires_at" | "used_at">
>((p, k) =>
  k("email_changes")
    .where("token_hash", p("hash"))
    .first("id", "user_id", "old_email", "new_email", "expires_at", "used_at"),
);

/** What an undo link is, without using it (the page that offers the button). */
export async function readEmailUndo(
  token: string | undefined,
): Promise<{ state: EmailUndoState; oldEmail: string | null }> {
  if (!looksLikeLinkToken(token)) return { state: "unknown", oldEmail: null };
  const row = await changeByHash.first({ hash: hashLinkToken(token) });
  if (!row) return { state: "unknown", oldEmail: null };
  const state = row.used_at ? "used" : row.expires_at <= nowIso() ? "expired" : "valid";
  return { state, oldEmail: state === "valid" ? row.old_email : null };
}

const addressOwner = query<{ email: string }, Pick<UserRow, "id">>((p, k) =>
  k("users").where("email_normalized", p("email")).first("id"),
);

/**
 * Uses an undo link, once, before it expires: the old address is the account's again, the
 * password is removed (whoever changed the address may have set it), every session ends, every
 * unused sign-in link and every later change's undo link stops working, and links made by a parent
 * stop for good (the old mailbox is proven). Answers the user, for the caller to sign in: the
 * holder of the old mailbox then chooses a new password. Refused (conflict): used, expired or
 * unknown; the old address taken by another account meanwhile (nothing changes).
 */
export async function undoEmailChange(token: string | undefined): Promise<Result<{ user: User }>> {
  if (!looksLikeLinkToken(token)) return conflict(EMAIL_UNDO_MESSAGES.unusable);
  const hash = hashLinkToken(token);
  const done = await writeTransaction(async (trx): Promise<Result<{ userId: number }>> => {
    const now = nowIso();
    const row = await changeByHash.first({ hash }, { conn: trx });
    if (!row || row.used_at || row.expires_at <= now) return conflict(EMAIL_UNDO_MESSAGES.unusable);
    const userId = row.user_id;
    const oldEmail = row.old_email;
    const owner = await addressOwner.first({ email: oldEmail }, { conn: trx });
    if (owner && owner.id !== userId) return conflict(EMAIL_UNDO_MESSAGES.taken);
    const changed = await trx("email_changes").where("id", row.id).whereNull("used_at").update({ used_at: now });
    if (changed !== 1) return conflict(EMAIL_UNDO_MESSAGES.unusable);
    await trx("users").where("id", userId).update({ email: oldEmail, email_normalized: oldEmail, password_hash: "" });
    await deleteOtherSessions(trx, userId, null);
    await trx("sign_in_links").where("user_id", userId).whereNull("used_at").update({ used_at: now });
    // a later change was made from the account as it was taken: its undo would hand it back
    await trx("email_changes")
      .where("user_id", userId)
      .andWhere("id", ">", row.id)
      .whereNull("used_at")
      .update({ used_at: now });
    await closeRelativeLinks(trx, userId);
    return { ok: true, userId };
  });
  if (!done.ok) return done;
  const user = await getUserById(done.userId);
  return user ? { ok: true, user } : conflict(EMAIL_UNDO_MESSAGES.unusable);
}
