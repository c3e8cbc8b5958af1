import { writeTransaction, type Db } from "~/lib/db.server";
import type { Delivery, EmailPreferenceRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";

// What each person is emailed (docs/spec.md "Email digests", docs/decisions/0027-email-digests.md,
// docs/decisions/0062-new-moments-and-notification-choices.md): per kind of news (a new moment
// they may see, a comment on their moment, a reply where they commented) nothing ("off"), a line
// in their digest ("digest") or a mail right away ("now"); the digest daily or weekly (on Sundays),
// at an hour of the day in TIME_ZONE. In the app every kind is always on the Notifications page.
// No row: no mail at all. A new account gets DEFAULT_PREFERENCES (`insertDefaultDigest`).
// `next_digest_at` is when the next digest is due: the scheduler (app/mail/digest.server.ts)
// claims it by moving it on.

export type { Delivery };
export type DigestChoice = "daily" | "weekly";
export const DEFAULT_DIGEST_HOUR = 8;
/** The kinds of news a person chooses for, by their column. */
export const NEWS_KINDS = ["moments", "comments", "replies"] as const;
export type NewsKind = (typeof NEWS_KINDS)[number];

export type EmailPreferences = { digest: DigestChoice; hour: number } & Record<NewsKind, Delivery>;

/**
 * A new account's choices: what a family would pick. A relative (no kids of their own) hears of
 * new moments and replies once a day; a parent also hears of a comment on their moment at once (a
 * relative has no moments, so that choice waits until they post one).
 */
export const DEFAULT_PREFERENCES: EmailPreferences = {
  digest: "daily",
  hour: DEFAULT_DIGEST_HOUR,
  moments: "digest",
  comments: "now",
  replies: "digest",
};

/** No row (an account from before, a demo account): no mail. */
const NO_MAIL: EmailPreferences = {
  digest: "daily",
  hour: DEFAULT_DIGEST_HOUR,
  moments: "off",
  comments: "off",
  replies: "off",
};

/** The offset of `timeZone` from UTC at `at`, in milliseconds. */
function zoneOffsetMs(at: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The next time after `now` at `hour`:00 in `timeZone`: the next such hour (daily) or the next
 * such hour on a Sunday (weekly).
 */
export function nextDigestSlot(now: Date, hour: number, digest: DigestChoice, timeZone = config().timeZone): Date {
  for (let d = 0; d <= 8; d++) {
    const day = new Date(now.getTime() + d * 86_400_000);
    const local = new Date(day.getTime() + zoneOffsetMs(day, timeZone));
    const guess = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour);
    const slot = new Date(guess - zoneOffsetMs(new Date(guess), timeZone));
    if (slot.getTime() <= now.getTime()) continue;
    if (digest === "weekly" && local.getUTCDay() !== 0) continue;
    return slot;
  }
  throw new Error("no digest slot within 8 days");
}

const preferencesOf = query<
  { userId: number },
  Pick<EmailPreferenceRow, "digest" | "hour" | "moments" | "comments" | "replies">
>((p, k) =>
  k("email_preferences").where("user_id", p("userId")).first("digest", "hour", "moments", "comments", "replies"),
);

export async function getEmailPreferences(userId: number): Promise<EmailPreferences> {
  const row = await preferencesOf.first({ userId });
  if (!row) return NO_MAIL;
  const { digest, hour, moments, comments, replies } = row;
  return { digest: digest === "weekly" ? "weekly" : "daily", hour, moments, comments, replies };
}

/** Whether any kind of news goes in the digest: else no digest is due. */
export function wantsDigest(prefs: Record<NewsKind, Delivery>): boolean {
  return NEWS_KINDS.some((kind) => prefs[kind] === "digest");
}

/**
 * Saves the user's choices (on `conn`, a caller's transaction, or in a write transaction of its
 * own); the next digest is due at the next slot (the news start now for a new row).
 */
export async function saveEmailPreferences(
  userId: number,
  prefs: EmailPreferences,
  conn?: Db,
  now: Date = new Date(),
): Promise<void> {
  if (!conn) return writeTransaction((trx) => saveEmailPreferences(userId, prefs, trx, now));
  const at = now.toISOString();
  const next = wantsDigest(prefs) ? nextDigestSlot(now, prefs.hour, prefs.digest).toISOString() : null;
  await conn("email_preferences")
    .insert({
      user_id: userId,
      digest: prefs.digest,
      hour: prefs.hour,
      moments: prefs.moments,
      comments: prefs.comments,
      replies: prefs.replies,
      next_digest_at: next,
      last_digest_at: at,
      updated_at: at,
    })
    .onConflict("user_id")
    .merge(["digest", "hour", "moments", "comments", "replies", "next_digest_at", "updated_at"]);
}

/** A new account's choices (DEFAULT_PREFERENCES), in the transaction that makes it. */
export function insertDefaultDigest(conn: Db, userId: number): Promise<void> {
  return saveEmailPreferences(userId, DEFAULT_PREFERENCES, conn);
}

/** The one-click unsubscribe: no mail of any kind (the digest's frequency and hour stay for a return). */
export async function unsubscribeAll(userId: number): Promise<void> {
  const prefs = await getEmailPreferences(userId);
  await saveEmailPreferences(userId, { ...prefs, moments: "off", comments: "off", replies: "off" });
}
