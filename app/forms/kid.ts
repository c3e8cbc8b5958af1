import { z } from "zod";
import { imageSchema, type FormVariant } from "./moment";
import { audienceField, type Audience } from "./circles";
import { singleLine } from "./text";
import { daysInMonth, monthName, parseIsoDate, toIsoDate, type DateParts, type IsoDate } from "~/lib/dates";

// The Add Kid and Update Kid forms (one schema, two wordings, as docs/spec.md §5 writes them) and the
// kids API body. "today" is passed in (taken on the server in the configured time zone and handed
// to the page), so the browser and the server agree on what "in the future" means.

export const RELATIONSHIPS = ["Mom", "Dad", "Grandpa", "Grandma", "Other"] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

export const KID_NAME_MAX = 50;
export const YEAR_CHOICES = 100;

export const KID_MESSAGES = {
  add: {
    nameRequired: "Name is required",
    nameTooLong: `Name can not be more than ${KID_NAME_MAX} characters`,
    year: "Select Year",
    month: "Select Month",
    day: "Select Day",
    relationship: "Please choose a relationship",
  },
  update: {
    nameRequired: "Name is required",
    nameTooLong: `Name cannot be more than ${KID_NAME_MAX} characters`,
    year: "Please choose a year",
    month: "Please choose a month",
    day: "Please choose a day",
    relationship: "Please choose a relationship",
  },
} as const;

export const BIRTH_DATE_MESSAGES = {
  required: "Birth date is required",
  format: "Birth date must be a date written as YYYY-MM-DD",
  future: "Birth date cannot be in the future",
} as const;

/** The message for a day that does not exist, e.g. 31 February 2023. */
export function impossibleDateMessage(year: number, month: number): string {
  return `${monthName(month)} ${year} has only ${daysInMonth(year, month)} days. Please choose a real date`;
}

/** Why these parts are not an acceptable birth date, or null when they are. */
export function birthDateProblem(parts: DateParts, today: IsoDate): string | null {
  const { year, month, day } = parts;
  if (day > daysInMonth(year, month)) return impossibleDateMessage(year, month);
  const date = toIsoDate(parts);
  if (parseIsoDate(date) === null) return BIRTH_DATE_MESSAGES.format;
  if (date > today) return BIRTH_DATE_MESSAGES.future;
  return null;
}

// ---- select options ----

/** The current year (in the configured zone: from `today`) and the 99 before it, newest first. */
export function yearOptions(today: IsoDate): number[] {
  const current = Number(today.slice(0, 4));
  return Array.from({ length: YEAR_CHOICES }, (_, i) => current - i);
}
export const MONTH_OPTIONS = Array.from({ length: 12 }, (_, i) => ({
  value: String(i + 1).padStart(2, "0"),
  label: `${String(i + 1).padStart(2, "0")} – ${monthName(i + 1)}`,
}));
export const DAY_OPTIONS = Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(2, "0"));

// ---- schemas ----

/** The form's fields as the browser holds them (conform's view of the Add and Update Kid forms). */
export type KidFormShape = {
  name: string;
  year: string;
  month: string;
  day: string;
  relationship: string;
  image: File;
  default_audience: string;
};

/** What the domain module gets: a validated kid. */
export type KidInput = {
  name: string;
  birth_date: IsoDate;
  relationship: Relationship;
  /** The audience of its new moments (docs/spec.md §6); absent: "everyone" (adding) or unchanged. */
  default_audience?: Audience;
};

function nameField(variant: FormVariant) {
  const m = KID_MESSAGES[variant];
  return singleLine(
    z
      .string({ error: m.nameRequired })
      .trim()
      .min(1, m.nameRequired)
      .refine((v) => Array.from(v).length <= KID_NAME_MAX, m.nameTooLong),
    "Name",
  );
}

function relationshipField(variant: FormVariant) {
  const message = KID_MESSAGES[variant].relationship;
  return z.enum(RELATIONSHIPS, { error: message });
}

const intIn = (message: string, pattern: RegExp, min: number, max: number) =>
  z
    .string({ error: message })
    .trim()
    .regex(pattern, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);

/** The page forms: name, year/month/day selects, relationship. The output is a KidInput. */
export function kidFormSchema(variant: FormVariant, today: IsoDate) {
  const m = KID_MESSAGES[variant];
  return z
    .object({
      name: nameField(variant),
      year: intIn(m.year, /^\d{4}$/, 1000, Number(today.slice(0, 4))),
      month: intIn(m.month, /^\d{1,2}$/, 1, 12),
      day: intIn(m.day, /^\d{1,2}$/, 1, 31),
      relationship: relationshipField(variant),
      image: imageSchema(),
      default_audience: audienceField(),
    })
    .superRefine(
      (v, ctx) => {
        const problem = birthDateProblem(v, today);
        if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["day"] });
      },
      {
        // also when another field (the name, say) has a problem: every message at once
        when: (payload) => !payload.issues.some((i) => ["year", "month", "day"].includes(String(i.path?.[0]))),
      },
    )
    .transform(
      (v): KidInput => ({
        name: v.name,
        birth_date: toIsoDate(v),
        relationship: v.relationship,
        ...(v.default_audience ? { default_audience: v.default_audience } : {}),
      }),
    );
}

/** POST /api/kids/new and PUT /api/kids/{id}: `birth_date` as "YYYY-MM-DD". */
export function kidApiSchema(variant: FormVariant, today: IsoDate) {
  return z.object({
    name: nameField(variant),
    birth_date: z
      .string({ error: BIRTH_DATE_MESSAGES.required })
      .trim()
      .min(1, BIRTH_DATE_MESSAGES.required)
      .superRefine((value, ctx) => {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
        if (!m) {
          ctx.addIssue({ code: "custom", message: BIRTH_DATE_MESSAGES.format });
          return;
        }
        const parts = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
        if (parts.month < 1 || parts.month > 12 || parts.day < 1 || parts.year < 1000) {
          ctx.addIssue({ code: "custom", message: BIRTH_DATE_MESSAGES.format });
          return;
        }
        const problem = birthDateProblem(parts, today);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    relationship: relationshipField(variant),
    default_audience: audienceField(),
  });
}

/** The form's field values for an existing kid (the Update form's defaults). */
export function kidFormDefaults(kid: {
  name: string;
  birth_date: IsoDate;
  relationship: string;
  default_audience?: Audience;
}) {
  const p = parseIsoDate(kid.birth_date);
  return {
    name: kid.name,
    year: p ? String(p.year) : "",
    month: p ? String(p.month).padStart(2, "0") : "",
    day: p ? String(p.day).padStart(2, "0") : "",
    relationship: kid.relationship,
    default_audience: kid.default_audience ?? "everyone",
  };
}
