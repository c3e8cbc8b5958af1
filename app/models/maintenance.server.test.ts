import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { TEMP_UPLOAD_MAX_AGE_MS, uploadFromBuffer } from "~/images/multipart.server";
import { runScheduledJobs, SCHEDULED_JOBS } from "~/jobs/maintenance.server";
import { MAINTENANCE_EVERY_MS, runMaintenance } from "./maintenance.server";

// The housekeeping of a running server (docs/decisions/0018-*): temp uploads left behind are swept
// on the scheduler's timer (app/jobs/maintenance.server.ts), not only at the next restart.

async function staleUpload(): Promise<string> {
  const file = await uploadFromBuffer(Buffer.from("left by a crash"));
  const past = (Date.now() - TEMP_UPLOAD_MAX_AGE_MS - 60_000) / 1000;
  fs.utimesSync(file.path, past, past);
  return file.path;
}

describe("maintenance", () => {
  it("one round sweeps stale temp uploads and reports what it removed", async () => {
    const stale = await staleUpload();
    const report = await runMaintenance();
    expect(report.tempUploads).toBe(1);
    expect(fs.existsSync(stale)).toBe(false);
  });

  it("runs as the machine's housekeeping job of the scheduler: at start, then once per period", async () => {
    const stale = await staleUpload();
    const housekeeping = SCHEDULED_JOBS.filter((job) => job.name.startsWith("housekeeping@"));
    expect(housekeeping.map((job) => [job.everyMs, job.run])).toEqual([[MAINTENANCE_EVERY_MS, runMaintenance]]);
    expect(await runScheduledJobs(housekeeping, "this-machine:1")).toEqual([housekeeping[0]!.name]);
    expect(fs.existsSync(stale)).toBe(false);
    // within the period it does not run again, whichever process asks
    const later = await staleUpload();
    expect(await runScheduledJobs(housekeeping, "this-machine:2")).toEqual([]);
    expect(fs.existsSync(later)).toBe(true);
  });
});
