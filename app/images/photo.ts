// Shared (client and server): the reference to a stored photo that loaders hand to views.
import { href } from "react-router";

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

/** A photo with its alt text, as pages show a moment's photos (docs/decisions/0030-several-photos-per-moment.md). */
export type AltPhoto = Photo & { alt: string };

/** A moment's photos as a loader hands them to a page: the stored photos and alt texts, nothing else. */
export function altPhotos(photos: AltPhoto[]): AltPhoto[] {
  return photos.map(({ key, width, height, widths, placeholder, alt }) => ({
    key,
    width,
    height,
    widths,
    placeholder,
    alt,
  }));
}

/** URL of one derivative; without a width, the largest. Served by app/routes/images.ts. */
export function photoUrl(photo: Pick<Photo, "key" | "widths">, width?: number): string {
  const w = width ?? photo.widths[photo.widths.length - 1] ?? 0;
  return href("/images/:key/:file", { key: photo.key, file: `${w}.webp` });
}
