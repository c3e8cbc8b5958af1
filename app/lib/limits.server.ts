import { writeTransaction } from "./db.server";
import { hit } from "./rate-limit.server";

// THE one wrapper through which the limits of issue #16 are taken (docs/decisions/0026-*): every
// email-sending action and invitation creation call `withinLimit`. The counts are the shared
// fixed windows in the database (./rate-limit.server.ts, docs/decisions/0018-*), so they hold
// across processes and machines.

type Limit = { max: number; windowMs: number };

export const LIMITS = {
  /** "Email me a sign-in link" / "Forgot your password?" for one address (normalised email). */
  signInLinkPerAccount: { max: 5, windowMs: 15 * 60_000 },
  /** The same from one client address. */
  signInLinkPerAddress: { max: 30, windowMs: 15 * 60_000 },
  /** Invitations and sign-in links for invited friends made by one user. */
  invitesPerUser: { max: 20, windowMs: 24 * 60 * 60_000 },
  /** Answers to invitation forms from one client address. */
  inviteAnswersPerAddress: { max: 30, windowMs: 15 * 60_000 },
  /**
   * Changes of one's own email address (each one tells whether the new address has an account:
   * docs/decisions/0033-sign-up-enumeration.md), per user.
   */
  emailChangesPerUser: { max: 10, windowMs: 24 * 60 * 60_000 },
} satisfies Record<string, Limit>;

export type LimitName = keyof typeof LIMITS;

/**
 * Counts one use of `name` by `key` and answers whether it was within the limit (`max` overrides
 * the default, e.g. from the configuration).
 */
export async function withinLimit(name: LimitName, key: string, max: number = LIMITS[name].max): Promise<boolean> {
  const result = await hit(`mail:${name}:${key}`, { max, windowMs: LIMITS[name].windowMs });
  return !result.blocked;
}

/** Forgets every count (tests). */
export async function resetLimits(): Promise<void> {
  await writeTransaction((trx) => trx("rate_limits").delete());
}
