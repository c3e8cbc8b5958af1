import fsp from "node:fs/promises";
import path from "node:path";
import { insertedId, nowIso, type Db } from "~/lib/db.server";
import type { DraftPhotoRow, DraftRow } from "~/lib/tables-drafts";
import { config } from "~/lib/config.server";
import { formatCalendarDate, type IsoDate } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { CONTENT_MAX } from "~/forms/moment";
import { photoTaken } from "~/images/exif.server";
import { MAX_PHOTOS } from "~/images/limits";
import { withNewImage } from "~/images/storage.server";
import { uploadedFile } from "~/images/temp-uploads.server";
import { ACCESS_MESSAGES, requireKid } from "../access.server";
import { notFound, type Result } from "../refusal";
import { photoDay, type PhotoDay } from "./days.server";
import { draftsOf, type Draft } from "./read.server";
import { noteRefused, type RefusedFile } from "./refusals.server";

// Many photos at once into draft moments (docs/decisions/0065-drafts.md): each photo goes to a
// draft of the day it was taken, at most MAX_PHOTOS per draft (the next photo of that day starts
// another draft). Photos are processed ONE AFTER ANOTHER through the same pipeline as a single
// upload (withNewImage: the same checks, the same stripping of every byte of metadata, the same
// bounded memory), and each one commits on its own with its draft row: a request cut off half way
// leaves the drafts it has filled so far and no file without a row.

/**
 * One file to add. `path`: a temporary file, consumed (removed) whatever happens. `takenAt`: when
 * it was taken, by another record than the photo's EXIF (an import's sidecar); it wins over EXIF.
 * `text`: a description, written into the draft's text.
 */
export type DraftItem = { name: string; path: string; takenAt?: Date; text?: string };

export type { RefusedFile } from "./refusals.server";

export type AddedPhotos = { drafts: Draft[]; refused: RefusedFile[] };

class KidGone extends Error {}

/** A name to keep and show: the file's own name, without folders, at most 255 characters. */
function fileName(name: string): string {
  return (
    Array.from(path.basename(name.replaceAll("\\", "/")).trim())
      .slice(0, 255)
      .join("") || "photo"
  );
}

/** The text of a draft once `text` (an import's description) is added to it. */
function withText(content: string, text: string | undefined): string {
  const t = text?.trim();
  if (!t || content.includes(t)) return content;
  const joined = content ? `${content}\n\n${t}` : t;
  return Array.from(joined).length <= CONTENT_MAX ? joined : content;
}

/** The author's draft of that kid and day with room for one more photo, or a new one. Inside the photo's transaction. */
async function draftWithRoom(trx: Db, authorId: number, kidId: number, day: IsoDate, now: string): Promise<number> {
  const room: Pick<DraftRow, "id"> | undefined = await trx("drafts")
    .leftJoin("draft_photos", "draft_photos.draft_id", "drafts.id")
    .where({ "drafts.user_id": authorId, "drafts.kid_id": kidId, "drafts.taken_on": day })
    .groupBy("drafts.id")
    .havingRaw("count(draft_photos.id) < ?", [MAX_PHOTOS])
    .orderBy("drafts.id")
    .first("drafts.id");
  if (room) return room.id;
  return insertedId(
    await trx("drafts")
      .insert({
        user_id: authorId,
        kid_id: kidId,
        taken_on: day,
        title: formatCalendarDate(day),
        content: "",
        audience: null,
        milestone: null,
        created_at: now,
        updated_at: now,
      })
      .returning("id"),
  );
}

/** Appends the photo `imageId` to the draft, with the item's text. */
async function appendPhoto(trx: Db, draftId: number, imageId: number, item: DraftItem, now: string): Promise<void> {
  const last: Pick<DraftPhotoRow, "position"> | undefined = await trx("draft_photos")
    .where("draft_id", draftId)
    .orderBy("position", "desc")
    .first("position");
  await trx("draft_photos").insert({
    draft_id: draftId,
    image_id: imageId,
    position: (last?.position ?? -1) + 1,
    alt: "",
    name: fileName(item.name),
  });
  const draft: Pick<DraftRow, "content"> | undefined = await trx("drafts").where("id", draftId).first("content");
  await trx("drafts")
    .where("id", draftId)
    .update({ content: withText(draft?.content ?? "", item.text), updated_at: now });
}

/**
 * Adds photos to `actorId`'s drafts for `kidId` (the kid's owner or a co-parent: the access
 * module's "change"), grouped by the day each was taken in the family's time zone (photoDay), in
 * the order they were taken, at most MAX_PHOTOS per draft. Consumes every item's file.
 *
 * Answers the drafts that got photos (newest day first) and the files that are no photo we take,
 * with the reason (`opts.refused` first), kept for the review page (noteRefused); or the access module's refusal (nothing is stored). Should the kid stop being
 * theirs half way: not found, and the photos stored before it stay in their drafts (the author's
 * alone, swept after DRAFT_DAYS; a removed kid's drafts go with it, app/models/kids.server.ts).
 */
export async function addPhotosToDrafts(
  actorId: number,
  kidId: number,
  items: DraftItem[],
  /** Files the caller refused already (the body's reader: too big), listed with the others. */
  opts: { refused?: RefusedFile[] } = {},
): Promise<Result<AddedPhotos>> {
  const files = await Promise.all(
    items.map(async (item) => {
      const size = await fsp.stat(item.path).then(
        (s) => s.size,
        () => 0,
      );
      return uploadedFile(item.path, size, fileName(item.name), "");
    }),
  );
  try {
    const access = await requireKid(actorId, kidId, "change");
    if (!access.ok) return access;
    const timeZone = config().timeZone;
    const uploadDay = today();
    // the days first: a header read each, no pixels decoded
    const placed: (PhotoDay & { index: number })[] = [];
    for (const [index, item] of items.entries()) {
      const taken = item.takenAt ? null : await photoTaken(item.path);
      placed.push({ index, ...photoDay(taken, item.takenAt, timeZone, uploadDay) });
    }
    placed.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.order - b.order || a.index - b.index));

    const touched = new Set<number>();
    const refused: RefusedFile[] = [...(opts.refused ?? [])];
    for (const { index, day } of placed) {
      const item = items[index]!;
      const file = files[index]!;
      if (!file.size) {
        refused.push({ name: file.filename, reason: "The file is empty." });
        await file.discard();
        continue;
      }
      const now = nowIso();
      const stored = await withNewImage(file, { kind: "moment", ownerId: actorId }, async (trx, imageId) => {
        // still theirs to post to (a co-parent may have left meanwhile)
        if (!(await requireKid(actorId, kidId, "change", trx)).ok) throw new KidGone();
        const draftId = await draftWithRoom(trx, actorId, kidId, day, now);
        await appendPhoto(trx, draftId, imageId, item, now);
        return draftId;
      }).catch((error: unknown) => {
        if (error instanceof KidGone) return null;
        throw error;
      });
      if (stored === null) return notFound(ACCESS_MESSAGES.kidNotFound);
      if (stored.ok) touched.add(stored.value);
      else
        refused.push({
          name: file.filename,
          reason: Object.values(stored.fieldErrors ?? {}).flat()[0] ?? stored.message ?? "",
        });
    }
    // the review page lists them until the next add (docs/decisions/0065-drafts.md)
    await noteRefused(actorId, kidId, refused);
    return { ok: true, drafts: await draftsOf(actorId, [...touched]), refused };
  } finally {
    await Promise.all(files.map((f) => f.discard()));
  }
}
