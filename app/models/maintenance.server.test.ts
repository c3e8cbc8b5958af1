import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { TEMP_UPLOAD_MAX_AGE_MS, uploadFromBuffer } from "~/images/multipart.server";
import * as entry from "../entry.server";
import { runMaintenance, startMaintenance, stopMaintenance } from "./maintenance.server";

// The housekeeping timer of a running server (issue 19, point 9): temp uploads left behind are
// swept on a timer, not only at the next restart.

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

  it("runs at start and then on its timer, until stopped; the server starts it through the build's entry", async () => {
    expect(entry.sweepUploads).toBe(startMaintenance);
    const first = await staleUpload();
    const stop = startMaintenance(50);
    try {
      await expect.poll(() => fs.existsSync(first)).toBe(false);
      const later = await staleUpload(); // left after the first round: the timer takes it
      await expect.poll(() => fs.existsSync(later)).toBe(false);
    } finally {
      stop();
      stopMaintenance(); // twice is harmless
    }
  });
});
