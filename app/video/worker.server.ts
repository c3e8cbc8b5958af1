import { claimLease, releaseLease, renewLease } from "~/jobs/schedule.server";
import { config } from "~/lib/config.server";
import { videoTools } from "./clips.server";
import { claimNextClip, clipsWaiting, machineLeaseName, type PrepareOutcome, prepareClip } from "./prepare.server";

// The clip preparer of a server process (server/index.mjs starts it through the build's entry,
// as it starts the mail sender). Every VIDEO_CHECK_SECONDS, and when a clip is posted in this
// process, it takes this machine's lease (so one ffmpeg runs per machine, however many processes)
// and prepares clips one after another until none is waiting. The machine's lease is short and
// renewed while a clip is being prepared: a process that dies hands it on within a minute; the
// clip it held is taken over once the clip's own claim expires.

const MACHINE_LEASE_MS = 60_000;
const RENEW_EVERY_MS = 20_000;
/** A clip's claim: the longest a transcode may take (app/video/transcode.server.ts) and a margin. */
const CLIP_LEASE_MS = 50 * 60_000;

/** Prepares waiting clips while this process holds the machine's lease; what became of each. */
export async function prepareWaitingClips(signal?: AbortSignal): Promise<PrepareOutcome[]> {
  const found = videoTools();
  if (!found || !(await clipsWaiting())) return [];
  const lease = machineLeaseName();
  if (!(await claimLease(lease, MACHINE_LEASE_MS))) return [];
  const renewal = setInterval(() => {
    renewLease(lease, MACHINE_LEASE_MS).catch((error) => console.error("[video] renewing the lease failed", error));
  }, RENEW_EVERY_MS);
  renewal.unref();
  const outcomes: PrepareOutcome[] = [];
  try {
    while (!signal?.aborted) {
      const clip = await claimNextClip(CLIP_LEASE_MS);
      if (!clip) break;
      outcomes.push(await prepareClip(clip, found, signal));
    }
    return outcomes;
  } finally {
    clearInterval(renewal);
    await releaseLease(lease).catch(() => {});
  }
}

export type ClipPreparer = {
  stop(): Promise<void>;
  /** Resolves once no round is running (tests). */
  idle(): Promise<void>;
  /** A clip was posted in this process: look now. */
  wake(): void;
};

let current: ClipPreparer | null = null;

/** Asks this process's preparer, if one runs, to look for clips now. */
export function wakeClipPreparer(): void {
  current?.wake();
}

/** Starts the background preparer: a round now, on wake(), and every VIDEO_CHECK_SECONDS. */
export function startClipPreparer({ pollMs = config().videoCheckSeconds * 1000 } = {}): ClipPreparer {
  let stopped = false;
  // stopping kills a transcode under way: its clip is handed back for another process
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  let again = false;
  const round = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = prepareWaitingClips(stopping.signal)
      .then(() => undefined)
      .catch((error) => console.error("[video] a round of preparing clips failed", error))
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          round();
        }
      });
  };
  const timer = setInterval(round, pollMs);
  timer.unref();
  round();
  const preparer: ClipPreparer = {
    async stop() {
      stopped = true;
      clearInterval(timer);
      stopping.abort();
      if (current === preparer) current = null;
      await running;
    },
    async idle() {
      while (running) await running;
    },
    wake: round,
  };
  current = preparer;
  return preparer;
}
