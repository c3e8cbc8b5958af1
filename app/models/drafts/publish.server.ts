import { nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { DraftPhotoRow, DraftRow } from "~/lib/tables-drafts";
import type { KidRow } from "~/lib/tables";
import { takenOnProblem } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { altProblem, draftAltField, DRAFT_FORM_MESSAGES } from "~/forms/draft";
import { STORY_MESSAGES } from "~/forms/moment";
import { DRAFT_MESSAGES, requireDraft, requireKid, whereDraftAuthor } from "../access.server";
import { insertMoment } from "../moment-changes.server";
import { notifyNewMoment } from "../notifications.server";
import { invalid, notFound, type Refusal, type Result } from "../refusal";

// Publishing draft moments (docs/decisions/0065-drafts.md): a draft becomes an ordinary moment of
// its day, with its photos (the same images rows: nothing is processed again), and everyone who
// may see it is told as for any new moment. What a moment needs is asked now: its text, an alt
// text for each photo when there are several, a date from a year before the kid's birth to today.

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

type DraftFields = Pick<DraftRow, "id" | "kid_id" | "title" | "content" | "taken_on" | "audience" | "milestone">;

/** Why the draft cannot be published yet, by field, or null. */
function problems(
  draft: DraftFields,
  photos: Pick<DraftPhotoRow, "id" | "alt">[],
  kid: Pick<KidRow, "name" | "birth_date">,
): Refusal | null {
  const errors: Record<string, string[]> = {};
  if (!draft.content.trim()) errors.content = [DRAFT_FORM_MESSAGES.contentRequired];
  const m = STORY_MESSAGES.update;
  const date = takenOnProblem(draft.taken_on, kid.birth_date, today());
  if (date === "future") errors.taken_on = [m.takenOnFuture];
  else if (date === "too-early") errors.taken_on = [m.takenOnTooEarly(kid.name)];
  else if (date) errors.taken_on = [m.takenOnInvalid];
  photos.forEach((p, i) => {
    const problem = altProblem(p.alt, i + 1, photos.length > 1);
    if (problem) errors[draftAltField(p.id)] = [problem];
  });
  const first = Object.values(errors)[0]?.[0];
  return first ? invalid(first, errors) : null;
}

/** One draft → one moment, inside `trx`. Answers the moment's id and kid's; throws Refused. */
async function publishIn(trx: Db, viewerId: number, draftId: number): Promise<{ momentId: number; kidId: number }> {
  const grant = await requireDraft(viewerId, draftId, trx);
  if (!grant.ok) throw new Refused(grant);
  // still theirs to post to (a co-parent may have left since the photos were added)
  const kidAccess = await requireKid(viewerId, grant.kidId, "change", trx);
  if (!kidAccess.ok) throw new Refused(kidAccess);
  const draft: DraftFields | undefined = await trx("drafts")
    .where("id", draftId)
    .first("id", "kid_id", "title", "content", "taken_on", "audience", "milestone");
  const kid: Pick<KidRow, "name" | "birth_date"> | undefined = await trx("kids")
    .where("id", grant.kidId)
    .first("name", "birth_date");
  const photos: Pick<DraftPhotoRow, "id" | "alt" | "image_id">[] = await trx("draft_photos")
    .where("draft_id", draftId)
    .orderBy([{ column: "position" }, { column: "id" }])
    .select("id", "alt", "image_id");
  if (!draft || !kid) throw new Refused(notFound(DRAFT_MESSAGES.draftNotFound));
  const refusal = problems(draft, photos, kid);
  if (refusal) throw new Refused(refusal);
  const momentId = await insertMoment(
    trx,
    grant.kidId,
    {
      title: draft.title,
      content: draft.content.trim(),
      takenOn: draft.taken_on,
      milestone: draft.milestone,
      ...(draft.audience ? { audience: draft.audience } : {}),
    },
    { imageId: null, createdAt: nowIso(), postedBy: viewerId },
  );
  if (photos.length) {
    // one photo without an alt text gets the title, as a moment's
    await trx("moment_photos").insert(
      photos.map((p, position) => ({
        daily_log_id: momentId,
        image_id: p.image_id,
        position,
        alt: p.alt || draft.title,
      })),
    );
    await trx("daily_logs").where("id", momentId).update({ image_id: photos[0]!.image_id, photo_count: photos.length });
    // a moment's photos follow the kid's owner's privacy rule (app/images/storage.server.ts)
    await trx("images")
      .whereIn(
        "id",
        photos.map((p) => p.image_id),
      )
      .update({ owner_id: kidAccess.ownerId });
  }
  await trx("drafts").where("id", draftId).delete();
  await notifyNewMoment(trx, momentId, viewerId);
  return { momentId, kidId: grant.kidId };
}

/** Publishes one draft of the author's. Refused: not found, or invalid with the fields still to fill. */
export async function publishDraft(
  viewerId: number,
  draftId: number,
): Promise<Result<{ momentId: number; kidId: number }>> {
  try {
    return { ok: true, ...(await writeTransaction((trx) => publishIn(trx, viewerId, draftId))) };
  } catch (error) {
    if (error instanceof Refused) return error.refusal;
    throw error;
  }
}

const kidDraftIds = query<{ viewer: number; kidId: number }, Pick<DraftRow, "id">>((p, k) =>
  whereDraftAuthor(k("drafts").where("drafts.kid_id", p("kidId")), p("viewer"))
    .orderBy([{ column: "drafts.taken_on" }, { column: "drafts.id" }])
    .select("drafts.id"),
);

export type PublishAll = {
  /** the new moments' ids */
  published: number[];
  /** the drafts that need changes first, with why */
  unfinished: { draftId: number; refusal: Refusal }[];
};

/** Publishes each of the author's drafts for the kid that is ready (each on its own), oldest day first; the others stay. */
export async function publishAllDrafts(viewerId: number, kidId: number): Promise<Result<PublishAll>> {
  const access = await requireKid(viewerId, kidId, "change");
  if (!access.ok) return access;
  const ids = await kidDraftIds.all({ viewer: viewerId, kidId });
  const out: PublishAll = { published: [], unfinished: [] };
  for (const { id } of ids) {
    const one = await publishDraft(viewerId, id);
    if (one.ok) out.published.push(one.momentId);
    else out.unfinished.push({ draftId: id, refusal: one });
  }
  return { ok: true, ...out };
}
