import { query } from "~/lib/query.server";
import { FileNames, safeName } from "./export-names";
import { type ClipRow, clipsOf, type ExportClip, shapeClips } from "./export-clips.server";
import { today } from "~/lib/dates.server";
import { displayName } from "~/lib/names";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { KidRow, LikeRow, MomentPhotoRow, UserRow } from "~/lib/tables";
import type { Photo } from "~/images/photo";
import type { Audience } from "~/forms/circles";
import {
  whereCommentShown,
  whereKidParentIs,
  whereMomentExportedBy,
  whereNoBlockWith,
  whereOwnedBy,
} from "./access.server";
import { commentColumns, commentFromRow, commentsQuery, type CommentColumns } from "./comments.server";
import { listFriends } from "./friend-lists.server";
import { listPasskeys } from "./passkeys.server";
import { MOMENT_ORDER } from "./moment-cursors.server";
import { momentColumns, momentFromRow, momentsQuery, type MomentColumns } from "./moments.server";

// What "Download all my data" holds (docs/spec.md §2 "Your data"), as plain data: the account, the
// kids the user owns or co-parents (access module: whereKidParentIs; friends' kids are theirs to
// export) with their moments (whereMomentExportedBy: all of an owned kid's, the ones the user posted
// on a co-parented kid), likes and comments (none by a user in a block with the user:
// whereNoBlockWith), and the friends' names.
// app/models/export-zip.server.ts streams it as a ZIP. Moments are read with the moments model's
// columns (momentColumns, momentFromRow) and shaped in ONE place (shapeMoment) for data.json and the album.

/**
 * `alt`: a moment photo's alt text (docs/decisions/0030-several-photos-per-moment.md). `full`: the
 * file is the full-size copy (JPEG); otherwise the largest stored size (WebP): kids' photos, profile
 * pictures and moment photos stored before full-size copies were kept (docs/decisions/0063-full-size-originals.md).
 */
export type ExportPhoto = { photo: Photo; file: string; alt?: string; full: boolean };
export type ExportPerson = { name: string; username: string };
export type ExportComment = { by: string; comment: string; created_at: string; updated_at: string };
export type ExportLike = { by: string; created_at: string };
export type ExportMoment = {
  id: number;
  title: string;
  content: string;
  /** The moment's own date (YYYY-MM-DD, chosen by the parent): file names, order and ages use it. */
  taken_on: string;
  /** The milestone's label, or null. */
  milestone: string | null;
  audience: Audience;
  /** Who posted it (the owner or a co-parent), by name; null: a deleted account. */
  posted_by: string | null;
  created_at: string;
  updated_at: string;
  /** Every photo, in the moment's order. */
  photos: ExportPhoto[];
  /** Every prepared clip, in the moment's order (docs/decisions/0064-video-clips.md). */
  clips: ExportClip[];
  likes: ExportLike[];
  comments: ExportComment[];
};
export type ExportKid = {
  id: number;
  name: string;
  birth_date: string;
  relationship: string;
  /** "owner", or "co-parent": then only the moments the user posted are in the export. */
  role: "owner" | "co-parent";
  created_at: string;
  photo: ExportPhoto | null;
  /** Newest first (their date, then creation), as the kid's page. */
  moments: ExportMoment[];
};
export type ExportData = {
  exported_at: string;
  today: string;
  account: {
    id: number;
    username: string;
    email: string;
    first_name: string | null;
    last_name: string | null;
    created_at: string;
    profile_picture: ExportPhoto | null;
  };
  kids: ExportKid[];
  friends: ExportPerson[];
  /** The account's passkeys: names and dates only, never key material. */
  passkeys: { name: string; created_at: string; last_used_at: string | null }[];
};

type Person = Pick<UserRow, "username" | "first_name" | "last_name">;
/** An exported moment: the moments model's row, and who posted it (nulls: nobody, or a deleted user). */
type MomentRow = MomentColumns & {
  poster_username: UserRow["username"] | null;
  poster_first_name: UserRow["first_name"];
  poster_last_name: UserRow["last_name"];
};

const accountOf = query<
  { id: number },
  Pick<UserRow, "id" | "username" | "email" | "first_name" | "last_name" | "created_at"> & PhotoColumns<"pic">
>((p, k) =>
  whereOwnedBy(k("users"), "users.id", p("id"))
    .leftJoin("images as pic", "pic.id", "users.image_id")
    .first(
      "users.id",
      "users.username",
      "users.email",
      "users.first_name",
      "users.last_name",
      "users.created_at",
      ...photoColumns("pic", "pic"),
    ),
);

const kidsOf = query<
  { id: number },
  Pick<KidRow, "id" | "user_id" | "name" | "birth_date" | "relationship" | "created_at"> & PhotoColumns<"kid">
>((p, k) =>
  whereKidParentIs(k("kids"), p("id"))
    .leftJoin("images as kid_images", "kid_images.id", "kids.image_id")
    .orderBy("kids.id", "asc")
    .select(
      "kids.id",
      "kids.user_id",
      "kids.name",
      "kids.birth_date",
      "kids.relationship",
      "kids.created_at",
      ...photoColumns("kid_images", "kid"),
    ),
);

/** The exported moments: the moments model's columns and order (MOMENT_ORDER), kid by kid, with the poster's name. */
const momentsOf = query<{ id: number }, MomentRow>((p, k) =>
  whereMomentExportedBy(momentsQuery(k).join("kids", "kids.id", "daily_logs.kid_id"), p("id"))
    .leftJoin("users as poster", "poster.id", "daily_logs.posted_by")
    .orderBy([{ column: "daily_logs.kid_id", order: "asc" }, ...MOMENT_ORDER])
    .select([
      ...momentColumns,
      "poster.username as poster_username",
      "poster.first_name as poster_first_name",
      "poster.last_name as poster_last_name",
    ]),
);

/** Every photo of the exported moments, in each moment's order (several per moment). */
const photosOf = query<{ id: number }, Pick<MomentPhotoRow, "daily_log_id" | "alt"> & PhotoColumns<"log_image">>(
  (p, k) =>
    whereMomentExportedBy(
      k("moment_photos")
        .join("daily_logs", "daily_logs.id", "moment_photos.daily_log_id")
        .join("kids", "kids.id", "daily_logs.kid_id"),
      p("id"),
    )
      .join("images as log_images", "log_images.id", "moment_photos.image_id")
      .orderBy([
        { column: "moment_photos.daily_log_id" },
        { column: "moment_photos.position" },
        { column: "moment_photos.id" },
      ])
      .select("moment_photos.daily_log_id", "moment_photos.alt", ...photoColumns("log_images", "log_image")),
);

const likesOf = query<{ id: number }, Pick<LikeRow, "daily_log_id" | "created_at"> & Person>((p, k) =>
  whereMomentExportedBy(
    whereNoBlockWith(
      k("likes").join("daily_logs", "daily_logs.id", "likes.daily_log_id").join("kids", "kids.id", "daily_logs.kid_id"),
      "likes.user_id",
      p("id"),
    ),
    p("id"),
  )
    .join("users", "users.id", "likes.user_id")
    .orderBy("likes.id", "asc")
    .select("likes.daily_log_id", "likes.created_at", "users.username", "users.first_name", "users.last_name"),
);

const commentsOf = query<{ id: number }, CommentColumns>((p, k) =>
  whereMomentExportedBy(
    whereNoBlockWith(
      commentsQuery(k)
        .join("daily_logs", "daily_logs.id", "comments.daily_log_id")
        .join("kids", "kids.id", "daily_logs.kid_id"),
      "comments.user_id",
      p("id"),
    ),
    p("id"),
  )
    .orderBy([
      { column: "comments.created_at", order: "asc" },
      { column: "comments.id", order: "asc" },
    ])
    // the comments shown on the moments: none the kid's owner (or a former owner, before a hand-over) hid by a block
    .modify((q) => void whereCommentShown(q))
    .select(commentColumns),
);

const person = (r: Person) => displayName(r);

export { safeName } from "./export-names";

/**
 * The one place a moment is shaped for the export (see the top of this file). Its photos are named
 * `{taken_on} {kid} - {title}.webp`; the 2nd and 3rd photo (or a namesake moment's) get " (2)", " (3)".
 */
function shapeMoment(
  row: MomentRow,
  kidName: string,
  names: FileNames,
  likes: ExportLike[],
  comments: ExportComment[],
  photoRows: PhotoRow[] = [],
  clipRows: ClipRow[] = [],
): ExportMoment {
  const moment = momentFromRow(row);
  // every photo in order (moment_photos), or the one of daily_logs.image_id
  const all = photoRows.length
    ? photoRows.flatMap((r) => {
        const photo = photoFromRow(r, "log_image");
        return photo ? [{ photo, alt: r.alt }] : [];
      })
    : moment.photo
      ? [{ photo: moment.photo, alt: moment.photos[0]?.alt ?? moment.title }]
      : [];
  const base = safeName(`${moment.taken_on} ${kidName} - ${moment.title}`, 120);
  return {
    id: moment.id,
    title: moment.title,
    content: moment.content,
    taken_on: moment.taken_on,
    milestone: moment.milestone,
    audience: moment.audience,
    posted_by:
      row.poster_username == null
        ? null
        : person({
            username: row.poster_username,
            first_name: row.poster_first_name,
            last_name: row.poster_last_name,
          }),
    created_at: moment.created_at,
    updated_at: moment.updated_at,
    photos: all.map(({ photo, alt }) => ({
      photo,
      alt,
      full: photo.original !== undefined,
      file: names.take("photos/", base, photo.original ? ".jpg" : ".webp"),
    })),
    clips: shapeClips(clipRows, base, (folder, b, ext) => names.take(folder, b, ext)),
    likes,
    comments,
  };
}

type PhotoRow = Pick<MomentPhotoRow, "daily_log_id" | "alt"> & PhotoColumns<"log_image">;

/** Rows by the moment they belong to. */
function group<R extends { daily_log_id: number }, T>(rows: R[], shape: (r: R) => T): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const id = r.daily_log_id;
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push(shape(r));
  }
  return out;
}

/** Everything of `userId` that goes into the export; null when there is no such user. */
export async function loadExport(userId: number): Promise<ExportData | null> {
  const account = await accountOf.first({ id: userId });
  if (!account) return null;
  const [kidRows, momentRows, photoRows, clipRows, likeRows, commentRows, friendLists, passkeys] = await Promise.all([
    kidsOf.all({ id: userId }),
    momentsOf.all({ id: userId }),
    photosOf.all({ id: userId }),
    clipsOf.all({ id: userId }),
    likesOf.all({ id: userId }),
    commentsOf.all({ id: userId }),
    listFriends(userId),
    listPasskeys(userId),
  ]);
  const names = new FileNames();
  const likes = group(likeRows, (r): ExportLike => ({ by: person(r), created_at: r.created_at }));
  const photosByMoment = group(photoRows, (r) => r);
  const clipsByMoment = group(clipRows, (r) => r);
  const comments = group(commentRows, (r): ExportComment => {
    const c = commentFromRow(r);
    return { by: displayName(c.user), comment: c.comment, created_at: c.created_at, updated_at: c.updated_at };
  });
  const picture = photoFromRow(account, "pic");
  const kids: ExportKid[] = kidRows.map((r) => {
    const photo = photoFromRow(r, "kid");
    const name = r.name;
    return {
      id: r.id,
      name,
      birth_date: r.birth_date,
      relationship: r.relationship,
      role: r.user_id === userId ? "owner" : "co-parent",
      created_at: r.created_at,
      photo: photo ? { photo, full: false, file: names.take("photos/", safeName(name), ".webp") } : null,
      moments: [],
    };
  });
  const byId = new Map(kids.map((k) => [k.id, k]));
  for (const row of momentRows) {
    const kid = byId.get(row.kid_id);
    if (!kid) continue;
    const id = row.id;
    kid.moments.push(
      shapeMoment(
        row,
        kid.name,
        names,
        likes.get(id) ?? [],
        comments.get(id) ?? [],
        photosByMoment.get(id),
        clipsByMoment.get(id),
      ),
    );
  }
  return {
    exported_at: new Date().toISOString(),
    today: today(),
    account: {
      id: account.id,
      username: account.username,
      email: account.email,
      first_name: account.first_name,
      last_name: account.last_name,
      created_at: account.created_at,
      profile_picture: picture
        ? { photo: picture, full: false, file: names.take("", "profile-picture", ".webp") }
        : null,
    },
    kids,
    friends: friendLists.confirmed.map((f) => ({ name: displayName(f.user), username: f.user.username })),
    passkeys: passkeys.map((p) => ({ name: p.name, created_at: p.created_at, last_used_at: p.last_used_at })),
  };
}

/** Every photo file of the export, in the order they go into the ZIP. */
export function exportPhotos(data: ExportData): ExportPhoto[] {
  const out: ExportPhoto[] = [];
  if (data.account.profile_picture) out.push(data.account.profile_picture);
  for (const kid of data.kids) {
    if (kid.photo) out.push(kid.photo);
    for (const m of kid.moments) out.push(...m.photos);
  }
  return out;
}

/** How many moment photos come at full size, and how many only at their largest stored size. */
export function momentPhotoCounts(data: ExportData): { full: number; smaller: number } {
  const photos = data.kids.flatMap((k) => k.moments.flatMap((m) => m.photos));
  const full = photos.filter((p) => p.full).length;
  return { full, smaller: photos.length - full };
}

/** data.json: the export with file names instead of stored photo references. */
export function exportJson(data: ExportData): string {
  const file = (p: ExportPhoto | null) => p?.file ?? null;
  return JSON.stringify(
    {
      exported_at: data.exported_at,
      account: { ...data.account, profile_picture: file(data.account.profile_picture) },
      kids: data.kids.map((k) => ({
        ...k,
        photo: file(k.photo),
        moments: k.moments.map((m) => ({
          ...m,
          photos: m.photos.map((p) => ({ file: p.file, alt: p.alt ?? m.title, full_size: p.full })),
          clips: m.clips.map((c) => ({
            file: c.file,
            description: c.description,
            duration: c.duration_ms === null ? null : c.duration_ms / 1000,
            captions: c.captions?.file ?? null,
          })),
        })),
      })),
      friends: data.friends,
      passkeys: data.passkeys,
    },
    null,
    2,
  );
}
