import { writeTransaction, type Db } from "~/lib/db.server";
import type { EmailPreferenceRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";

// Email digest preferences (docs/spec.md "Email digests"): none, daily or weekly (on
// Sundays), at an hour of the day in TIME_ZONE. No row: none. Invited relatives get weekly at 8 when
// they join (`insertDefaultDigest`). `next_digest_at` is when the next one is due: the scheduler
// (app/mail/digest.server.ts) claims it by moving it on.

export type DigestChoice = "none" | "daily" | "weekly";
export const DEFAULT_DIGEST_HOUR = 8;

export type EmailPreferences = { digest: DigestChoice; hour: number };

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
export function nextDigestSlot(
  now: Date,
  hour: number,
  digest: Exclude<DigestChoice, "none">,
  timeZone = config().timeZone,
): Date {
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

const preferencesOf = query<{ userId: number }, Pick<EmailPreferenceRow, "digest" | "hour">>((p, k) =>
  k("email_preferences").where("user_id", p("userId")).first("digest", "hour"),
);

export async function getEmailPreferences(userId: number): Promise<EmailPreferences> {
  const row = await preferencesOf.first({ userId });
  return row ? { digest: row.digest, hour: row.hour } : { digest: "none", hour: DEFAULT_DIGEST_HOUR };
}

/**
 * Saves the user's choice (on `conn`, a caller's transaction, or in a write transaction of its
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
  const next = prefs.digest === "none" ? null : nextDigestSlot(now, prefs.hour, prefs.digest).toISOString();
  await conn("email_preferences")
    .insert({
      user_id: userId,
      digest: prefs.digest,
      hour: prefs.hour,
      next_digest_at: next,
      last_digest_at: at,
      updated_at: at,
    })
    .onConflict("user_id")
    .merge(["digest", "hour", "next_digest_at", "updated_at"]);
}

/** An invited relative's default: a weekly digest at 8 (in the joining transaction). */
export function insertDefaultDigest(conn: Db, userId: number): Promise<void> {
  return saveEmailPreferences(userId, { digest: "weekly", hour: DEFAULT_DIGEST_HOUR }, conn);
}
