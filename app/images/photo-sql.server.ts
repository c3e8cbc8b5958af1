import type { Photo } from "./photo";

// Loaders join `images` and select these columns under a prefix, then turn the row into a Photo.
// One helper, so every entity (user, kid, moment) reads photos the same way.

export function photoColumns(imagesAlias: string, prefix: string): string[] {
  return [
    `${imagesAlias}.key as ${prefix}_key`,
    `${imagesAlias}.width as ${prefix}_width`,
    `${imagesAlias}.height as ${prefix}_height`,
    `${imagesAlias}.widths as ${prefix}_widths`,
    `${imagesAlias}.placeholder as ${prefix}_placeholder`,
  ];
}

export function photoFromRow(row: Record<string, unknown>, prefix: string): Photo | null {
  const key = row[`${prefix}_key`];
  if (typeof key !== "string" || !key) return null;
  return {
    key,
    width: Number(row[`${prefix}_width`]),
    height: Number(row[`${prefix}_height`]),
    widths: String(row[`${prefix}_widths`])
      .split(",")
      .map(Number)
      .filter((n) => n > 0),
    placeholder: String(row[`${prefix}_placeholder`] ?? ""),
  };
}
