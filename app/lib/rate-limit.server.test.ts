// Shared abuse limits in the database (docs/decisions/0018-shared-limits-and-job-leases.md). Two
// server processes sharing one count: tests/unit/processes.test.ts.
import { describe, expect, it } from "vitest";
import { db } from "./db.server";
import { addressNetwork, blockedFor, count, hit, purgeExpiredLimits, reset } from "./rate-limit.server";

const MINUTE = 60_000;

describe("rate limits", () => {
  it("count hits in a window; past `max` a hit is blocked until the window ends", async () => {
    const key = "test:window";
    const limit = { max: 3, windowMs: 15 * MINUTE };
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await hit(key, limit));
    expect(hits.map((h) => [h.count, h.blocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(hits[3]!.retryAfterMs).toBeGreaterThan(14 * MINUTE);
    expect(hits[3]!.retryAfterMs).toBeLessThanOrEqual(15 * MINUTE);
    expect(await count(key)).toBe(4);
    expect(await blockedFor(key, 5)).toBe(0);
    expect(await blockedFor(key, 4)).toBeGreaterThan(14 * MINUTE);
    expect(await count("test:never")).toBe(0);
    expect(await blockedFor("test:never", 1)).toBe(0);
  });

  it("start again after the window", async () => {
    const key = "test:expired";
    // a window of 0 ms has ended by the next hit
    expect((await hit(key, { max: 1, windowMs: 0 })).count).toBe(1);
    expect(await count(key)).toBe(0);
    expect(await blockedFor(key, 1)).toBe(0);
    const next = await hit(key, { max: 1, windowMs: 15 * MINUTE });
    expect([next.count, next.blocked]).toEqual([1, false]);
  });

  it("reset forgets a key, and only that key", async () => {
    const limit = { max: 10, windowMs: 15 * MINUTE };
    await hit("test:reset-a", limit);
    await hit("test:reset-b", limit);
    await reset("test:reset-a");
    expect([await count("test:reset-a"), await count("test:reset-b")]).toEqual([0, 1]);
  });

  it("count concurrent hits exactly once each (one atomic statement on both engines)", async () => {
    const key = "test:concurrent";
    const limit = { max: 1000, windowMs: 15 * MINUTE };
    const counts = (await Promise.all(Array.from({ length: 40 }, () => hit(key, limit)))).map((h) => h.count);
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await count(key)).toBe(40);
  });

  it("keep no key in clear, and purge the ended windows only", async () => {
    await hit("login:account:someone@example.com", { max: 10, windowMs: 15 * MINUTE });
    await hit("test:purged", { max: 10, windowMs: 0 });
    const rows: { key: string }[] = await db()("rate_limits").select("key");
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key))).toBe(true);
    const before = rows.length;
    expect(await purgeExpiredLimits()).toBeGreaterThanOrEqual(1);
    expect(await count("login:account:someone@example.com")).toBe(1);
    expect((await db()("rate_limits").count({ n: "*" }).first())!.n).toBeLessThan(before);
  });
});

describe("addressNetwork", () => {
  it("an IPv4 address is itself; an IPv6 address is its /64, however it is written", () => {
    expect(addressNetwork("203.0.113.9")).toBe("203.0.113.9");
    expect(addressNetwork("unknown")).toBe("unknown");
    for (const a of [
      "2001:db8:7:0::1",
      "2001:0DB8:0007:0000:ffff:ffff:ffff:ffff",
      "2001:db8:7::",
      "2001:db8:7:0:1:2:3.4.5.6",
      "2001:db8:7::1%eth0",
    ]) {
      expect(addressNetwork(a), a).toBe("2001:db8:7:0::/64");
    }
    expect(addressNetwork("2001:db8:7:1::1")).toBe("2001:db8:7:1::/64");
    expect(addressNetwork("::1")).toBe("0:0:0:0::/64");
    expect(addressNetwork("::ffff:1.2.3.4")).toBe("0:0:0:0::/64");
    expect(addressNetwork("fe80::1:2:3:4")).toBe("fe80:0:0:0::/64");
  });
});
