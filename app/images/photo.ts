// Shared (client and server): the reference to a stored photo that loaders hand to views.

export type Photo = {
  key: string;
  /** Size of the largest derivative. */
  width: number;
  height: number;
  /** Widths of the derivatives that exist, ascending. */
  widths: number[];
  /** Tiny blurred image as a data: URI, shown until the photo arrives. */
  placeholder: string;
};

/** URL of one derivative; without a width, the largest. Served by app/routes/images.ts. */
export function photoUrl(photo: Pick<Photo, "key" | "widths">, width?: number): string {
  const w = width ?? photo.widths[photo.widths.length - 1] ?? 0;
  return `/images/${photo.key}/${w}.webp`;
}
