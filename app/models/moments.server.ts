import { insertedId, nowIso, type Db } from "~/lib/db.server";
import { inList, limitParam, NO_LIMIT, query, type ParamFn } from "~/lib/query.server";
import type { Knex } from "knex";
import {
  ALT_MAX,
  altField,
  MOMENT_MESSAGES,
  PHOTO_MESSAGES,
  photoField,
  STORY_MESSAGES,
  type FormVariant,
  type MomentInput,
  type StoryInput,
} from "~/forms/moment";
import { defaultTakenOn, takenOnProblem } from "~/lib/dates";
import { isOneLine } from "~/lib/one-line";
import { today } from "~/lib/dates.server";
import { photoTakenOn } from "~/images/exif.server";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import { withImageTransaction, withNewImages } from "~/images/storage.server";
import { IMAGE_FIELD, MAX_PHOTOS } from "~/images/limits";
import { fileDigest, type UploadedFile } from "~/images/multipart.server";
import type { Audience } from "~/forms/circles";
import { ACCESS_MESSAGES, requireKid, requireMoment, whereMomentVisibleTo, type Need } from "./access.server";
import { viewKid, type Kid } from "./kids.server";
import { invalid, invalidField, notFound, type Refusal, type Result } from "./refusal";
import { submissionOnce } from "./submissions.server";

// Moments (the API's daily logs, docs/api.md): queries, the cursor-paged list of a kid's moments, and the
// owner-only rules. Pages and /api routes call these functions; who may see or change a moment is
// decided by app/models/access.server.ts.

export type Moment = {
  id: number;
  kid_id: number;
  title: string;
  content: string;
  /** The first photo (what the API's image_url shows), or null. */
  photo: Photo | null;
  /** Every photo in order, the first one included, each with its alt text (docs/decisions/0030-several-photos-per-moment.md). */
  photos: MomentPhoto[];
  /** How many photos it has (`photos` holds only the first until `withAllPhotos` has read the others). */
  photo_count: number;
  /** ISO 8601 UTC. */
  created_at: string;
  /** ISO 8601 UTC: stamped by every change of the moment (text, story, audience, photos). */
  updated_at: string;
  /** The moment's own calendar date, "YYYY-MM-DD" (chosen by the parent; pages sort by it). */
  taken_on: string;
  /** The milestone's label, or null. */
  milestone: string | null;
} & MomentAudience;

// ---- who sees it, who posted it (docs/spec.md §6) ----

/** Who sees a moment and who posted it (the kid's owner or a co-parent; null: a deleted user). */
export type MomentAudience = { audience: Audience; posted_by: number | null };

const audienceColumns = ["daily_logs.audience", "daily_logs.posted_by"];

function audienceFromRow(row: Record<string, unknown>): MomentAudience {
  return {
    audience: String(row.audience) as Audience,
    posted_by: row.posted_by == null ? null : Number(row.posted_by),
  };
}

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

/** A moment's audience as a page shows it: to the kid's owner and co-parents only (null otherwise). */
export function momentAudienceFor(moment: MomentAudience, isParent: boolean): Audience | null {
  return isParent ? moment.audience : null;
}

/** An update's audience column: only when the input names one. */
const audienceChange = (input: MomentInput) => (input.audience ? { audience: input.audience } : {});

/** Where a page of moments stops: the last one shown (newest date first, then creation, then id). */
export type Cursor = { takenOn: string; createdAt: string; id: number };

/** One photo of a moment: the stored photo, its row in moment_photos and its alt text. */
export type MomentPhoto = Photo & { id: number; alt: string };

export const momentColumns = [
  "daily_logs.id",
  "daily_logs.kid_id",
  "daily_logs.title",
  "daily_logs.content",
  "daily_logs.created_at",
  "daily_logs.updated_at",
  "daily_logs.taken_on",
  "daily_logs.milestone",
  ...audienceColumns,
  "daily_logs.photo_count",
  "first_photos.id as first_photo_id",
  "first_photos.alt as first_photo_alt",
  ...photoColumns("log_images", "log_image"),
];

export function momentsQuery(conn: Db) {
  return conn("daily_logs")
    .leftJoin("images as log_images", "log_images.id", "daily_logs.image_id")
    .leftJoin("moment_photos as first_photos", (j) =>
      j.on("first_photos.daily_log_id", "daily_logs.id").andOn("first_photos.image_id", "daily_logs.image_id"),
    );
}

export function momentFromRow(row: Record<string, unknown>): Moment {
  const photo = photoFromRow(row, "log_image");
  const title = String(row.title);
  const first: MomentPhoto[] = photo
    ? [
        {
          ...photo,
          id: Number(row.first_photo_id ?? 0),
          alt: row.first_photo_alt == null ? title : String(row.first_photo_alt),
        },
      ]
    : [];
  return {
    id: Number(row.id),
    kid_id: Number(row.kid_id),
    title,
    content: String(row.content),
    photo,
    photos: first,
    photo_count: Number(row.photo_count ?? first.length),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    taken_on: String(row.taken_on),
    milestone: row.milestone == null ? null : String(row.milestone),
    ...audienceFromRow(row),
  };
}

/** Every photo of these moments, in order, one query (run only when one of them has several). */
const photosOfMoments = query<{ ids: number[] }>((p, k) =>
  inList(
    k("moment_photos").join("images as log_images", "log_images.id", "moment_photos.image_id"),
    "moment_photos.daily_log_id",
    p("ids"),
  )
    .orderBy([
      { column: "moment_photos.daily_log_id" },
      { column: "moment_photos.position" },
      { column: "moment_photos.id" },
    ])
    .select(
      "moment_photos.id",
      "moment_photos.daily_log_id",
      "moment_photos.alt",
      ...photoColumns("log_images", "log_image"),
    ),
);

/**
 * Fills `photos` of the moments that have more than one (the list queries read only the first):
 * one more query when some moment has several, none otherwise. Changes and answers `moments`.
 */
export async function withAllPhotos<M extends Moment>(moments: M[], conn?: Db): Promise<M[]> {
  const several = moments.filter((m) => m.photo_count > 1);
  if (!several.length) return moments;
  const rows = await photosOfMoments.all({ ids: several.map((m) => m.id) }, { conn });
  const byMoment = new Map<number, MomentPhoto[]>();
  for (const row of rows) {
    const photo = photoFromRow(row, "log_image");
    if (!photo) continue;
    const list = byMoment.get(Number(row.daily_log_id)) ?? [];
    list.push({ ...photo, id: Number(row.id), alt: String(row.alt) });
    byMoment.set(Number(row.daily_log_id), list);
  }
  for (const m of several) m.photos = byMoment.get(m.id) ?? m.photos;
  return moments;
}

/** What a conditional page keys off for its moments (docs/decisions/0034-conditional-pages.md): ids and update stamps. */
export function momentStamps(moments: Pick<Moment, "id" | "updated_at">[]): [number, string][] {
  return moments.map((m) => [m.id, m.updated_at]);
}

// ---- cursors ----

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Opaque to clients: base64url of "<taken_on>_<created_at>_<id>" (docs/decisions/0028-moment-dates-and-feed.md). */
export function encodeCursor(moment: Pick<Moment, "taken_on" | "created_at" | "id">): string {
  return Buffer.from(`${moment.taken_on}_${moment.created_at}_${moment.id}`, "utf8").toString("base64url");
}

/** The cursor, or null when it is not one of ours. */
export function decodeCursor(value: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(value)) return null;
  const text = Buffer.from(value, "base64url").toString("utf8");
  const m = /^([^_]+)_([^_]+)_([1-9][0-9]{0,15})$/.exec(text);
  if (!m || !ISO_DATE.test(m[1]!) || !ISO_INSTANT.test(m[2]!)) return null;
  const id = Number(m[3]);
  return Number.isSafeInteger(id) ? { takenOn: m[1]!, createdAt: m[2]!, id } : null;
}

/** Newest first: the moment's date, then creation, then id (the cursor indexes' order). */
export const MOMENT_ORDER = [
  { column: "daily_logs.taken_on", order: "desc" as const },
  { column: "daily_logs.created_at", order: "desc" as const },
  { column: "daily_logs.id", order: "desc" as const },
];

/** Moments older than a cursor in MOMENT_ORDER: a row-value comparison, one range of the index. */
export function olderThanCursor<P>(q: Knex.QueryBuilder, p: ParamFn<P & CursorParams>): Knex.QueryBuilder {
  return q.whereRaw("(daily_logs.taken_on, daily_logs.created_at, daily_logs.id) < (?, ?, ?)", [
    p("takenOn"),
    p("createdAt"),
    p("id"),
  ]);
}

export type CursorParams = { takenOn: string; createdAt: string; id: number };

/** Rows (limit + 1 asked) → the page and the next cursor. */
export function pageOf(
  rows: Record<string, unknown>[],
  limit: number | undefined,
): { moments: Moment[]; next: string | null } {
  const more = limit !== undefined && rows.length > limit;
  const moments = (more ? rows.slice(0, limit) : rows).map(momentFromRow);
  const last = moments[moments.length - 1];
  return { moments, next: more && last ? encodeCursor(last) : null };
}

// ---- reading ----

export type MomentPage = { kid: Kid; isOwner: boolean; isParent: boolean; moments: Moment[]; next: string | null };

/**
 * A kid's moments, newest first, as `viewerId` may see them: all of them, or (with `limit`) one
 * page older than `before` plus the cursor of the next page. The page is one range scan of the
 * `daily_logs_kid_taken` index, so it costs the same for a kid with 5 or 5,000 moments; the whole
 * call is a fixed number of queries (the kid with its owner, the friendship when the viewer is not
 * the owner, the moments), prepared statements on the read connection.
 */
export async function listMoments(
  viewerId: number,
  kidId: number,
  opts: { limit?: number; before?: Cursor | null } = {},
): Promise<Result<MomentPage>> {
  const view = await viewKid(viewerId, kidId);
  if (!view.ok) return view;
  const limit = opts.limit ? opts.limit + 1 : NO_LIMIT;
  const rows = opts.before
    ? await momentsPageAfter.all({ kidId, viewer: viewerId, limit, ...opts.before })
    : await momentsPage.all({ kidId, viewer: viewerId, limit });
  const page = pageOf(rows, opts.limit);
  await withAllPhotos(page.moments);
  return { ok: true, kid: view.kid, isOwner: view.isOwner, isParent: view.isParent, ...page };
}

type MomentsPageParams = { kidId: number; viewer: number; limit: number } & CursorParams;

/** A kid's moments, newest first (MOMENT_ORDER), optionally older than a cursor; `limit ?` last. */
function momentsPageSql(p: ParamFn<MomentsPageParams>, k: Knex, afterCursor: boolean) {
  // the kid's moments the viewer may see (their audience: app/models/access.server.ts)
  const q = whereMomentVisibleTo(
    momentsQuery(k).join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.kid_id", p("kidId")),
    p("viewer"),
  )
    .orderBy(MOMENT_ORDER)
    .select(momentColumns);
  // a range on the (kid_id, taken_on, created_at, id) index, however deep the page
  if (afterCursor) olderThanCursor(q, p);
  return limitParam(k, q, p("limit"));
}
// the first page asks for no cursor parameters
const momentsPage = query<{ kidId: number; viewer: number; limit: number }>((p, k) =>
  momentsPageSql(p as ParamFn<MomentsPageParams>, k, false),
);
const momentsPageAfter = query<MomentsPageParams>((p, k) => momentsPageSql(p, k, true));

export type MomentView = {
  moment: Moment;
  kid: { id: number; name: string; user_id: number; birth_date: string };
  isOwner: boolean;
  isParent: boolean;
};

/** One moment with its kid's name and owner. */
const momentById = query<{ momentId: number }>((p, k) =>
  momentsQuery(k)
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", p("momentId"))
    .first([
      ...momentColumns,
      "kids.name as kid_name",
      "kids.user_id as kid_user_id",
      "kids.birth_date as kid_birth_date",
    ]),
);

/** One moment with its kid's name, as `viewerId` may see it; with `need` "change", as its owner or a co-parent. */
export async function viewMoment(viewerId: number, momentId: number, need: Need = "view"): Promise<Result<MomentView>> {
  // the moment's row carries its kid's owner: the rule runs on it (no separate lookup)
  const row = await momentById.first({ momentId });
  const access = await requireMoment(
    viewerId,
    row ? { id: momentId, kidId: Number(row.kid_id), ownerId: Number(row.kid_user_id) } : null,
    need,
  );
  if (!access.ok) return access;
  return {
    ok: true,
    moment: (await withAllPhotos([momentFromRow(row!)]))[0]!,
    kid: {
      id: access.kidId,
      name: String(row!.kid_name),
      user_id: access.ownerId,
      birth_date: String(row!.kid_birth_date),
    },
    isOwner: access.isOwner,
    isParent: access.isParent,
  };
}

// ---- the photo viewer's neighbours (docs/decisions/0030-several-photos-per-moment.md) ----

/** Where the viewer's previous/next goes past a moment's photos: a moment of the same kid and how many photos it has. */
export type PhotoNeighbour = { momentId: number; photoCount: number };

type NeighbourParams = { kidId: number; viewer: number } & CursorParams;

/**
 * The kid's moment just before ("newer": above it on the kid's page, MOMENT_ORDER is newest first)
 * or just after ("older") this one, among those `viewer` may see (whereMomentVisibleTo) that have
 * a photo: one row of the (kid_id, taken_on, created_at, id) index.
 */
function neighbourSql(p: ParamFn<NeighbourParams>, k: Knex, side: "newer" | "older") {
  const q = whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where("daily_logs.kid_id", p("kidId"))
      .andWhere("daily_logs.photo_count", ">", 0),
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
  return q.orderBy(order).first("daily_logs.id", "daily_logs.photo_count");
}
const newerNeighbour = query<NeighbourParams>((p, k) => neighbourSql(p, k, "newer"));
const olderNeighbour = query<NeighbourParams>((p, k) => neighbourSql(p, k, "older"));

/**
 * The moments the photo viewer steps to past `moment`'s first and last photo: the previous one in
 * the kid page's order (its last photo) and the next one (its first photo), or null at either end;
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
  const of = (row: Record<string, unknown> | undefined) =>
    row ? { momentId: Number(row.id), photoCount: Number(row.photo_count) } : null;
  return { previous: of(newer), next: of(older) };
}

/** May `viewerId` change this moment? ok (with its kid), or why not. */
export async function checkMomentOwner(viewerId: number, momentId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  return access.ok ? { ok: true, kidId: access.kidId } : access;
}

async function getMoment(momentId: number): Promise<Moment | null> {
  const row = await momentById.first({ momentId });
  return row ? (await withAllPhotos([momentFromRow(row)]))[0]! : null;
}

// ---- changing ----

class Gone extends Error {}

const momentGone = (): Refusal => notFound(ACCESS_MESSAGES.momentNotFound);
const kidGone = (): Refusal => notFound(ACCESS_MESSAGES.kidNotFound);

// ---- its photos (docs/decisions/0030-several-photos-per-moment.md) ----

/** A photo sent with a form or /api call: its file, its alt text as sent, its slot (1-based: the n-th `image` part). */
export type NewMomentPhoto = { file: UploadedFile; alt: string; slot: number };

/** What a form says of a photo the moment has: its new place (1-based), alt text, or removal. */
export type PhotoEdit = { id: number; position?: number; alt?: string; remove?: boolean };

/**
 * The photos of an add or update: the new ones, and (page update forms) what happens to the ones
 * there. Without `edits`, new photos replace all the old ones (the API's PUT, a single-photo
 * form); with them, old photos are kept, moved or removed and the new ones come after them.
 */
export type MomentPhotos = { added: NewMomentPhoto[]; edits?: PhotoEdit[] };

/** A single file (the single-photo callers) or the photos of a form. */
export type PhotoUpload = UploadedFile | null | MomentPhotos;

function photosOf(upload: PhotoUpload): MomentPhotos {
  if (!upload) return { added: [] };
  return "added" in upload ? upload : { added: [{ file: upload, alt: "", slot: 1 }] };
}

async function discardAll(photos: MomentPhotos): Promise<void> {
  await Promise.all(photos.added.map((p) => p.file.discard()));
}

type ExistingPhoto = { id: number; image_id: number; alt: string };
/** One photo of the moment after the change: an images row (or the i-th new photo) and its alt text. */
type PlannedPhoto = { imageId: number; alt: string } | { added: number; alt: string };

const existingPhotos = query<{ momentId: number }>((p, k) =>
  k("moment_photos")
    .where("moment_photos.daily_log_id", p("momentId"))
    .orderBy([{ column: "moment_photos.position" }, { column: "moment_photos.id" }])
    .select("moment_photos.id", "moment_photos.image_id", "moment_photos.alt"),
);

const legacyPhoto = query<{ momentId: number }>((p, k) =>
  k("daily_logs").where("daily_logs.id", p("momentId")).first("daily_logs.image_id", "daily_logs.title"),
);

/** The moment's photos in order; a row written without moment_photos (image_id only) counts as its one photo. */
async function readExisting(momentId: number, conn?: Db): Promise<ExistingPhoto[]> {
  const rows = await existingPhotos.all({ momentId }, { conn });
  if (rows.length) return rows.map((r) => ({ id: Number(r.id), image_id: Number(r.image_id), alt: String(r.alt) }));
  const legacy = await legacyPhoto.first({ momentId }, { conn });
  return legacy?.image_id ? [{ id: 0, image_id: Number(legacy.image_id), alt: String(legacy.title) }] : [];
}

/**
 * The moment's photos after the change, in order, or why not: at most MAX_PHOTOS, at least one,
 * and an alt text for each when there are several (one photo without one gets the title).
 */
function planPhotos(
  existing: ExistingPhoto[],
  photos: MomentPhotos,
  title: string,
  variant: FormVariant,
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
  const added = photos.added.map((p, i) => ({
    added: i,
    alt: p.alt,
    field: altField(p.slot),
    n: existing.length + p.slot,
  }));
  const all = [...kept, ...added];
  if (all.length > MAX_PHOTOS) return invalidField(IMAGE_FIELD, m.tooMany);
  // a moment that never had a photo (older data) can still be edited; one that has photos keeps one
  if (!all.length && (variant === "add" || existing.length)) {
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
    return "imageId" in p ? { imageId: p.imageId, alt } : { added: p.added, alt };
  });
  return { ok: true, plan };
}

/**
 * Writes the moment's photo rows in `plan`'s order (`newIds`: the images rows of its new photos),
 * points daily_logs.image_id at the first, counts them, and drops the images of the photos that
 * went (rows now, files after the commit). Inside the caller's transaction.
 */
async function writePhotos(
  trx: Db,
  momentId: number,
  plan: PlannedPhoto[],
  newIds: number[],
  drop: (ids: number[]) => Promise<void>,
) {
  const before: number[] = (await trx("moment_photos").where("daily_log_id", momentId).pluck("image_id")).map(Number);
  const legacy = await trx("daily_logs").where("id", momentId).first("image_id");
  // a kept photo that went meanwhile (a concurrent update) is skipped
  const rows = plan
    .filter((p) => !("imageId" in p) || before.includes(p.imageId) || p.imageId === Number(legacy?.image_id))
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
  await drop([...before, Number(legacy?.image_id ?? 0)].filter((id) => id && !keep.has(id)));
}

/** A form's slot → the field its photo's error is shown on (the first is `image`, as with one photo). */
export function slotField(slot: number): string {
  return slot === 1 ? IMAGE_FIELD : `${IMAGE_FIELD}_${slot}`;
}

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
  const planned = planPhotos([], photos, input.title, "add");
  if (!planned.ok) return refused(planned);
  const digests = async () => Promise.all(photos.added.map((p) => fileDigest(p.file)));
  const once = await submissionOnce(
    viewerId,
    "moment",
    opts.token,
    async () => [kidId, input, ...(await digests())],
    getMoment,
  );
  if (once.first) {
    await discardAll(photos);
    return { ok: true, moment: once.first, replayed: true };
  }
  const story = await storyColumns(kidId, input, "add", photos.added[0]?.file ?? null);
  if (!story.ok) return refused(story);
  const now = nowIso();
  try {
    const files = photos.added.map((p) => p.file);
    const result = await withNewImages(
      files,
      { kind: "moment", ownerId: access.ownerId },
      (i) => slotField(photos.added[i]!.slot),
      async (trx, imageIds, { dropImages }) => {
        // still theirs to post to (a co-parent may have left meanwhile)
        if (!(await requireKid(viewerId, kidId, "change", trx)).ok) throw new Gone();
        const id = await insertMoment(
          trx,
          kidId,
          { ...input, ...story.columns },
          { imageId: null, createdAt: now, postedBy: viewerId },
        );
        await writePhotos(trx, id, planned.plan, imageIds, dropImages);
        await once.claim(trx, id);
        return id;
      },
    );
    if (!result.ok) return result;
    const moment = await getMoment(result.value);
    return moment ? { ok: true, moment } : kidGone();
  } catch (error) {
    if (error instanceof Gone) return kidGone();
    const first = await once.winner(error);
    if (!first) throw error;
    return { ok: true, moment: first, replayed: true };
  }
}

// ---- the moment's date and milestone (docs/decisions/0028-moment-dates-and-feed.md) ----

const kidBirth = query<{ kidId: number }>((p, k) =>
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
  file: UploadedFile | null,
): Promise<Result<{ columns: StoryInput }>> {
  const columns: StoryInput = {};
  if (input.milestone !== undefined) columns.milestone = input.milestone;
  if (input.takenOn === undefined && variant === "update") return { ok: true, columns };
  const kid = await kidBirth.first({ kidId });
  if (!kid) return notFound(ACCESS_MESSAGES.kidNotFound);
  const now = today();
  if (input.takenOn !== undefined) {
    const problem = takenOnProblem(input.takenOn, String(kid.birth_date), now);
    const m = STORY_MESSAGES[variant];
    if (problem === "future") return invalidField("taken_on", m.takenOnFuture);
    if (problem === "too-early") return invalidField("taken_on", m.takenOnTooEarly(String(kid.name)));
    if (problem) return invalidField("taken_on", m.takenOnInvalid);
    columns.takenOn = input.takenOn;
  } else {
    columns.takenOn = defaultTakenOn(file ? await photoTakenOn(file.path) : null, String(kid.birth_date), now);
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
  const planned = planPhotos(await readExisting(momentId), photos, input.title, "update");
  if (!planned.ok) return refused(planned);
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
  try {
    const result = await withNewImages(
      files,
      { kind: "moment", ownerId: access.ownerId },
      (i) => slotField(photos.added[i]!.slot),
      async (trx, imageIds, { dropImages }) => {
        const moment = await trx("daily_logs").where("daily_logs.id", momentId).first("daily_logs.id");
        if (!moment || !(await stillParent(trx))) throw new Gone();
        await trx("daily_logs").where("id", momentId).update(changes);
        await writePhotos(trx, momentId, planned.plan, imageIds, dropImages);
      },
    );
    if (!result.ok) return result;
  } catch (error) {
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
  const kidId = await withImageTransaction(async (trx, { dropImages }) => {
    const moment = await trx("daily_logs")
      .where({ "daily_logs.id": momentId })
      .first("daily_logs.kid_id", "daily_logs.image_id");
    if (!moment || !(await requireMoment(viewerId, momentId, "change", trx)).ok) return null;
    const photos = await trx("moment_photos").where("daily_log_id", momentId).pluck("image_id");
    await trx("daily_logs").where("id", momentId).delete();
    await dropImages([moment.image_id, ...photos]);
    return Number(moment.kid_id);
  });
  return kidId === null ? momentGone() : { ok: true, kidId };
}
