import { writeTransaction } from "./db.server";
import { config } from "./config.server";
import { blockedFor, hit } from "./rate-limit.server";

// THE one wrapper through which the limits on mail and invitations are taken
// (docs/decisions/0026-*): every email-sending action and invitation creation call `withinLimit`.
// The counts are the shared fixed windows in the database (./rate-limit.server.ts,
// docs/decisions/0018-*), so they hold across processes and machines.

type Limit = { max: number; windowMs: number };

const minutes = (n: number) => n * 60_000;

/** Each limit as it stands now: those with settings (server/env.mjs, README "Configuration") read them on each use. */
const LIMITS = {
  /** "Email me a sign-in link" / "Forgot your password?" for one address (normalised email): SIGN_IN_LINK_MAX_PER_ACCOUNT. */
  signInLinkPerAccount: () => ({
    max: config().signInLinkMaxPerAccount,
    windowMs: minutes(config().signInLinkWindowMinutes),
  }),
  /** The same from one client address: SIGN_IN_LINK_MAX_PER_ADDRESS. */
  signInLinkPerAddress: () => ({
    max: config().signInLinkMaxPerAddress,
    windowMs: minutes(config().signInLinkWindowMinutes),
  }),
  /** Invitations and sign-in links for invited friends made by one user: INVITES_PER_DAY. */
  invitesPerUser: () => ({ max: config().invitesPerDay, windowMs: minutes(24 * 60) }),
  /** Answers to invitation forms from one client address. */
  inviteAnswersPerAddress: () => ({ max: 30, windowMs: minutes(15) }),
  /**
   * Changes of one's own email address (each one tells whether the new address has an account:
   * docs/decisions/0033-sign-up-enumeration.md), per user.
   */
  emailChangesPerUser: () => ({ max: 10, windowMs: minutes(24 * 60) }),
} satisfies Record<string, () => Limit>;

export type LimitName = keyof typeof LIMITS;

/** Counts one use of `name` by `key` and answers whether it was within the limit. */
export async function withinLimit(name: LimitName, key: string): Promise<boolean> {
  const result = await hit(`mail:${name}:${key}`, LIMITS[name]());
  return !result.blocked;
}

/** Forgets every count (tests). */
export async function resetLimits(): Promise<void> {
  await writeTransaction((trx) => trx("rate_limits").delete());
}

/**
 * Photos one account may upload per hour (every photo of a moment's, a kid's or a profile picture's
 * form, pages and /api alike: PHOTO_UPLOADS_PER_HOUR; docs/decisions/0042-*), counted across
 * processes before any photo is decoded. `photos` 0 only asks whether the account may send any
 * now; otherwise they are counted, and refused when they take the hour's count past the limit
 * (refused photos count too, like every attempt of 0018's limits). Answers 0, or the milliseconds
 * until the account may upload again.
 */
export async function photoUploadWait(userId: number, photos: number): Promise<number> {
  const key = `photos:user:${userId}`;
  const max = config().photoUploadsPerHour;
  if (photos === 0) return blockedFor(key, max);
  const counted = await hit(key, { max, windowMs: minutes(60) }, photos);
  return counted.blocked ? Math.max(counted.retryAfterMs, 1000) : 0;
}

/**
 * Archives one account may import per hour ("Move in": IMPORTS_PER_HOUR, docs/decisions/0066-imports.md),
 * counted across processes when an import starts. Answers 0, or the milliseconds until the account may import again.
 */
export async function importWait(userId: number): Promise<number> {
  const counted = await hit(`imports:user:${userId}`, { max: config().importsPerHour, windowMs: minutes(60) });
  return counted.blocked ? Math.max(counted.retryAfterMs, 1000) : 0;
}
