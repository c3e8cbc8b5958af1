import { loadSharp } from "./sharp.server";
import { exifDateTaken } from "./exif";

// The EXIF date of an uploaded file, read from its header before the pipeline drops every byte of
// metadata (app/images/process.server.ts). docs/decisions/0028-moment-dates-and-feed.md.

/** "YYYY-MM-DD" the photo at `filePath` was taken, or null (no EXIF, no date, not an image we read). */
export async function photoTakenOn(filePath: string): Promise<string | null> {
  try {
    const sharp = await loadSharp();
    // header only: no pixels are decoded
    const meta = await sharp(filePath, { limitInputPixels: false }).metadata();
    return exifDateTaken(meta.exif);
  } catch {
    return null;
  }
}
