import type { Knex } from "knex";
import type { Db } from "~/lib/db.server";
import type { DraftRow } from "~/lib/tables-drafts";
import type { Tables } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { notFound, type Refusal } from "../refusal";

// Draft moments (docs/decisions/0065-drafts.md): a draft and its photos are seen and changed by
// their author alone. Not the kid's other parent, not the kid's owner, nobody: to anyone else a
// draft does not exist (not found, the same answer as for an id that was never used).

export const DRAFT_MESSAGES = { draftNotFound: "Draft not found" } as const;

/**
 * Limits a query of `drafts` (or of another table of a draft's author, `table`: what their last
 * add refused) to the rows of drafts `viewer` wrote (every list of drafts).
 */
export function whereDraftAuthor<Q extends Knex.QueryBuilder>(q: Q, viewer: unknown, table = "drafts"): Q {
  return q.where(`${table}.user_id`, viewer as number) as Q;
}

const ownDraft = query<{ id: number; viewer: number }, Pick<DraftRow, "id" | "kid_id" | "user_id">>((p, k) =>
  whereDraftAuthor(k("drafts").where("drafts.id", p("id")), p("viewer")).first(
    "drafts.id",
    "drafts.kid_id",
    "drafts.user_id",
  ),
);

export type DraftGrant = { ok: true; draftId: number; kidId: number };

/** May `viewerId` see and change this draft? Only its author; anyone else: not found. */
export async function requireDraft(viewerId: number, draftId: number, conn?: Db): Promise<DraftGrant | Refusal> {
  const row = await ownDraft.first({ id: draftId, viewer: viewerId }, { conn });
  return row ? { ok: true, draftId: row.id, kidId: row.kid_id } : notFound(DRAFT_MESSAGES.draftNotFound);
}

// a draft's photo: its author's only
const draftOfImage = query<{ imageId: number; viewer: number }, Pick<Tables["drafts"], "id">>((p, k) =>
  whereDraftAuthor(
    k("drafts").join("draft_photos", "draft_photos.draft_id", "drafts.id").where("draft_photos.image_id", p("imageId")),
    p("viewer"),
  ).first("drafts.id"),
);

/** Is this images row a photo of a draft `viewerId` wrote? */
export async function isOwnDraftImage(viewerId: number, imageId: number): Promise<boolean> {
  return Boolean(await draftOfImage.first({ imageId, viewer: viewerId }));
}
