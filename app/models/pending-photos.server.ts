import type { Db } from "~/lib/db.server";
import { nowIso } from "~/lib/db.server";
import type { ImageRow, PendingPhotoRow } from "~/lib/tables";
import { inList, query } from "~/lib/query.server";
import { photoTakenOn } from "~/images/exif.server";
import type { SlotFile } from "~/images/multipart.server";
import { withImageTransaction, withNewImage } from "~/images/storage.server";
import { requireKid } from "./access.server";
import type { Result } from "./refusal";
import { PENDING_FIELD, pendingAltField } from "~/forms/moment";
import { MAX_PHOTOS } from "~/images/limits";

// Photos chosen in a moment's form that wait for their alt texts (docs/decisions/0067-one-photo-control.md).
// Every photo the add and update pages receive is stored (processed, one after another) as a
// pending photo of the parent who sent it: an images row no moment lists, so nobody but its sender
// can see it (app/models/access/guards.server.ts, canViewImage). The form then names them by id
// (`pending_<id>_alt`, their alt texts) and the moment's add or update takes them in its
// transaction. A form refused for any reason keeps them: the page shows them again, nothing to
// choose again. Those never taken are swept after PENDING_HOURS.

export const PENDING_HOURS = 24;

/** A pending photo as the forms show it (the fields of a Photo, to preview it). */
export type PendingPhoto = Pick<ImageRow, "key" | "width" | "height" | "placeholder"> & {
  id: number;
  widths: number[];
  takenOn: string | null;
};

const PENDING_ID = /^[1-9][0-9]{0,15}$/;

/** The pending photos a form names (`pending`: their ids in order), each with its alt text as sent. */
export function pendingFromFields(fields: Record<string, string | undefined>): { id: number; alt: string }[] {
  const ids = (fields[PENDING_FIELD] ?? "").split(",").map((v) => v.trim());
  const unique = [...new Set(ids.filter((v) => PENDING_ID.test(v)).map(Number))].slice(0, MAX_PHOTOS);
  return unique.map((id) => ({ id, alt: fields[pendingAltField(id)] ?? "" }));
}

/** A file that is not an acceptable photo: its slot (1-based), the name it came with, why. */
export type RefusedFile = { slot: number; filename: string; messages: string[] };

/**
 * Stores `files` (a form's new photos, in order) as pending photos of `viewerId` for `kidId` (its
 * owner or a co-parent). Each acceptable photo is kept; each refused one (not a photo, too many
 * pixels…) is answered with its messages, and the others stay kept. Consumes every file.
 */
export async function keepPendingPhotos(
  viewerId: number,
  kidId: number,
  files: SlotFile[],
): Promise<Result<{ kept: (PendingPhoto & { slot: number })[]; refused: RefusedFile[] }>> {
  if (!files.length) return { ok: true, kept: [], refused: [] };
  try {
    const access = await requireKid(viewerId, kidId, "change");
    if (!access.ok) return access;
    const kept: (PendingPhoto & { slot: number })[] = [];
    const refused: RefusedFile[] = [];
    // one after another: memory holds one photo's work at a time, as for a single upload
    for (const { file, slot } of files) {
      const takenOn = await photoTakenOn(file.path);
      const created = nowIso();
      const stored = await withNewImage(file, { kind: "moment", ownerId: access.ownerId }, async (trx, imageId) => {
        await trx("pending_photos").insert({
          image_id: imageId,
          uploader_id: viewerId,
          kid_id: kidId,
          taken_on: takenOn,
          created_at: created,
        });
      });
      if (!stored.ok) {
        const messages = Object.values(stored.fieldErrors ?? {}).flat();
        refused.push({ slot, filename: file.filename, messages: messages.length ? messages : [stored.message ?? ""] });
        continue;
      }
      const { key, width, height, widths, placeholder } = stored.image;
      kept.push({ id: stored.imageId, key, width, height, widths, placeholder, takenOn, slot });
    }
    return { ok: true, kept, refused };
  } finally {
    await Promise.all(files.map((f) => f.file.discard()));
  }
}

type PendingListRow = Pick<PendingPhotoRow, "image_id" | "taken_on"> &
  Pick<ImageRow, "key" | "width" | "height" | "widths" | "placeholder">;

const pendingRows = query<{ viewer: number; kidId: number; ids: number[] }, PendingListRow>((p, k) =>
  inList(
    k("pending_photos")
      .join("images", "images.id", "pending_photos.image_id")
      .where("pending_photos.uploader_id", p("viewer"))
      .andWhere("pending_photos.kid_id", p("kidId")),
    "pending_photos.image_id",
    p("ids"),
  ).select(
    "pending_photos.image_id",
    "pending_photos.taken_on",
    "images.key",
    "images.width",
    "images.height",
    "images.widths",
    "images.placeholder",
  ),
);

/** Of these ids, the pending photos `viewerId` sent for `kidId`, in the order of `ids` (others are left out). */
export async function readPendingPhotos(
  viewerId: number,
  kidId: number,
  ids: number[],
  conn?: Db,
): Promise<PendingPhoto[]> {
  if (!ids.length) return [];
  const rows = await pendingRows.all({ viewer: viewerId, kidId, ids }, { conn });
  const byId = new Map(rows.map((r) => [r.image_id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    const widths = r.widths.split(",").map(Number);
    return [
      { id, key: r.key, width: r.width, height: r.height, widths, placeholder: r.placeholder, takenOn: r.taken_on },
    ];
  });
}

/**
 * Inside a moment's add or update transaction: takes these pending photos (they stop being
 * pending, their images rows stay). Answers the ids taken: a photo swept or taken meanwhile is not.
 */
export async function takePendingPhotos(trx: Db, viewerId: number, kidId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const found: number[] = await trx("pending_photos")
    .where({ uploader_id: viewerId, kid_id: kidId })
    .whereIn("image_id", ids)
    .pluck("image_id");
  if (found.length) await trx("pending_photos").whereIn("image_id", found).delete();
  return found.map(Number);
}

/** Removes these pending photos of `viewerId` (a repeated submission's, which the first one's moment makes needless). */
export async function dropPendingPhotos(viewerId: number, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await withImageTransaction(async (trx, { dropImages }) => {
    const found: number[] = await trx("pending_photos")
      .where("uploader_id", viewerId)
      .whereIn("image_id", ids)
      .pluck("image_id");
    await dropImages(found);
  });
}

/** Removes the pending photos older than PENDING_HOURS (rows now, files after the commit). Answers how many. */
export async function sweepPendingPhotos(now = Date.now()): Promise<number> {
  const before = new Date(now - PENDING_HOURS * 3600 * 1000).toISOString();
  return withImageTransaction(async (trx, { dropImages }) => {
    const ids: number[] = await trx("pending_photos").where("created_at", "<", before).pluck("image_id");
    await dropImages(ids);
    return ids.length;
  });
}
