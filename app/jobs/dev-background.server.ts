import { startDigestScheduler } from "~/mail/digest.server";
import { startMailSender } from "~/mail/sender.server";
import { startClipPreparer } from "~/video/worker.server";
import { runScheduledJobs } from "./maintenance.server";

// The background work of `npm run dev` (docs/architecture.md "Layers"). The production server
// (server/index.mjs) starts the mail sender, the digest scheduler and the periodic jobs' timer
// itself; under `react-router dev` there is no such server, so app/entry.server.tsx calls
// startDevBackground when it is evaluated in Vite's dev mode (never in a production build: the call
// sits behind import.meta.env.DEV, which the build replaces by false).
//
// Vite evaluates the entry again after an edit (hot module replacement), in the same process. The
// running set is kept on globalThis, so a new evaluation first stops the set the last one started:
// one mail sender and one digest scheduler per process, whatever the number of reloads (and their
// claims in the database are atomic anyway, docs/decisions/0025-mail-queue.md).

const JOBS_TICK_MS = 60 * 1000;

type Running = { stop(): Promise<void> };
type Slot = { current: Promise<Running> | null; live: number };

const KEY = Symbol.for("sweet-moments.dev-background");

function slot(): Slot {
  const g = globalThis as unknown as Record<symbol, Slot | undefined>;
  return (g[KEY] ??= { current: null, live: 0 });
}

/** Starts the sender, the digest scheduler and the jobs' timer, after stopping the set started before (if any). */
export function startDevBackground(): Promise<void> {
  const s = slot();
  const previous = s.current;
  s.current = (async () => {
    if (previous) await (await previous).stop();
    const mail = startMailSender();
    const clips = startClipPreparer();
    const digests = startDigestScheduler();
    void runScheduledJobs(); // never throws
    const timer = setInterval(() => void runScheduledJobs(), JOBS_TICK_MS);
    timer.unref();
    s.live += 1;
    return {
      async stop() {
        clearInterval(timer);
        await digests.stop();
        await mail.stop();
        await clips.stop();
        s.live -= 1;
      },
    };
  })();
  return s.current.then(() => undefined);
}

/** Stops the running set (tests; a dev server that shuts down simply exits). */
export async function stopDevBackground(): Promise<void> {
  const s = slot();
  const current = s.current;
  s.current = null;
  if (current) await (await current).stop();
}

/** How many sets are running in this process (0 or 1). */
export function devBackgroundsRunning(): number {
  return slot().live;
}
