import { FailureLimiter } from "./rate-limit.server";

// THE one wrapper through which the limits of issue #16 are taken (docs/decisions/0026-*): every
// email-sending action and invitation creation call `withinLimit`. Today the counters are the
// in-memory fixed windows of ./rate-limit.server.ts (one process); a shared, database-backed
// limiter replaces them here, in this file only. The function is async for that reason.

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
} satisfies Record<string, Limit>;

export type LimitName = keyof typeof LIMITS;

const limiters = new Map<LimitName, FailureLimiter>();

/**
 * Counts one use of `name` by `key` and answers whether it was within the limit (`max` overrides
 * the default, e.g. from the configuration). A use over the limit is not counted.
 */
export async function withinLimit(name: LimitName, key: string, max: number = LIMITS[name].max): Promise<boolean> {
  let limiter = limiters.get(name);
  if (!limiter) {
    limiter = new FailureLimiter(() => LIMITS[name].windowMs);
    limiters.set(name, limiter);
  }
  if (limiter.blockedFor(key, max) > 0) return false;
  limiter.fail(key);
  return true;
}

/** Forgets every count (tests). */
export function resetLimits(): void {
  limiters.clear();
}
