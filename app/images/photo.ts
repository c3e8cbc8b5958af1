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
  /**
   * The full-size copy's size, when there is one: a moment's photo stored since full-size copies
   * are kept (docs/decisions/0063-full-size-originals.md). Absent: the largest derivative is all there is.
   */
  original?: { width: number; height: number };
};

/** A photo with its alt text, as pages show a moment's photos (docs/decisions/0030-several-photos-per-moment.md). */
export type AltPhoto = Photo & { alt: string };

/** A moment's photos as a loader hands them to a page: the stored photos and alt texts, nothing else. */
export function altPhotos(photos: AltPhoto[]): AltPhoto[] {
  // not `original`: a page links the full-size copy through its own download data
  // (app/models/photo-downloads.server.ts), so the photos' view data stays as small as it was
  return photos.map(({ key, width, height, widths, placeholder, alt }) => ({
    key,
    width,
    height,
    widths,
    placeholder,
    alt,
  }));
}

/** The name of the full-size copy under a photo's key. */
export const ORIGINAL_FILE = "original.jpg";

/** URL of the full-size copy (served as a download by app/routes/images.ts); null when there is none. */
export function originalUrl(photo: Pick<Photo, "key" | "original">): string | null {
  return photo.original ? href("/images/:key/:file", { key: photo.key, file: ORIGINAL_FILE }) : null;
}

/**
 * Where the photo routes start: the pattern of app/routes.ts, checked by href()'s types once here.
 * A photo's key (base64url, KEY_PATTERN) and a derivative's file name (`<width>.webp`) never need
 * escaping, and photoUrl runs for every width of every photo of a page or an /api answer, where
 * href()'s pattern replacement and escaping cost about 0.1 ms per 20-moment answer
 * (docs/decisions/0057-bench-side-by-side.md).
 */
const IMAGES = href("/images/:key/:file", { key: "k", file: "f" }).slice(0, -"/k/f".length);

/** URL of one derivative; without a width, the largest. Served by app/routes/images.ts. */
export function photoUrl(photo: Pick<Photo, "key" | "widths">, width?: number): string {
  const w = width ?? photo.widths[photo.widths.length - 1] ?? 0;
  return `${IMAGES}/${photo.key}/${w}.webp`;
}
