// Jobs that run once across processes (docs/decisions/0018-shared-limits-and-job-leases.md): two
// schedulers (two lease holders, as two processes or machines are) on one database.
import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { claimLease, releaseLease, runExclusive } from "./schedule.server";
import { runScheduledJobs } from "./maintenance.server";
import { makeUser } from "../../tests/helpers";

const HOUR = 60 * 60 * 1000;

describe("job leases", () => {
  it("two schedulers asking at the same time run a job once", async () => {
    let runs = 0;
    const job = async () => {
      runs++;
      return "done";
    };
    const holders = ["machine-a:1", "machine-b:1", "machine-a:2"];
    const answers = await Promise.all(holders.map((holder) => runExclusive("test-once", HOUR, job, holder)));
    expect(runs).toBe(1);
    expect(answers.filter((a) => a.ran)).toEqual([{ ran: true, value: "done" }]);
    // and again later in the period, by anyone, the holder too: still once
    for (const holder of holders) expect(await runExclusive("test-once", HOUR, job, holder)).toEqual({ ran: false });
    expect(runs).toBe(1);
  });

  it("a lease that has expired is claimed again, by whoever asks first", async () => {
    expect(await claimLease("test-expiry", 0, "machine-a:1")).toBe(true);
    expect(await claimLease("test-expiry", HOUR, "machine-b:1")).toBe(true);
    expect(await claimLease("test-expiry", HOUR, "machine-a:1")).toBe(false);
    expect(await db()("job_leases").where("name", "test-expiry").first("holder")).toEqual({ holder: "machine-b:1" });
  });

  it("releasing hands the lease over at once; only its holder can release it", async () => {
    expect(await claimLease("test-release", HOUR, "machine-a:1")).toBe(true);
    await releaseLease("test-release", "machine-b:1");
    expect(await claimLease("test-release", HOUR, "machine-b:1")).toBe(false);
    await releaseLease("test-release", "machine-a:1");
    expect(await claimLease("test-release", HOUR, "machine-b:1")).toBe(true);
  });

  it("a job that throws passes the error on and keeps its lease for the period", async () => {
    const failing = () => Promise.reject(new Error("job failed"));
    await expect(runExclusive("test-throws", HOUR, failing, "machine-a:1")).rejects.toThrow("job failed");
    expect(await runExclusive("test-throws", HOUR, async () => 1, "machine-b:1")).toEqual({ ran: false });
  });
});

describe("the maintenance jobs", () => {
  it("run once across two schedulers: expired sessions and ended limit windows are purged", async () => {
    const user = await makeUser();
    const past = new Date(Date.now() - 1000).toISOString();
    await db()("sessions").insert({ id: "expired-session-hash", user_id: user.id, created_at: past, expires_at: past });
    await db()("rate_limits").insert({ key: "0".repeat(64), count: 3, window_ends_at: past });
    const [a, b] = await Promise.all([
      runScheduledJobs(undefined, "machine-a:1"),
      runScheduledJobs(undefined, "machine-b:1"),
    ]);
    const names = [...a, ...b].sort();
    expect(names.filter((n) => n === "purge-expired-sessions")).toHaveLength(1);
    expect(names.filter((n) => n === "purge-expired-limits")).toHaveLength(1);
    expect(names.filter((n) => n.startsWith("housekeeping@"))).toHaveLength(1);
    expect(await db()("sessions").where("id", "expired-session-hash").first("id")).toBeUndefined();
    expect(await db()("rate_limits").where("key", "0".repeat(64)).first("key")).toBeUndefined();
    // within the hour, nobody runs them again
    expect(await runScheduledJobs(undefined, "machine-c:1")).toEqual([]);
  });

  it("a job that fails is logged and the others still run", async () => {
    const ran = await runScheduledJobs(
      [
        { name: "test-fails", everyMs: HOUR, run: () => Promise.reject(new Error("boom")) },
        { name: "test-runs", everyMs: HOUR, run: async () => 1 },
      ],
      "machine-a:1",
    );
    expect(ran).toEqual(["test-runs"]);
  });
});
