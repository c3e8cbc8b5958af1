import { config } from "./config.server";
import { todayInZone, type IsoDate } from "./dates";

// The server's side of the date helpers (app/lib/dates.ts): what needs the configured time zone.

/** Today's date in the configured time zone (config().timeZone): ages and "no future birth dates". */
export function today(): IsoDate {
  return todayInZone(config().timeZone);
}
