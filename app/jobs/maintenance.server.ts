import os from "node:os";
import { purgeExpiredLimits } from "~/lib/rate-limit.server";
import { runMaintenance, MAINTENANCE_EVERY_MS } from "~/models/maintenance.server";
import { deleteExpiredSessions } from "~/models/sessions.server";
import { runExclusive, THIS_HOLDER } from "./schedule.server";

// The periodic jobs (docs/decisions/0018-shared-limits-and-job-leases.md). Every machine's server
// calls runScheduledJobs on a timer (server/index.mjs: the cluster's primary, or a single process);
// each job runs at most once per period across all of them.

const HOUR = 60 * 60 * 1000;

export type Job = { name: string; everyMs: number; run: () => Promise<unknown> };

export const SCHEDULED_JOBS: readonly Job[] = [
  { name: "purge-expired-sessions", everyMs: HOUR, run: deleteExpiredSessions },
  { name: "purge-expired-limits", everyMs: HOUR, run: purgeExpiredLimits },
  // temp uploads wait on each machine's own disk: its housekeeping is one lease per machine
  { name: `housekeeping@${os.hostname()}`, everyMs: MAINTENANCE_EVERY_MS, run: runMaintenance },
];

/**
 * Runs each job whose period has passed (whoever asks first); answers the names this process ran.
 * A job that fails is logged and keeps its lease for the period. Never throws.
 */
export async function runScheduledJobs(jobs: readonly Job[] = SCHEDULED_JOBS, holder = THIS_HOLDER): Promise<string[]> {
  const ran: string[] = [];
  for (const job of jobs) {
    try {
      if ((await runExclusive(job.name, job.everyMs, job.run, holder)).ran) ran.push(job.name);
    } catch (error) {
      console.error(`[jobs] ${job.name} failed`, error);
    }
  }
  return ran;
}
