import type { Tables } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { originalUrl, photoUrl, type Photo } from "~/images/photo";
import { safeName } from "./export.server";

// "Download original" (docs/decisions/0063-full-size-originals.md): the link a page offers for a
// moment's photo, and the file name the image route gives the full-size copy. Both name the file
// as the export does ("2026-05-03 Mia - First steps.jpg", " (2)" for a moment's second photo).
// Who may download is the image route's question to the access module (canViewImage), asked
// before anything here is read.

/** A photo's download link: the full-size JPEG, or (a photo stored before those were kept) the largest WebP. */
export type PhotoDownload = { href: string; full: boolean; name: string };

type MomentNaming = { takenOn: string; kidName: string; title: string };

/** "{date} {kid} - {title}", " (n)" when the moment has several photos, no extension. */
function baseName(m: MomentNaming, n: number, count: number): string {
  const base = safeName(`${m.takenOn} ${m.kidName} - ${m.title}`, 120);
  return count > 1 ? `${base} (${n})` : base;
}

/** The download link of photo `n` (from 1) of `count` of a moment. */
export function photoDownload(photo: Photo, moment: MomentNaming, n: number, count: number): PhotoDownload {
  const name = baseName(moment, n, count);
  const original = originalUrl(photo);
  return original
    ? { href: original, full: true, name: `${name}.jpg` }
    : { href: photoUrl(photo), full: false, name: `${name}.webp` };
}

type NamingRow = Pick<Tables["daily_logs"], "title" | "taken_on" | "photo_count"> & {
  kid_name: string;
  position: number | null;
};

/** The moment of a photo (its moment_photos row, or an older moment's daily_logs.image_id). */
const namingOfImage = query<{ imageId: number }, NamingRow>((p, k) =>
  k("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .leftJoin("moment_photos", (j) =>
      j.on("moment_photos.daily_log_id", "daily_logs.id").andOnVal("moment_photos.image_id", p("imageId")),
    )
    .where((w) => w.where("daily_logs.image_id", p("imageId")).orWhereNotNull("moment_photos.id"))
    .first(
      "daily_logs.title",
      "daily_logs.taken_on",
      "daily_logs.photo_count",
      "kids.name as kid_name",
      "moment_photos.position",
    ),
);

/** The file name of a moment photo's full-size copy (its moment may be gone meanwhile: "photo.jpg"). */
export async function originalFileName(imageId: number): Promise<string> {
  const row = await namingOfImage.first({ imageId });
  if (!row) return "photo.jpg";
  const n = (row.position ?? 0) + 1;
  const naming = { takenOn: row.taken_on, kidName: row.kid_name, title: row.title };
  return `${baseName(naming, n, row.photo_count)}.jpg`;
}
