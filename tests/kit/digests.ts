// What the tests that send digests share (app/mail/digest.server.test.ts, the account's deletion,
// the mail processes, the site's address): every kind of news in a digest, and a digest made due.
import { db } from "../../app/lib/db.server";
import { type EmailPreferences, saveEmailPreferences } from "../../app/models/email-preferences.server";

/** Everything in a digest, daily or weekly, at 8. */
export const everything = (digest: "daily" | "weekly" = "daily"): EmailPreferences => ({
  digest,
  hour: 8,
  moments: "digest",
  comments: "digest",
  replies: "digest",
});

/** Makes the user's digest due now (as if its hour had come); `since`: news from then on is in it. */
export const makeDue = (userId: number, since?: string) =>
  db()("email_preferences")
    .where("user_id", userId)
    .update({ next_digest_at: new Date(Date.now() - 1000).toISOString(), ...(since ? { last_digest_at: since } : {}) });

/** The user chooses a daily digest of everything, due now with the news since `since`. */
export async function dailyDigestDueNow(userId: number, since: string): Promise<void> {
  await saveEmailPreferences(userId, everything());
  await makeDue(userId, since);
}
