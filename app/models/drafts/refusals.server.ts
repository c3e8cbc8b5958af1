import { nowIso, writeTransaction } from "~/lib/db.server";
import type { DraftRefusalRow } from "~/lib/tables-drafts";
import { query } from "~/lib/query.server";
import { whereDraftAuthor } from "../access.server";

// What the author's last "Add photos" for a kid did not take, and why (docs/decisions/0065-drafts.md):
// the review page lists it until the next add, a dismissal, or DRAFT_DAYS (the drafts' sweep).

/** A file that did not become a draft photo, and why (in words for the parent). */
export type RefusedFile = { name: string; reason: string };

const MAX_KEPT = 500;

/** Replaces the list of the author's last add for the kid with `refused`. */
export async function noteRefused(authorId: number, kidId: number, refused: RefusedFile[]): Promise<void> {
  const now = nowIso();
  await writeTransaction(async (trx) => {
    await trx("draft_refusals").where({ user_id: authorId, kid_id: kidId }).delete();
    if (refused.length)
      await trx("draft_refusals").insert(
        refused.slice(0, MAX_KEPT).map((r) => ({
          user_id: authorId,
          kid_id: kidId,
          name: Array.from(r.name).slice(0, 255).join(""),
          reason: Array.from(r.reason).slice(0, 250).join(""),
          created_at: now,
        })),
      );
  });
}

// the same rule as every draft: the author's alone
const refusalsOf = query<{ viewer: number; kidId: number }, Pick<DraftRefusalRow, "name" | "reason">>((p, k) =>
  whereDraftAuthor(k("draft_refusals").where("draft_refusals.kid_id", p("kidId")), p("viewer"), "draft_refusals")
    .orderBy("draft_refusals.id")
    .select("draft_refusals.name", "draft_refusals.reason"),
);

/** The files the viewer's last add for the kid did not take. */
export async function lastRefused(viewerId: number, kidId: number): Promise<RefusedFile[]> {
  return refusalsOf.all({ viewer: viewerId, kidId });
}

/** Forgets that list (the review page's "Dismiss"). */
export async function dismissRefused(viewerId: number, kidId: number): Promise<void> {
  await noteRefused(viewerId, kidId, []);
}
