import { sweepTempUploads } from "~/images/multipart.server";
import { sweepUploads } from "~/images/storage.server";
import { purgeSentMail } from "~/mail/queue.server";
import { purgeSubmissions } from "./submissions.server";
import { sweepExpiredDrafts } from "./drafts/expiry.server";
import { sweepPendingPhotos } from "./pending-photos.server";

// Housekeeping of a running server, every ten minutes once per machine (a job of
// app/jobs/maintenance.server.ts, asked for by server/index.mjs): temp upload files left by a
// crash or a failed removal (a request removes its own when it ends: app/web/uploads.server.ts),
// photo folders no row refers to, photos chosen in a moment's form but never saved with it (after
// PENDING_HOURS, app/models/pending-photos.server.ts), one-time submission tokens older than a day,
// mail sent more than SENT_MAIL_KEEP_DAYS ago (a digest holds photo thumbnails), and draft moments
// untouched for DRAFT_DAYS with their photos (docs/decisions/0065-drafts.md). Never throws.

export const MAINTENANCE_EVERY_MS = 10 * 60 * 1000;

export type MaintenanceReport = {
  tempUploads: number;
  uploads: number;
  pendingPhotos: number;
  submissions: number;
  sentMail: number;
  drafts: number;
};

/** One round of housekeeping. Every part runs even when another fails (failures are logged). */
export async function runMaintenance(): Promise<MaintenanceReport> {
  const part = async (name: string, fn: () => Promise<number>) => {
    try {
      return await fn();
    } catch (error) {
      console.error(`[maintenance] ${name} failed`, error);
      return 0;
    }
  };
  return {
    tempUploads: await part("temp uploads", () => sweepTempUploads()),
    uploads: await part("uploads", () => sweepUploads()),
    pendingPhotos: await part("pending photos", () => sweepPendingPhotos()),
    submissions: await part("submission tokens", () => purgeSubmissions()),
    sentMail: await part("sent mail", () => purgeSentMail()),
    drafts: await part("expired drafts", () => sweepExpiredDrafts()),
  };
}
