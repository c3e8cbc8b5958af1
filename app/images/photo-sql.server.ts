import type { ImageRow } from "~/lib/tables";
import type { Photo } from "./photo";

// Loaders join `images` and select these columns under a prefix, then turn the row into a Photo.
// One helper, so every entity (user, kid, moment) reads photos the same way.

/** The columns `photoColumns(alias, prefix)` adds to a row: null when the (left-joined) photo is absent. */
export type PhotoColumns<Prefix extends string> = Record<`${Prefix}_key`, ImageRow["key"] | null> &
  Record<`${Prefix}_width` | `${Prefix}_height`, number | null> &
  Record<`${Prefix}_widths`, ImageRow["widths"] | null> &
  Record<`${Prefix}_placeholder`, ImageRow["placeholder"] | null> &
  Record<`${Prefix}_original_width` | `${Prefix}_original_height`, number | null>;

export function photoColumns(imagesAlias: string, prefix: string): string[] {
  return [
    `${imagesAlias}.key as ${prefix}_key`,
    `${imagesAlias}.width as ${prefix}_width`,
    `${imagesAlias}.height as ${prefix}_height`,
    `${imagesAlias}.widths as ${prefix}_widths`,
    `${imagesAlias}.placeholder as ${prefix}_placeholder`,
    `${imagesAlias}.original_width as ${prefix}_original_width`,
    `${imagesAlias}.original_height as ${prefix}_original_height`,
  ];
}

export function photoFromRow<Prefix extends string>(row: PhotoColumns<Prefix>, prefix: Prefix): Photo | null {
  return photoOf(row, prefix);
}

// the same row read through patterns (TypeScript does not resolve a field of a generic key)
function photoOf(row: PhotoColumns<string>, prefix: string): Photo | null {
  const key = row[`${prefix}_key` as const];
  if (!key) return null;
  const originalWidth = row[`${prefix}_original_width` as const];
  const originalHeight = row[`${prefix}_original_height` as const];
  return {
    ...(originalWidth && originalHeight ? { original: { width: originalWidth, height: originalHeight } } : {}),
    key,
    width: row[`${prefix}_width` as const] ?? 0,
    height: row[`${prefix}_height` as const] ?? 0,
    widths: (row[`${prefix}_widths` as const] ?? "")
      .split(",")
      .map(Number)
      .filter((n) => n > 0),
    placeholder: row[`${prefix}_placeholder` as const] ?? "",
  };
}
