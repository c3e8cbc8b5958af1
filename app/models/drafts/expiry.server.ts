import type { DraftRow } from "~/lib/tables-drafts";
import { config } from "~/lib/config.server";
import { query } from "~/lib/query.server";
import { writeTransaction } from "~/lib/db.server";
import { withImageTransaction } from "~/images/storage.server";
import { dropDrafts } from "./edit.server";

// Drafts nobody touched for DRAFT_DAYS go with their photos (docs/decisions/0065-drafts.md): a
// part of the housekeeping every ten minutes (app/models/maintenance.server.ts, run once per
// machine under its job lease), in batches, each batch one transaction; the files go after it.

const BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

const expired = query<{ before: string }, Pick<DraftRow, "id">>((p, k) =>
  k("drafts")
    .where("drafts.updated_at", "<", p("before"))
    .orderBy("drafts.updated_at")
    .limit(BATCH)
    .select("drafts.id"),
);

/**
 * Removes the drafts last changed before `now` − DRAFT_DAYS with their photos, and the lists of
 * refused files as old. Answers how many drafts.
 */
export async function sweepExpiredDrafts(now = Date.now()): Promise<number> {
  const before = new Date(now - config().draftDays * DAY_MS).toISOString();
  await writeTransaction((trx) => trx("draft_refusals").where("created_at", "<", before).delete());
  let removed = 0;
  for (;;) {
    const ids = (await expired.all({ before })).map((r) => r.id);
    if (!ids.length) return removed;
    await withImageTransaction((trx, { dropImages }) => dropDrafts(trx, ids, dropImages));
    removed += ids.length;
    if (ids.length < BATCH) return removed;
  }
}
