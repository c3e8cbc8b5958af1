// Calendar dates and ages, shared by the server and the browser. Pure functions: "today" is always
// passed in (the server takes it in config().timeZone: `today()` in dates.server.ts), so a kid's age never
// depends on the time zone of whoever runs the code, and everything here is testable.

/** A calendar date, "YYYY-MM-DD" (no time, no zone). */
export type IsoDate = string;

export type DateParts = { year: number; month: number; day: number };

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True when year/month/day name a day that exists (no 31 February, no month 13). */
export function isRealDate({ year, month, day }: DateParts): boolean {
  return (
    Number.isInteger(year) &&
    Number.isInteger(month) &&
    Number.isInteger(day) &&
    year >= 1 &&
    year <= 9999 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month)
  );
}

/** "YYYY-MM-DD" → parts, or null when malformed or not a real date. */
export function parseIsoDate(value: string): DateParts | null {
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const parts = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return isRealDate(parts) ? parts : null;
}

export function toIsoDate({ year, month, day }: DateParts): IsoDate {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The calendar date of the instant `now` in an IANA time zone, e.g. "America/Los_Angeles". */
// Intl.DateTimeFormat is costly to construct: one per zone and style, reused.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = locale + JSON.stringify(options);
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

export function todayInZone(timeZone: string, now: Date = new Date()): IsoDate {
  const parts = formatter("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return toIsoDate({ year: get("year"), month: get("month"), day: get("day") });
}

function compare(a: DateParts, b: DateParts): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** Days since 0001-01-01 (proleptic Gregorian), for day differences without Date or zones. */
function dayNumber({ year, month, day }: DateParts): number {
  const y = month <= 2 ? year - 1 : year;
  const m = month <= 2 ? month + 12 : month;
  return (
    365 * y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) + Math.floor((153 * (m - 3) + 2) / 5) + day
  );
}

/**
 * `birth` plus `months` whole months. When the target month is shorter than the birth day, the
 * anniversary falls on its last day (born 31 January → 28 or 29 February; born 29 February → 28
 * February in common years).
 */
function addMonths(birth: DateParts, months: number): DateParts {
  const index = birth.year * 12 + (birth.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: Math.min(birth.day, daysInMonth(year, month)) };
}

export type Age = { years: number; months: number; days: number };

/**
 * Age on `today` as calendar arithmetic: the whole months since birth (the last monthly
 * anniversary on or before today), split into years and months, plus the days since that
 * anniversary. null when either date is invalid or the birth date is after today.
 */
export function ageOn(birthDate: IsoDate, today: IsoDate): Age | null {
  const birth = parseIsoDate(birthDate);
  const now = parseIsoDate(today);
  if (!birth || !now || compare(birth, now) > 0) return null;
  let months = (now.year - birth.year) * 12 + (now.month - birth.month);
  let anniversary = addMonths(birth, months);
  if (compare(anniversary, now) > 0) {
    months -= 1;
    anniversary = addMonths(birth, months);
  }
  return {
    years: Math.floor(months / 12),
    months: months % 12,
    days: dayNumber(now) - dayNumber(anniversary),
  };
}

const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "1 year, 0 months, 3 days". */
export function formatAge(age: Age): string {
  return `${unit(age.years, "year")}, ${unit(age.months, "month")}, ${unit(age.days, "day")}`;
}

/** The age text for a birth date, or "" when it cannot be computed (a birth date after today). */
export function ageText(birthDate: IsoDate, today: IsoDate): string {
  const age = ageOn(birthDate, today);
  return age ? formatAge(age) : "";
}

const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

export function monthName(month: number): string {
  return MONTH_NAMES[month - 1] ?? "";
}

/** "14 March 2019" for "2019-03-14" (a calendar date: no time zone involved). */
export function formatCalendarDate(date: IsoDate): string {
  const p = parseIsoDate(date);
  return p ? `${p.day} ${monthName(p.month)} ${p.year}` : date;
}

/** "6 June 2024": the calendar date of an ISO instant in an IANA time zone (the configured one). */
export function formatInstantDate(instant: string, timeZone: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return formatter("en-GB", { timeZone, day: "numeric", month: "long", year: "numeric" }).format(date);
}

// ---- a moment's date (docs/decisions/0028-moment-dates-and-feed.md) ----

/**
 * What is wrong with `date` as the date of a moment of a kid born on `birthDate`: not a real date,
 * after `today`, or more than one year before the birth date. null when it is fine.
 */
export function takenOnProblem(
  date: IsoDate,
  birthDate: IsoDate,
  today: IsoDate,
): "invalid" | "future" | "too-early" | null {
  const d = parseIsoDate(date);
  const birth = parseIsoDate(birthDate);
  if (!d) return "invalid";
  if (date > today) return "future";
  if (birth) {
    const earliest = toIsoDate({
      ...birth,
      year: birth.year - 1,
      day: Math.min(birth.day, daysInMonth(birth.year - 1, birth.month)),
    });
    if (date < earliest) return "too-early";
  }
  return null;
}

/** The date of a new moment when the parent gives none: the photo's EXIF date when it is acceptable, else today. */
export function defaultTakenOn(exifDate: IsoDate | null, birthDate: IsoDate, today: IsoDate): IsoDate {
  return exifDate && !takenOnProblem(exifDate, birthDate, today) ? exifDate : today;
}

/** "2 years, 3 months" (a year or more), "3 months" (under a year), "12 days" (under a month). */
export function formatShortAge(age: Age): string {
  if (age.years > 0) return `${unit(age.years, "year")}, ${unit(age.months, "month")}`;
  if (age.months > 0) return unit(age.months, "month");
  return unit(age.days, "day");
}

/** "Elsa was 2 years, 3 months" on `date`; "Before Elsa was born" for a date before the birth date. */
export function ageOnMomentText(name: string, birthDate: IsoDate, date: IsoDate): string {
  const age = ageOn(birthDate, date);
  if (!age) return parseIsoDate(date) && parseIsoDate(birthDate) ? `Before ${name} was born` : "";
  return `${name} was ${formatShortAge(age)}`;
}

/** The date line of a moment of `kidName` (born `birthDate`) taken on `takenOn`: see MomentDate (app/components/moment-story.tsx). */
export function momentDateView(
  takenOn: IsoDate,
  kidName: string,
  birthDate: IsoDate,
): { takenOn: IsoDate; date: string; age: string } {
  return { takenOn, date: formatCalendarDate(takenOn), age: ageOnMomentText(kidName, birthDate, takenOn) };
}

// ---- a kid's timeline by age and month (docs/decisions/0028-moment-dates-and-feed.md) ----

/** A range of calendar dates [from, to). */
export type Period = { from: IsoDate; to: IsoDate };

function plusYears(d: DateParts, years: number): IsoDate {
  const year = d.year + years;
  return toIsoDate({ year, month: d.month, day: Math.min(d.day, daysInMonth(year, d.month)) });
}

/** The year of age `age` of a kid born on `birthDate` (age −1: the year before birth). null: not a date. */
export function agePeriod(birthDate: IsoDate, age: number): Period | null {
  const birth = parseIsoDate(birthDate);
  if (!birth || !Number.isInteger(age) || age < -1 || age > 150) return null;
  return { from: plusYears(birth, age), to: plusYears(birth, age + 1) };
}

const YEAR_MONTH = /^(\d{4})-(\d{2})$/;

/** The calendar month "YYYY-MM" as a period. null: not a month. */
export function monthPeriod(month: string): Period | null {
  const m = YEAR_MONTH.exec(month);
  if (!m) return null;
  const year = Number(m[1]);
  const mon = Number(m[2]);
  if (year < 1 || year > 9998 || mon < 1 || mon > 12) return null;
  const next = mon === 12 ? { year: year + 1, month: 1 } : { year, month: mon + 1 };
  return { from: toIsoDate({ year, month: mon, day: 1 }), to: toIsoDate({ ...next, day: 1 }) };
}

/** The year of age a calendar month belongs to (the age on its last day); −1 before birth. */
export function ageOfMonth(birthDate: IsoDate, month: string): number {
  const m = YEAR_MONTH.exec(month);
  if (!m) return -1;
  const year = Number(m[1]);
  const mon = Number(m[2]);
  const age = ageOn(birthDate, toIsoDate({ year, month: mon, day: daysInMonth(year, mon) }));
  return age ? age.years : -1;
}

/** "Age 1", or "Before birth" for −1. */
export function ageHeading(age: number): string {
  return age < 0 ? "Before birth" : `Age ${age}`;
}

/** "March 2024" for "2024-03". */
export function formatMonth(month: string): string {
  const m = YEAR_MONTH.exec(month);
  return m ? `${monthName(Number(m[2]))} ${m[1]}` : month;
}
