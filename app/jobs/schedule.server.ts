import os from "node:os";
import crypto from "node:crypto";
import { writeTransaction } from "~/lib/db.server";

// Jobs that must run once across every process and machine (docs/decisions/0018-shared-limits-and-
// job-leases.md): a lease per job name in the table `job_leases`, claimed in one atomic statement on
// both engines (an insert, or on conflict an update only where the lease has expired). Whoever
// claims it runs the job; everyone else skips it until the lease ends.
//
//   await runExclusive("purge-sessions", HOUR, () => deleteExpiredSessions());
//
// The lease is kept until it expires, so a job given its period as lease runs once per period
// whichever process asks first; `releaseLease` lets a job that is done early (a queue worker) hand
// over at once.

/** This process, as a lease holder: host, pid and a random part (a pid may repeat on restart). */
export const THIS_HOLDER = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;

/**
 * Claims the lease `name` for `leaseMs` for `holder`: true when it was free or has expired, false
 * while it is held (by anyone, this holder too: a lease is a period, not a lock to re-enter).
 */
export async function claimLease(name: string, leaseMs: number, holder = THIS_HOLDER): Promise<boolean> {
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const expiresIso = new Date(now + leaseMs).toISOString();
  const rows = await writeTransaction((trx) =>
    trx("job_leases")
      .insert({ name, holder, expires_at: expiresIso })
      .onConflict("name")
      .merge(["holder", "expires_at"])
      .where("job_leases.expires_at", "<=", nowIso)
      .returning(["holder"]),
  );
  return rows.length === 1;
}

/** Ends `holder`'s lease on `name` now (nothing when someone else holds it). */
export async function releaseLease(name: string, holder = THIS_HOLDER): Promise<void> {
  await writeTransaction((trx) => trx("job_leases").where({ name, holder }).delete());
}

/** Extends `holder`'s lease on `name` by `leaseMs` from now: false when it is not theirs any more. */
export async function renewLease(name: string, leaseMs: number, holder = THIS_HOLDER): Promise<boolean> {
  const expiresIso = new Date(Date.now() + leaseMs).toISOString();
  const changed = await writeTransaction((trx) =>
    trx("job_leases").where({ name, holder }).update({ expires_at: expiresIso }),
  );
  return changed === 1;
}

export type Ran<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `fn` when this holder claims the lease `name` for `leaseMs`; answers whether it ran (and
 * what it answered). A throw of `fn` is passed on; the lease stays until it expires.
 */
export async function runExclusive<T>(
  name: string,
  leaseMs: number,
  fn: () => Promise<T>,
  holder = THIS_HOLDER,
): Promise<Ran<T>> {
  if (!(await claimLease(name, leaseMs, holder))) return { ran: false };
  return { ran: true, value: await fn() };
}
