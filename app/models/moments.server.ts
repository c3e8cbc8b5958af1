import type { Db } from "~/lib/db.server";
import type { Clip } from "~/video/clip";
import { clipsByMoment } from "~/video/clips.server";
import type { KidRow, MomentPhotoRow, MomentRow } from "~/lib/tables";
import { inList, limitParam, NO_LIMIT, query, type ParamFn } from "~/lib/query.server";
import type { Knex } from "knex";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { Audience } from "~/forms/circles";
import { requireMoment, whereMomentVisibleTo, type Need } from "./access.server";
import { viewKid, type Kid } from "./kids.server";
import type { Result } from "./refusal";

import { encodeCursor, MOMENT_ORDER, olderThanCursor, type Cursor, type CursorParams } from "./moment-cursors.server";
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
  /** How many clips it has, and (once `withAllPhotos` has read them) the clips (docs/decisions/0064-video-clips.md). */
  video_count: number;
  clips: Clip[];
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

/** A moment's audience as a page shows it: to the kid's owner and co-parents only (null otherwise). */
export function momentAudienceFor(moment: MomentAudience, isParent: boolean): Audience | null {
  return isParent ? moment.audience : null;
}

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
  "daily_logs.video_count",
  "first_photos.id as first_photo_id",
  "first_photos.alt as first_photo_alt",
  ...photoColumns("log_images", "log_image"),
];

/** The row `momentColumns` select. */
export type MomentColumns = Pick<
  MomentRow,
  | "id"
  | "kid_id"
  | "title"
  | "content"
  | "created_at"
  | "updated_at"
  | "taken_on"
  | "milestone"
  | "audience"
  | "posted_by"
  | "photo_count"
  | "video_count"
> & {
  first_photo_id: MomentPhotoRow["id"] | null;
  first_photo_alt: MomentPhotoRow["alt"] | null;
} & PhotoColumns<"log_image">;

export function momentsQuery(conn: Db) {
  return conn("daily_logs")
    .leftJoin("images as log_images", "log_images.id", "daily_logs.image_id")
    .leftJoin("moment_photos as first_photos", (j) =>
      j.on("first_photos.daily_log_id", "daily_logs.id").andOn("first_photos.image_id", "daily_logs.image_id"),
    );
}

export function momentFromRow(row: MomentColumns): Moment {
  const photo = photoFromRow(row, "log_image");
  const title = row.title;
  const first: MomentPhoto[] = photo
    ? [{ ...photo, id: row.first_photo_id ?? 0, alt: row.first_photo_alt ?? title }]
    : [];
  return {
    id: row.id,
    kid_id: row.kid_id,
    title,
    content: row.content,
    photo,
    photos: first,
    photo_count: row.photo_count,
    video_count: row.video_count,
    clips: [],
    created_at: row.created_at,
    updated_at: row.updated_at,
    taken_on: row.taken_on,
    milestone: row.milestone,
    audience: row.audience,
    posted_by: row.posted_by,
  };
}

/** Every photo of these moments, in order, one query (run only when one of them has several). */
const photosOfMoments = query<
  { ids: number[] },
  Pick<MomentPhotoRow, "id" | "daily_log_id" | "alt"> & PhotoColumns<"log_image">
>((p, k) =>
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
  // and their clips: one more query only when some moment has any
  const withClips = moments.filter((m) => m.video_count > 0);
  if (withClips.length) {
    const clips = await clipsByMoment(
      withClips.map((m) => m.id),
      conn,
    );
    for (const m of withClips) m.clips = clips.get(m.id) ?? [];
  }
  const several = moments.filter((m) => m.photo_count > 1);
  if (!several.length) return moments;
  const rows = await photosOfMoments.all({ ids: several.map((m) => m.id) }, { conn });
  const byMoment = new Map<number, MomentPhoto[]>();
  for (const row of rows) {
    const photo = photoFromRow(row, "log_image");
    if (!photo) continue;
    const list = byMoment.get(row.daily_log_id) ?? [];
    list.push({ ...photo, id: row.id, alt: row.alt });
    byMoment.set(row.daily_log_id, list);
  }
  for (const m of several) m.photos = byMoment.get(m.id) ?? m.photos;
  return moments;
}

/** What a conditional page keys off for its moments (docs/decisions/0034-conditional-pages.md): ids and update stamps. */
export function momentStamps(moments: Pick<Moment, "id" | "updated_at">[]): [number, string][] {
  return moments.map((m) => [m.id, m.updated_at]);
}

/** Rows (limit + 1 asked) → the page and the next cursor. */
export function pageOf(rows: MomentColumns[], limit: number | undefined): { moments: Moment[]; next: string | null } {
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
const momentsPage = query<{ kidId: number; viewer: number; limit: number }, MomentColumns>((p, k) =>
  momentsPageSql(p as ParamFn<MomentsPageParams>, k, false),
);

const momentsPageAfter = query<MomentsPageParams, MomentColumns>((p, k) => momentsPageSql(p, k, true));

export type MomentView = {
  moment: Moment;
  kid: { id: number; name: string; user_id: number; birth_date: string };
  isOwner: boolean;
  isParent: boolean;
};

/** One moment with its kid's name and owner. */
const momentById = query<
  { momentId: number },
  MomentColumns & { kid_name: KidRow["name"]; kid_user_id: KidRow["user_id"]; kid_birth_date: KidRow["birth_date"] }
>((p, k) =>
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
    row ? { id: momentId, kidId: row.kid_id, ownerId: row.kid_user_id } : null,
    need,
  );
  if (!access.ok) return access;
  return {
    ok: true,
    moment: (await withAllPhotos([momentFromRow(row!)]))[0]!,
    kid: {
      id: access.kidId,
      name: row!.kid_name,
      user_id: access.ownerId,
      birth_date: row!.kid_birth_date,
    },
    isOwner: access.isOwner,
    isParent: access.isParent,
  };
}

/** May `viewerId` change this moment? ok (with its kid), or why not. */
export async function checkMomentOwner(viewerId: number, momentId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  return access.ok ? { ok: true, kidId: access.kidId } : access;
}

/** One moment as it stands now, every photo included (null: gone). */
export async function getMoment(momentId: number): Promise<Moment | null> {
  const row = await momentById.first({ momentId });
  return row ? (await withAllPhotos([momentFromRow(row)]))[0]! : null;
}
