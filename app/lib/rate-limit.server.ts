// Fixed-window failure counters kept in memory: this app runs as one process (see README), and
// forgetting counts on restart is acceptable for slowing down password guessing.

type Window = { count: number; resetAt: number };

export class FailureLimiter {
  private windows = new Map<string, Window>();
  constructor(private windowMs: () => number) {}

  /** Milliseconds until `key` may try again, or 0 when it is under `max`. */
  blockedFor(key: string, max: number, now = Date.now()): number {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) return 0;
    return w.count >= max ? w.resetAt - now : 0;
  }

  fail(key: string, now = Date.now()): void {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + this.windowMs() });
      if (this.windows.size > 50_000) this.sweep(now);
    } else {
      w.count += 1;
    }
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}
