import { todayInZone, type IsoDate } from "~/lib/dates";
import type { ExifTaken } from "~/images/exif";

// The day a photo goes to when it is added to the drafts (docs/decisions/0065-drafts.md), and its
// place among the photos of that day.

/** A photo's day in the family's time zone, and a number to order the day's photos by (taken first, first). */
export type PhotoDay = { day: IsoDate; order: number };

/**
 * The day a photo was taken, in `timeZone` (the family's, config().timeZone):
 * - `takenAt` given (an import's own record of the instant, e.g. Google Takeout's photoTakenTime):
 *   that instant's date in the zone; it overrides the photo's EXIF;
 * - EXIF with the camera's offset from UTC: that instant's date in the zone (a photo taken at
 *   23:30 in London is the next day for a family in Berlin);
 * - EXIF without an offset (most cameras): the date as the camera's clock wrote it;
 * - nothing: `uploadDay` (today in the zone).
 */
export function photoDay(
  taken: ExifTaken | null,
  takenAt: Date | undefined,
  timeZone: string,
  uploadDay: IsoDate,
): PhotoDay {
  if (takenAt && !Number.isNaN(takenAt.getTime()))
    return { day: todayInZone(timeZone, takenAt), order: takenAt.getTime() };
  if (taken?.time && taken.offset) {
    const instant = new Date(`${taken.date}T${taken.time}${taken.offset}`);
    if (!Number.isNaN(instant.getTime())) return { day: todayInZone(timeZone, instant), order: instant.getTime() };
  }
  if (taken) {
    // the camera's clock, read as if it were UTC: only to order the photos of one day
    const local = Date.parse(`${taken.date}T${taken.time ?? "12:00:00"}Z`);
    return { day: taken.date, order: Number.isNaN(local) ? Number.MAX_SAFE_INTEGER : local };
  }
  return { day: uploadDay, order: Number.MAX_SAFE_INTEGER };
}
