import { loadSharp } from "./sharp.server";
import { exifTaken, type ExifTaken } from "./exif";

// The EXIF date of an uploaded file, read from its header before the pipeline drops every byte of
// metadata (app/images/process.server.ts). docs/decisions/0028-moment-dates-and-feed.md.

/** "YYYY-MM-DD" the photo at `filePath` was taken, or null (no EXIF, no date, not an image we read). */
export async function photoTakenOn(filePath: string): Promise<string | null> {
  return (await photoTaken(filePath))?.date ?? null;
}

/**
 * When the photo at `filePath` was taken, as its camera wrote it (date, time, offset), or null
 * (docs/decisions/0065-drafts.md groups photos by it).
 */
export async function photoTaken(filePath: string): Promise<ExifTaken | null> {
  try {
    const sharp = await loadSharp();
    // header only: no pixels are decoded
    const meta = await sharp(filePath, { limitInputPixels: false }).metadata();
    return exifTaken(meta.exif);
  } catch {
    return null;
  }
}
