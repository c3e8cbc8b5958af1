import crypto from "node:crypto";
import type { RateLimitRow } from "./tables";
import net from "node:net";
import { writeTransaction } from "./db.server";
import { query } from "./query.server";

// Abuse limits shared by every process and machine: fixed-window counters in the database table
// `rate_limits` (docs/decisions/0018-shared-limits-and-job-leases.md). The one API for log-in
// failures, sign-ups and the limits to come (sign-in links, invitations):
//
//   const { blocked, retryAfterMs } = await hit(`signup:address:${address}`, { max: 20, windowMs });
//   const wait = await blockedFor(`login:account:${email}`, 10);   // 0 = may go on
//   await reset(`login:pair:${email}|${address}`);
//
// A key's window starts at its first hit and lasts `windowMs`; a hit after it ends starts a new
// one. Keys are stored as their sha256, so the table holds no email or address in clear. Expired
// rows are deleted by the hourly jobs (purgeExpiredLimits).

export type Limit = { max: number; windowMs: number };

export type Hit = {
  /** Hits in the current window, this one included. */
  count: number;
  /** More than `max` hits in the window: the caller refuses this one. */
  blocked: boolean;
  /** Milliseconds until the window ends (when a blocked key may try again). */
  retryAfterMs: number;
};

/**
 * The part of a client address a per-address limit counts: an IPv4 address itself; an IPv6
 * address its /64 network (one household or server is given a whole /64 and can pick any address
 * in it, so counting single IPv6 addresses would let one machine step around the limit;
 * docs/decisions/0033-sign-up-enumeration.md). Anything else ("unknown") as it is.
 */
export function addressNetwork(address: string): string {
  const plain = address.split("%")[0]!; // a zone index (fe80::1%eth0)
  if (!net.isIPv6(plain)) return address;
  const [head = "", tail] = plain.toLowerCase().split("::");
  const part = (s: string) => (s ? s.split(":") : []);
  // an IPv4 tail (::ffff:1.2.3.4 style) is two groups; it only ever falls in the host half
  const groups =
    tail === undefined
      ? part(head)
      : [
          ...part(head),
          ...Array(8 - part(head).length - part(tail).length - (tail.includes(".") ? 1 : 0)).fill("0"),
          ...part(tail),
        ];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

function stored(key: string): string {
  return crypto.createHash("sha256").update(key).digest("hex");
}

function msUntil(iso: string, now: number): number {
  return Math.max(0, Date.parse(iso) - now);
}

/**
 * Counts one event for `key` (one atomic statement, on both engines: an insert, or on conflict
 * the next count of the live window or 1 of a new one) and answers where the key stands. `by`
 * counts several events at once (the photos of one upload).
 */
export async function hit(key: string, { max, windowMs }: Limit, by = 1): Promise<Hit> {
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const endsIso = new Date(now + windowMs).toISOString();
  const rows = await writeTransaction((trx) =>
    trx("rate_limits")
      .insert({ key: stored(key), count: by, window_ends_at: endsIso })
      .onConflict("key")
      .merge({
        count: trx.raw("case when rate_limits.window_ends_at <= ? then ? else rate_limits.count + ? end", [
          nowIso,
          by,
          by,
        ]),
        window_ends_at: trx.raw(
          "case when rate_limits.window_ends_at <= ? then ? else rate_limits.window_ends_at end",
          [nowIso, endsIso],
        ),
      })
      .returning(["count", "window_ends_at"]),
  );
  const row = rows[0] as Pick<RateLimitRow, "count" | "window_ends_at">;
  const count = row.count;
  return { count, blocked: count > max, retryAfterMs: msUntil(row.window_ends_at, now) };
}

const liveCount = query<{ key: string; now: string }, Pick<RateLimitRow, "count" | "window_ends_at">>((p, k) =>
  k("rate_limits").where("key", p("key")).andWhere("window_ends_at", ">", p("now")).first("count", "window_ends_at"),
);

/** Hits of `key` in its live window (0 when none). */
export async function count(key: string): Promise<number> {
  const row = await liveCount.first({ key: stored(key), now: new Date().toISOString() });
  return row ? row.count : 0;
}

/** Milliseconds until `key` may go on: 0 while it has fewer than `max` hits in its live window. */
export async function blockedFor(key: string, max: number): Promise<number> {
  const now = Date.now();
  const row = await liveCount.first({
    key: stored(key),
    now: new Date(now).toISOString(),
  });
  return row && row.count >= max ? msUntil(row.window_ends_at, now) : 0;
}

/** Forgets `key`'s count. */
export async function reset(key: string): Promise<void> {
  await writeTransaction((trx) => trx("rate_limits").where("key", stored(key)).delete());
}

/** Deletes the counters whose window has ended (the hourly jobs); answers how many. */
export async function purgeExpiredLimits(): Promise<number> {
  const nowIso = new Date().toISOString();
  return writeTransaction((trx) => trx("rate_limits").where("window_ends_at", "<=", nowIso).delete());
}
