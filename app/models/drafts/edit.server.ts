import { insertedId, nowIso, type Db } from "~/lib/db.server";
import type { DraftPhotoRow, DraftRow } from "~/lib/tables-drafts";
import { altProblem, draftAltField, type DraftInput } from "~/forms/draft";
import { MAX_PHOTOS } from "~/images/limits";
import { withImageTransaction } from "~/images/storage.server";
import { DRAFT_MESSAGES, requireDraft } from "../access.server";
import { invalid, notFound, type Refusal, type Result } from "../refusal";
import { draftsOf, type Draft } from "./read.server";

// Changing draft moments (docs/decisions/0065-drafts.md): their fields and alt texts; moving a
// photo to another draft, splitting a draft, merging two, dropping a photo, discarding a draft.
// Only the author (the access module's requireDraft, asked again inside each transaction). A
// draft left without photos goes; a dropped photo's images row goes in the same transaction and
// its files after the commit.

export const DRAFT_EDIT_MESSAGES = {
  photoNotFound: "Photo not found",
  full: `That draft has ${MAX_PHOTOS} photos already: a moment holds at most ${MAX_PHOTOS}. Choose another or a new draft.`,
  tooManyTogether: (n: number) =>
    `Together they would have ${n} photos: a moment holds at most ${MAX_PHOTOS}. Move some photos first.`,
  sameDraft: "Choose another draft than this one.",
  otherKid: "Choose a draft for the same child.",
  splitFirst: "A draft cannot be split before its first photo.",
} as const;

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Runs `fn` in a write transaction (photos dropped: rows now, files after it); a thrown Refused is answered. */
async function change<T>(
  fn: (trx: Db, drop: (ids: number[]) => Promise<void>) => Promise<T>,
): Promise<Result<{ value: T }>> {
  try {
    const value = await withImageTransaction((trx, { dropImages }) => fn(trx, dropImages));
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Refused) return error.refusal;
    throw error;
  }
}

/** `change` for the review's actions, which answer the kid's id (the review page to go back to). */
async function kidChange(
  fn: (trx: Db, drop: (ids: number[]) => Promise<void>) => Promise<number>,
): Promise<Result<{ kidId: number }>> {
  const result = await change(fn);
  return result.ok ? { ok: true, kidId: result.value } : result;
}

/** The draft, the author's (inside the transaction), or throws its refusal. */
async function ownDraft(trx: Db, viewerId: number, draftId: number): Promise<{ draftId: number; kidId: number }> {
  const grant = await requireDraft(viewerId, draftId, trx);
  if (!grant.ok) throw new Refused(grant);
  return grant;
}

/** The draft a photo is in, the author's; anyone else's photo is not found. */
async function ownPhoto(trx: Db, viewerId: number, photoId: number) {
  const row: Pick<DraftPhotoRow, "id" | "draft_id" | "image_id"> | undefined = await trx("draft_photos")
    .where("id", photoId)
    .first("id", "draft_id", "image_id");
  if (!row || !(await requireDraft(viewerId, row.draft_id, trx)).ok)
    throw new Refused(notFound(DRAFT_EDIT_MESSAGES.photoNotFound));
  return row;
}

type Ordered = Pick<DraftPhotoRow, "id" | "image_id">;
const photosIn = (trx: Db, draftId: number): Promise<Ordered[]> =>
  trx("draft_photos")
    .where("draft_id", draftId)
    .orderBy([{ column: "position" }, { column: "id" }])
    .select("id", "image_id");

/** Writes `photos` as `draftId`'s photos in this order (moving rows from other drafts). */
async function placeAll(trx: Db, draftId: number, photos: Ordered[]): Promise<void> {
  for (const [position, photo] of photos.entries())
    await trx("draft_photos").where("id", photo.id).update({ draft_id: draftId, position });
}

/** Stamps the drafts as changed now (their expiry counts from here); drafts left without photos go. */
async function settle(trx: Db, draftIds: number[]): Promise<void> {
  for (const id of new Set(draftIds)) {
    const left = await photosIn(trx, id);
    if (left.length) {
      await placeAll(trx, id, left);
      await trx("drafts").where("id", id).update({ updated_at: nowIso() });
    } else await trx("drafts").where("id", id).delete();
  }
}

/**
 * Saves a draft's fields and its photos' alt texts (photos of other drafts are ignored). Unfinished
 * is fine (no text, no alt texts yet); malformed is refused with the fields' errors.
 */
export async function updateDraft(
  viewerId: number,
  draftId: number,
  input: DraftInput,
): Promise<Result<{ draft: Draft }>> {
  const result = await change(async (trx) => {
    await ownDraft(trx, viewerId, draftId);
    const photos = await photosIn(trx, draftId);
    const sent = new Map(input.alts.map((a) => [a.id, a.alt]));
    const errors: Record<string, string[]> = {};
    photos.forEach((p, i) => {
      const alt = sent.get(p.id);
      const problem = alt === undefined ? null : altProblem(alt, i + 1, false);
      if (problem) errors[draftAltField(p.id)] = [problem];
    });
    if (Object.keys(errors).length) throw new Refused(invalid(Object.values(errors)[0]![0], errors));
    await trx("drafts").where("id", draftId).update({
      title: input.title,
      content: input.content,
      taken_on: input.takenOn,
      milestone: input.milestone,
      audience: input.audience,
      updated_at: nowIso(),
    });
    for (const p of photos) {
      const alt = sent.get(p.id);
      if (alt !== undefined) await trx("draft_photos").where("id", p.id).update({ alt });
    }
  });
  if (!result.ok) return result;
  const [draft] = await draftsOf(viewerId, [draftId]);
  return draft ? { ok: true, draft } : notFound(DRAFT_MESSAGES.draftNotFound);
}

/** A new draft like `like` (same kid and day, its title, text, audience and milestone), without photos. */
async function copyDraft(trx: Db, likeId: number): Promise<number> {
  const like: Omit<DraftRow, "id"> | undefined = await trx("drafts")
    .where("id", likeId)
    .first("user_id", "kid_id", "taken_on", "title", "content", "audience", "milestone", "created_at", "updated_at");
  if (!like) throw new Refused(notFound(DRAFT_MESSAGES.draftNotFound));
  const now = nowIso();
  return insertedId(
    await trx("drafts")
      .insert({ ...like, created_at: now, updated_at: now })
      .returning("id"),
  );
}

/**
 * Moves a photo to the end of another of the author's drafts of the same kid (`to`), or to a new
 * draft of its draft's day ("new"). Answers the kid's id.
 */
export async function movePhoto(
  viewerId: number,
  photoId: number,
  to: number | "new",
): Promise<Result<{ kidId: number }>> {
  return kidChange(async (trx) => {
    const photo = await ownPhoto(trx, viewerId, photoId);
    const from = await ownDraft(trx, viewerId, photo.draft_id);
    let target: number;
    if (to === "new") target = await copyDraft(trx, from.draftId);
    else {
      if (to === from.draftId) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.sameDraft));
      const into = await ownDraft(trx, viewerId, to);
      if (into.kidId !== from.kidId) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.otherKid));
      target = into.draftId;
    }
    const there = await photosIn(trx, target);
    if (there.length >= MAX_PHOTOS) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.full));
    await placeAll(trx, target, [...there, photo]);
    await settle(trx, [from.draftId, target]);
    return from.kidId;
  });
}

/** Splits a draft before one of its photos: that photo and the ones after it go to a new draft of the same day. */
export async function splitDraft(
  viewerId: number,
  draftId: number,
  atPhotoId: number,
): Promise<Result<{ kidId: number }>> {
  return kidChange(async (trx) => {
    const from = await ownDraft(trx, viewerId, draftId);
    const photos = await photosIn(trx, draftId);
    const at = photos.findIndex((p) => p.id === atPhotoId);
    if (at < 0) throw new Refused(notFound(DRAFT_EDIT_MESSAGES.photoNotFound));
    if (at === 0) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.splitFirst));
    const target = await copyDraft(trx, draftId);
    await placeAll(trx, target, photos.slice(at));
    await settle(trx, [draftId, target]);
    return from.kidId;
  });
}

/**
 * Merges draft `draftId` into `intoId` (the author's, same kid): its photos go after the other's,
 * its text is added to the other's when different, and it goes. The merged draft keeps `intoId`'s
 * title, day, audience and milestone.
 */
export async function mergeDrafts(
  viewerId: number,
  draftId: number,
  intoId: number,
): Promise<Result<{ kidId: number }>> {
  return kidChange(async (trx) => {
    if (draftId === intoId) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.sameDraft));
    const from = await ownDraft(trx, viewerId, draftId);
    const into = await ownDraft(trx, viewerId, intoId);
    if (into.kidId !== from.kidId) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.otherKid));
    const [mine, theirs] = [await photosIn(trx, draftId), await photosIn(trx, intoId)];
    const total = mine.length + theirs.length;
    if (total > MAX_PHOTOS) throw new Refused(invalid(DRAFT_EDIT_MESSAGES.tooManyTogether(total)));
    const texts: Pick<DraftRow, "id" | "content">[] = await trx("drafts")
      .whereIn("id", [draftId, intoId])
      .select("id", "content");
    const [a, b] = [
      texts.find((t) => t.id === intoId)?.content ?? "",
      texts.find((t) => t.id === draftId)?.content ?? "",
    ];
    const content = !b || a.includes(b) ? a : a ? `${a}\n\n${b}` : b;
    await trx("drafts").where("id", intoId).update({ content });
    await placeAll(trx, intoId, [...theirs, ...mine]);
    await settle(trx, [draftId, intoId]);
    return into.kidId;
  });
}

/** Drops a photo from its draft (its images row now, its files after the commit); a draft left empty goes. */
export async function dropPhoto(viewerId: number, photoId: number): Promise<Result<{ kidId: number }>> {
  return kidChange(async (trx, drop) => {
    const photo = await ownPhoto(trx, viewerId, photoId);
    const from = await ownDraft(trx, viewerId, photo.draft_id);
    await drop([photo.image_id]);
    await settle(trx, [from.draftId]);
    return from.kidId;
  });
}

/** Discards a draft with its photos. Answers the kid's id. */
export async function discardDraft(viewerId: number, draftId: number): Promise<Result<{ kidId: number }>> {
  return kidChange(async (trx, drop) => {
    const draft = await ownDraft(trx, viewerId, draftId);
    await dropDrafts(trx, [draftId], drop);
    return draft.kidId;
  });
}

/** Deletes these drafts and their photos' images rows (files: after the caller's commit, through `drop`). */
export async function dropDrafts(trx: Db, draftIds: number[], drop: (ids: number[]) => Promise<void>): Promise<void> {
  if (!draftIds.length) return;
  const images: number[] = await trx("draft_photos").whereIn("draft_id", draftIds).pluck("image_id");
  await trx("drafts").whereIn("id", draftIds).delete();
  await drop(images);
}
