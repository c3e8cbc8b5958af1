import { claimNextMail, markMailFailed, markMailSent, onMailQueued } from "./queue.server";
import { closeTransport, deliver } from "./transport.server";

// The sender: runs in the server process (server/index.mjs starts it through the build's entry),
// one message at a time. It polls the queue (other processes may add rows) and is woken at once by
// a message queued in this process. Several server processes may each run one: claims are atomic
// (./queue.server.ts).

export type SendOutcome = { sent: number; failed: number };

/** Sends every message due now, one after another; answers how many went out and how many failed. */
export async function sendDueMail(now: () => Date = () => new Date()): Promise<SendOutcome> {
  const outcome = { sent: 0, failed: 0 };
  for (;;) {
    const mail = await claimNextMail(now());
    if (!mail) return outcome;
    try {
      await deliver(mail);
    } catch (error) {
      outcome.failed += 1;
      console.error(
        `[mail] sending ${mail.kind} #${mail.id} failed (attempt ${mail.attempts}), will retry: ${(error as Error)?.message ?? error}`,
      );
      await markMailFailed(mail, error, now());
      continue;
    }
    outcome.sent += 1;
    if (!(await markMailSent(mail)))
      console.error(
        `[mail] #${mail.id} was sent but its claim had been taken over (a repeat with the same Message-ID may follow)`,
      );
  }
}

export type MailSender = {
  stop(): Promise<void> /** Resolves after the current or next round has finished. */;
  idle(): Promise<void>;
};

/** Starts the background sender: a round now, on every message queued here, and every `pollMs`. */
export function startMailSender({ pollMs = 5_000 }: { pollMs?: number } = {}): MailSender {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let waiters: (() => void)[] = [];
  const round = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = sendDueMail()
      .then(() => undefined)
      .catch((error) => console.error("[mail] sender round failed", error))
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          round();
        } else {
          const w = waiters;
          waiters = [];
          for (const resolve of w) resolve();
        }
      });
  };
  const unsubscribe = onMailQueued(() => queueMicrotask(round));
  const timer = setInterval(round, pollMs);
  timer.unref();
  round();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      await running;
      closeTransport();
    },
    idle() {
      if (!running) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
