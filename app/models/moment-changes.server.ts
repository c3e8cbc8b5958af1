import { insertedId, nowIso, type Db } from "~/lib/db.server";
import type { KidRow, MomentPhotoRow, MomentRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { STORY_MESSAGES, type FormVariant, type MomentInput, type StoryInput } from "~/forms/moment";
import { defaultTakenOn, takenOnProblem } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { photoTakenOn } from "~/images/exif.server";
import { withImageTransaction, withNewImages } from "~/images/storage.server";
import { fileDigest, type UploadedFile } from "~/images/multipart.server";
import { ACCESS_MESSAGES, requireKid, requireMoment } from "./access.server";
import { invalidField, notFound, type Refusal, type Result } from "./refusal";
import { submissionOnce } from "./submissions.server";

import {
  discardAll,
  photosOf,
  planPhotos,
  readExisting,
  slotField,
  writePhotos,
  type PhotoUpload,
} from "./moment-photos.server";
import { clipsOfMoments } from "~/video/clips.server";
import { getMoment, type Moment } from "./moments.server";
import {
  checkCaptions,
  checkClips,
  clipIdsOf,
  clipsAdded,
  discardStoredClips,
  storeClips,
  writeCaptions,
  writeClips,
} from "./moment-clips.server";
import { notifyNewMoment } from "./notifications.server";
import { dropPendingPhotos, takePendingPhotos } from "./pending-photos.server";

// Adding, changing and deleting a moment (the kid's owner or a co-parent), with its date,
// milestone, audience and photos.

/**
 * The audience and poster columns of a new moment: the input's audience, or the kid's default
 * (read in the same statement); the poster, or the kid's owner for trusted callers (the seed).
 */
function newMomentAudience(conn: Db, kidId: number, input: MomentInput, postedBy?: number) {
  return {
    audience: input.audience ?? conn("kids").select("kids.default_audience").where("kids.id", kidId),
    posted_by: postedBy ?? conn("kids").select("kids.user_id").where("kids.id", kidId),
  };
}

/** An update's audience column: only when the input names one. */
const audienceChange = (input: MomentInput) => (input.audience ? { audience: input.audience } : {});

class Gone extends Error {}

const momentGone = (): Refusal => notFound(ACCESS_MESSAGES.momentNotFound);
const kidGone = (): Refusal => notFound(ACCESS_MESSAGES.kidNotFound);

/**
 * Adds a moment to a kid (the kid's owner or a co-parent). A photo is required, up to MAX_PHOTOS.
 * `token`: the form's one-time submission token; a repeat of a submission that succeeded answers
 * the moment it created (`replayed`) instead of a second one (app/models/submissions.server.ts).
 */
export async function createMoment(
  viewerId: number,
  kidId: number,
  input: MomentInput,
  upload: PhotoUpload,
  opts: { token?: unknown } = {},
): Promise<Result<{ moment: Moment; replayed?: true }>> {
  const photos = photosOf(upload);
  const refused = async (r: Refusal) => {
    await discardAll(photos);
    return r;
  };
  const access = await requireKid(viewerId, kidId, "change");
  if (!access.ok) return refused(access);
  const clips = photos.clips ?? [];
  const planned = planPhotos([], photos, input.title, "add", clips.length);
  if (!planned.ok) return refused(planned);
  const clipsChecked = checkClips(clips, planned.plan.length + clips.length);
  if (!clipsChecked.ok) return refused(clipsChecked);
  const digests = async () => Promise.all([...photos.added, ...clips].map((p) => fileDigest(p.file)));
  const pendingIds = (photos.pending ?? []).map((p) => p.id);
  const pendingSame = (photos.pending ?? []).map((p) => p.digest ?? p.id);
  const once = await submissionOnce(
    viewerId,
    "moment",
    opts.token,
    async () => [kidId, input, ...pendingSame, ...(await digests())],
    getMoment,
  );
  if (once.first) {
    await discardAll(photos);
    await dropPendingPhotos(viewerId, pendingIds);
    return { ok: true, moment: once.first, replayed: true };
  }
  const story = await storyColumns(kidId, input, "add", photos.pending?.[0]?.takenOn ?? photos.added[0]?.file ?? null);
  if (!story.ok) return refused(story);
  const kept = await storeClips(clips);
  if (!kept.ok) return refused(kept);
  const now = nowIso();
  try {
    const files = photos.added.map((p) => p.file);
    const result = await withNewImages(
      files,
      { kind: "moment", ownerId: access.ownerId },
      (i) => slotField(photos.added[i]!.slot),
      async (trx, imageIds, { dropImages, dropStoreKeys }) => {
        // still theirs to post to (a co-parent may have left meanwhile)
        if (!(await requireKid(viewerId, kidId, "change", trx)).ok) throw new Gone();
        const id = await insertMoment(
          trx,
          kidId,
          { ...input, ...story.columns },
          { imageId: null, createdAt: now, postedBy: viewerId },
        );
        const taken = await takePendingPhotos(trx, viewerId, kidId, pendingIds);
        await writePhotos(trx, id, planned.plan, imageIds, dropImages, taken);
        await writeClips(trx, id, kept.stored, { drop: dropImages, dropKeys: dropStoreKeys });
        await once.claim(trx, id);
        await notifyNewMoment(trx, id, viewerId);
        return id;
      },
    );
    if (!result.ok) {
      await discardStoredClips(kept.stored);
      return result;
    }
    clipsAdded(kept.stored);
    const moment = await getMoment(result.value);
    return moment ? { ok: true, moment } : kidGone();
  } catch (error) {
    await discardStoredClips(kept.stored);
    if (error instanceof Gone) return kidGone();
    const first = await once.winner(error);
    if (!first) throw error;
    await dropPendingPhotos(viewerId, pendingIds);
    return { ok: true, moment: first, replayed: true };
  }
}

// ---- the moment's date and milestone (docs/decisions/0028-moment-dates-and-feed.md) ----

const kidBirth = query<{ kidId: number }, Pick<KidRow, "name" | "birth_date">>((p, k) =>
  k("kids").where("kids.id", p("kidId")).first("kids.name", "kids.birth_date"),
);

/**
 * The date and milestone to write: the parent's date when given (refused outside [birth date − 1
 * year, today]); when adding without one, the photo's EXIF date (read before the pipeline strips
 * it) when it is in that range, else today in the configured time zone. Updating without a date or
 * a milestone leaves them as they are.
 */
async function storyColumns(
  kidId: number,
  input: StoryInput,
  variant: FormVariant,
  /** The first photo: its file, or (a pending photo, already processed) the EXIF date read when it came. */
  file: UploadedFile | string | null,
): Promise<Result<{ columns: StoryInput }>> {
  const columns: StoryInput = {};
  if (input.milestone !== undefined) columns.milestone = input.milestone;
  if (input.takenOn === undefined && variant === "update") return { ok: true, columns };
  const kid = await kidBirth.first({ kidId });
  if (!kid) return notFound(ACCESS_MESSAGES.kidNotFound);
  const now = today();
  if (input.takenOn !== undefined) {
    const problem = takenOnProblem(input.takenOn, kid.birth_date, now);
    const m = STORY_MESSAGES[variant];
    if (problem === "future") return invalidField("taken_on", m.takenOnFuture);
    if (problem === "too-early") return invalidField("taken_on", m.takenOnTooEarly(kid.name));
    if (problem) return invalidField("taken_on", m.takenOnInvalid);
    columns.takenOn = input.takenOn;
  } else {
    const exif = typeof file === "string" || !file ? file : await photoTakenOn(file.path);
    columns.takenOn = defaultTakenOn(exif, kid.birth_date, now);
  }
  return { ok: true, columns };
}

/** StoryInput → the columns that change. */
function storyRow(story: StoryInput): { taken_on?: string; milestone?: string | null } {
  return {
    ...(story.takenOn !== undefined ? { taken_on: story.takenOn } : {}),
    ...(story.milestone !== undefined ? { milestone: story.milestone } : {}),
  };
}

/**
 * The daily_logs row of a new moment, on `conn` (createMoment's transaction, or a caller's such as
 * the demo seed's), without any check. Answers its id.
 */
export async function insertMoment(
  conn: Db,
  kidId: number,
  input: MomentInput,
  { imageId, createdAt = nowIso(), postedBy }: { imageId: number | null; createdAt?: string; postedBy?: number },
): Promise<number> {
  const row = {
    kid_id: kidId,
    title: input.title,
    content: input.content,
    image_id: imageId,
    ...newMomentAudience(conn, kidId, input, postedBy),
  };
  const story = { taken_on: input.takenOn ?? createdAt.slice(0, 10), milestone: input.milestone ?? null };
  const photo = { photo_count: imageId ? 1 : 0 };
  const id = insertedId(
    await conn("daily_logs")
      .insert({ ...row, ...story, ...photo, created_at: createdAt, updated_at: createdAt })
      .returning("id"),
  );
  if (imageId)
    await conn("moment_photos").insert({ daily_log_id: id, image_id: imageId, position: 0, alt: input.title });
  return id;
}

/**
 * Updates a moment (the kid's owner or a co-parent); `created_at` stays. Its photos change as
 * `upload` says (see MomentPhotos); photos that go are deleted (rows in the transaction, files
 * after it). Any change moves `updated_at` (the pages' ETags are built from it).
 */
export async function updateMoment(
  viewerId: number,
  momentId: number,
  input: MomentInput,
  upload: PhotoUpload,
): Promise<Result<{ moment: Moment }>> {
  const photos = photosOf(upload);
  const refused = async (r: Refusal) => {
    await discardAll(photos);
    return r;
  };
  const access = await requireMoment(viewerId, momentId, "change");
  if (!access.ok) return refused(access);
  const clips = photos.clips ?? [];
  const clipsBefore = await clipIdsOf(momentId);
  const removeClips = (photos.removeClips ?? []).filter((id) => clipsBefore.includes(id));
  const clipsAfter = clipsBefore.length - removeClips.length + clips.length;
  const planned = planPhotos(await readExisting(momentId), photos, input.title, "update", clipsAfter);
  if (!planned.ok) return refused(planned);
  const clipsChecked = checkClips(clips, planned.plan.length + clipsAfter);
  if (!clipsChecked.ok) return refused(clipsChecked);
  const captions = checkCaptions(photos.clipCaptions ?? [], clipsBefore);
  if (!captions.ok) return refused(captions);
  const story = await storyColumns(access.kidId, input, "update", photos.added[0]?.file ?? null);
  if (!story.ok) return refused(story);
  const changes = {
    title: input.title,
    content: input.content,
    ...storyRow(story.columns),
    ...audienceChange(input),
    updated_at: nowIso(),
  };
  // inside the write: still theirs to change (a co-parent may have left meanwhile)
  const stillParent = async (trx: Db) => (await requireMoment(viewerId, momentId, "change", trx)).ok;
  const files = photos.added.map((p) => p.file);
  const kept = await storeClips(clips);
  if (!kept.ok) return refused(kept);
  try {
    const result = await withNewImages(
      files,
      { kind: "moment", ownerId: access.ownerId },
      (i) => slotField(photos.added[i]!.slot),
      async (trx, imageIds, { dropImages, dropStoreKeys }) => {
        const moment: Pick<MomentRow, "kid_id" | "image_id"> | undefined = await trx("daily_logs")
          .where("daily_logs.id", momentId)
          .first("daily_logs.id");
        if (!moment || !(await stillParent(trx))) throw new Gone();
        await trx("daily_logs").where("id", momentId).update(changes);
        const pendingIds = (photos.pending ?? []).map((p) => p.id);
        const taken = await takePendingPhotos(trx, viewerId, access.kidId, pendingIds);
        await writePhotos(trx, momentId, planned.plan, imageIds, dropImages, taken);
        await writeClips(trx, momentId, kept.stored, {
          remove: removeClips,
          drop: dropImages,
          dropKeys: dropStoreKeys,
        });
        await writeCaptions(trx, momentId, captions.changes);
      },
    );
    if (!result.ok) {
      await discardStoredClips(kept.stored);
      return result;
    }
    clipsAdded(kept.stored);
  } catch (error) {
    await discardStoredClips(kept.stored);
    if (error instanceof Gone) return momentGone();
    throw error;
  }
  const moment = await getMoment(momentId);
  return moment ? { ok: true, moment } : momentGone();
}

/**
 * Deletes a moment (the kid's owner or a co-parent) with its likes and comments (foreign-key cascades) and its photo
 * (row in the same transaction, files after the commit). Answers the kid's id.
 */
export async function deleteMoment(viewerId: number, momentId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  if (!access.ok) return access;
  const kidId = await withImageTransaction(async (trx, { dropImages, dropStoreKeys }) => {
    const moment: Pick<MomentRow, "kid_id" | "image_id"> | undefined = await trx("daily_logs")
      .where({ "daily_logs.id": momentId })
      .first("daily_logs.kid_id", "daily_logs.image_id");
    if (!moment || !(await requireMoment(viewerId, momentId, "change", trx)).ok) return null;
    const photos: MomentPhotoRow["image_id"][] = await trx("moment_photos")
      .where("daily_log_id", momentId)
      .pluck("image_id");
    const clips = await clipsOfMoments(trx, [momentId]);
    await trx("daily_logs").where("id", momentId).delete();
    await dropImages([moment.image_id, ...photos, ...clips.posterIds]);
    dropStoreKeys(clips.keys);
    return moment.kid_id;
  });
  return kidId === null ? momentGone() : { ok: true, kidId };
}
