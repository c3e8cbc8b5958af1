import type { Db } from "~/lib/db.server";
import type { MomentPhotoRow, MomentRow } from "~/lib/tables";
import { query, type ParamFn } from "~/lib/query.server";
import type { Knex } from "knex";
import {
  ALT_MAX,
  altField,
  MOMENT_MESSAGES,
  PHOTO_MESSAGES,
  pendingAltField,
  photoField,
  type FormVariant,
} from "~/forms/moment";
import { isOneLine } from "~/lib/one-line";
import { IMAGE_FIELD, MAX_PHOTOS } from "~/images/limits";
import type { UploadedFile } from "~/images/multipart.server";
import { whereMomentVisibleTo } from "./access.server";
import type { NewMomentClip } from "./moment-clips.server";
import { invalid, invalidField, type Result } from "./refusal";

import { MOMENT_ORDER, olderThanCursor, type CursorParams } from "./moment-cursors.server";
import type { Moment } from "./moments.server";

// A moment's photos (docs/decisions/0030-several-photos-per-moment.md): what an add or update does
// to them, checked and written inside the change's transaction, and the photo viewer's neighbours.

/** A photo sent with a form or /api call: its file, its alt text as sent, its slot (1-based: the n-th `image` part). */
export type NewMomentPhoto = { file: UploadedFile; alt: string; slot: number };

/** What a form says of a photo the moment has: its new place (1-based), alt text, or removal. */
export type PhotoEdit = { id: number; position?: number; alt?: string; remove?: boolean };

/**
 * The photos of an add or update: the new ones, and (page update forms) what happens to the ones
 * there. Without `edits`, new photos replace all the old ones (the API's PUT, a single-photo
 * form); with them, old photos are kept, moved or removed and the new ones come after them.
 */
export type MomentPhotos = {
  added: NewMomentPhoto[];
  /**
   * Photos the form sent before, kept as pending (app/models/pending-photos.server.ts), each with its
   * alt text as sent, its EXIF date and (when it came with this request) its file's digest, which
   * the one-time token compares: they come after the kept ones and before `added`.
   */
  pending?: { id: number; alt: string; takenOn?: string | null; digest?: string }[];
  edits?: PhotoEdit[];
  /** New clips (docs/decisions/0064-video-clips.md), and the ids of the moment's clips to remove. */
  clips?: NewMomentClip[];
  removeClips?: number[];
  /** New captions of the moment's clips, as the parent's timed lines (app/video/captions.ts). */
  clipCaptions?: { id: number; text: string }[];
};

/** A single file (the single-photo callers) or the photos of a form. */
export type PhotoUpload = UploadedFile | null | MomentPhotos;

export function photosOf(upload: PhotoUpload): MomentPhotos {
  if (!upload) return { added: [] };
  return "added" in upload ? upload : { added: [{ file: upload, alt: "", slot: 1 }] };
}

export async function discardAll(photos: MomentPhotos): Promise<void> {
  await Promise.all([...photos.added, ...(photos.clips ?? [])].map((p) => p.file.discard()));
}

type ExistingPhoto = Pick<MomentPhotoRow, "id" | "image_id" | "alt">;
/**
 * One photo of the moment after the change and its alt text: an images row it has, a pending photo
 * it takes (`pending`), or the i-th new photo.
 */
export type PlannedPhoto = { imageId: number; alt: string; pending?: true } | { added: number; alt: string };

const existingPhotos = query<{ momentId: number }, ExistingPhoto>((p, k) =>
  k("moment_photos")
    .where("moment_photos.daily_log_id", p("momentId"))
    .orderBy([{ column: "moment_photos.position" }, { column: "moment_photos.id" }])
    .select("moment_photos.id", "moment_photos.image_id", "moment_photos.alt"),
);

const legacyPhoto = query<{ momentId: number }, Pick<MomentRow, "image_id" | "title">>((p, k) =>
  k("daily_logs").where("daily_logs.id", p("momentId")).first("daily_logs.image_id", "daily_logs.title"),
);

/** The moment's photos in order; a row written without moment_photos (image_id only) counts as its one photo. */
export async function readExisting(momentId: number, conn?: Db): Promise<ExistingPhoto[]> {
  const rows = await existingPhotos.all({ momentId }, { conn });
  if (rows.length) return rows;
  const legacy = await legacyPhoto.first({ momentId }, { conn });
  return legacy?.image_id ? [{ id: 0, image_id: legacy.image_id, alt: legacy.title }] : [];
}

/**
 * The moment's photos after the change, in order, or why not: at most MAX_PHOTOS, at least one,
 * and an alt text for each when there are several (one photo without one gets the title).
 */
export function planPhotos(
  existing: ExistingPhoto[],
  photos: MomentPhotos,
  title: string,
  variant: FormVariant,
  /** Clips the moment has after the change: a moment of clips alone needs no photo. */
  clipsAfter = 0,
): Result<{ plan: PlannedPhoto[] }> {
  const m = PHOTO_MESSAGES;
  // `field` and `n`: where an error goes, and the photo's number as the form labels it
  const kept: (PlannedPhoto & { field: string; n: number; order: number[] })[] = [];
  if (photos.edits || !photos.added.length) {
    const edits = new Map((photos.edits ?? []).map((e) => [e.id, e]));
    existing.forEach((photo, i) => {
      const edit = edits.get(photo.id);
      if (edit?.remove) return;
      const place = edit?.position ?? i + 1;
      // by the places asked for; on a tie the photo that was moved there comes first ("put photo 3
      // at 1" puts it before the one that was at 1), then the old order
      const moved = place !== i + 1 ? 0 : 1;
      kept.push({
        imageId: photo.image_id,
        alt: edit?.alt ?? photo.alt,
        field: photoField(photo.id, "alt"),
        n: i + 1,
        order: [place, moved, i],
      });
    });
    kept.sort((a, b) => a.order[0]! - b.order[0]! || a.order[1]! - b.order[1]! || a.order[2]! - b.order[2]!);
  }
  const pending = (photos.pending ?? []).map((p, i) => ({
    imageId: p.id,
    pending: true as const,
    alt: p.alt,
    field: pendingAltField(p.id),
    n: existing.length + i + 1,
  }));
  const added = photos.added.map((p, i) => ({
    added: i,
    alt: p.alt,
    field: altField(p.slot),
    n: existing.length + pending.length + p.slot,
  }));
  const all = [...kept, ...pending, ...added];
  if (all.length > MAX_PHOTOS) return invalidField(IMAGE_FIELD, m.tooMany);
  // a moment that never had a photo (older data) can still be edited; one that has photos keeps one
  if (!all.length && !clipsAfter && (variant === "add" || existing.length)) {
    return invalidField(IMAGE_FIELD, variant === "add" ? MOMENT_MESSAGES.add.imageRequired : m.keepOne);
  }
  const errors: Record<string, string[]> = {};
  for (const p of all) {
    const alt = p.alt.trim();
    if (Array.from(alt).length > ALT_MAX) errors[p.field] = [m.altTooLong(p.n)];
    else if (!alt && all.length > 1) errors[p.field] = [m.altRequired(p.n)];
    else if (!isOneLine(alt)) errors[p.field] = [m.altNotOneLine(p.n)];
  }
  if (Object.keys(errors).length) return invalid(Object.values(errors)[0]![0], errors);
  const plan = all.map((p): PlannedPhoto => {
    const alt = p.alt.trim() || title;
    if ("pending" in p) return { imageId: p.imageId, alt, pending: true };
    return "imageId" in p ? { imageId: p.imageId, alt } : { added: p.added, alt };
  });
  return { ok: true, plan };
}

/**
 * Writes the moment's photo rows in `plan`'s order (`newIds`: the images rows of its new photos;
 * `taken`: the pending photos it took, takePendingPhotos), points daily_logs.image_id at the first,
 * counts them, and drops the images of the photos that went (rows now, files after the commit).
 * Inside the caller's transaction.
 */
export async function writePhotos(
  trx: Db,
  momentId: number,
  plan: PlannedPhoto[],
  newIds: number[],
  drop: (ids: number[]) => Promise<void>,
  taken: number[] = [],
) {
  const before: MomentPhotoRow["image_id"][] = await trx("moment_photos")
    .where("daily_log_id", momentId)
    .pluck("image_id");
  const legacy: Pick<MomentRow, "image_id"> | undefined = await trx("daily_logs")
    .where("id", momentId)
    .first("image_id");
  // a kept photo that went meanwhile (a concurrent update), or a pending one swept, is skipped
  const rows = plan
    .filter(
      (p) =>
        !("imageId" in p) ||
        ("pending" in p ? taken.includes(p.imageId) : before.includes(p.imageId) || p.imageId === legacy?.image_id),
    )
    .map((p) => ({ imageId: "imageId" in p ? p.imageId : newIds[p.added]!, alt: p.alt }));
  const keep = new Set(rows.map((r) => r.imageId));
  await trx("moment_photos").where("daily_log_id", momentId).delete();
  if (rows.length)
    await trx("moment_photos").insert(
      rows.map((r, position) => ({ daily_log_id: momentId, image_id: r.imageId, position, alt: r.alt })),
    );
  await trx("daily_logs")
    .where("id", momentId)
    .update({ image_id: rows[0]?.imageId ?? null, photo_count: rows.length });
  await drop([...before, legacy?.image_id ?? 0].filter((id) => id && !keep.has(id)));
}

/** A form's slot → the field its photo's error is shown on (the first is `image`, as with one photo). */
export function slotField(slot: number): string {
  return slot === 1 ? IMAGE_FIELD : `${IMAGE_FIELD}_${slot}`;
}

/**
 * Where the viewer's previous/next goes past a moment's photos and clips: a moment of the same kid
 * and how many items (photos, then clips not failed: app/video/clip.ts viewerClips) it has.
 */
export type PhotoNeighbour = { momentId: number; itemCount: number };

type NeighbourParams = { kidId: number; viewer: number } & CursorParams;

/**
 * The kid's moment just before ("newer": above it on the kid's page, MOMENT_ORDER is newest first)
 * or just after ("older") this one, among those `viewer` may see (whereMomentVisibleTo) that have
 * a photo or a clip to view: one row of the (kid_id, taken_on, created_at, id) index.
 */
function neighbourSql(p: ParamFn<NeighbourParams>, k: Knex, side: "newer" | "older") {
  const viewable = () =>
    k("videos").whereRaw("videos.daily_log_id = daily_logs.id").andWhereNot("videos.status", "failed");
  const q = whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where("daily_logs.kid_id", p("kidId"))
      .andWhere((w) =>
        w
          .where("daily_logs.photo_count", ">", 0)
          // video_count first: a moment without clips never reads the videos table
          .orWhere((c) => c.where("daily_logs.video_count", ">", 0).whereExists(viewable().select(k.raw("1")))),
      ),
    p("viewer"),
  );
  if (side === "older") olderThanCursor(q, p);
  else
    q.whereRaw("(daily_logs.taken_on, daily_logs.created_at, daily_logs.id) > (?, ?, ?)", [
      p("takenOn"),
      p("createdAt"),
      p("id"),
    ]);
  const order = side === "older" ? MOMENT_ORDER : MOMENT_ORDER.map((o) => ({ ...o, order: "asc" as const }));
  return q.orderBy(order).first("daily_logs.id", "daily_logs.photo_count", viewable().count("*").as("clip_count"));
}
/** clip_count: a count, a string on PostgreSQL. */
type Neighbour = Pick<MomentRow, "id" | "photo_count"> & { clip_count: number | string };

const newerNeighbour = query<NeighbourParams, Neighbour>((p, k) => neighbourSql(p, k, "newer"));
const olderNeighbour = query<NeighbourParams, Neighbour>((p, k) => neighbourSql(p, k, "older"));

/**
 * The moments the photo viewer steps to past `moment`'s first and last item: the previous one in
 * the kid page's order (its last item) and the next one (its first), or null at either end;
 * two queries, whatever the number of moments.
 */
export async function photoNeighbours(
  viewerId: number,
  moment: Pick<Moment, "id" | "kid_id" | "taken_on" | "created_at">,
): Promise<{ previous: PhotoNeighbour | null; next: PhotoNeighbour | null }> {
  const params = {
    kidId: moment.kid_id,
    viewer: viewerId,
    takenOn: moment.taken_on,
    createdAt: moment.created_at,
    id: moment.id,
  };
  const [newer, older] = await Promise.all([newerNeighbour.first(params), olderNeighbour.first(params)]);
  const of = (row: Neighbour | undefined) =>
    row ? { momentId: row.id, itemCount: row.photo_count + Number(row.clip_count) } : null;
  return { previous: of(newer), next: of(older) };
}
