import { config } from "./config.server";
import { todayInZone, type IsoDate } from "./dates";

// The server's side of the date helpers (app/lib/dates.ts): what needs the configured time zone.

/** The last answer of today(), for the second and zone it was worked out in. */
let last: { second: number; timeZone: string; date: IsoDate } | null = null;

/**
 * Today's date in the configured time zone (config().timeZone): ages and "no future birth dates".
 * Worked out at most once a second per zone (a page asks for it once per moment; Intl's
 * formatToParts is the costly part, docs/decisions/0037-kid-page-cost.md).
 */
export function today(): IsoDate {
  const second = Math.floor(Date.now() / 1000);
  const timeZone = config().timeZone;
  if (last?.second !== second || last.timeZone !== timeZone) last = { second, timeZone, date: todayInZone(timeZone) };
  return last.date;
}
