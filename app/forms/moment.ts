import { z } from "zod";
import { chosenFileProblem, MULTIPART_MESSAGES } from "~/images/limits";
import { audienceField, type Audience } from "./circles";
import { notOneLineMessage, plainText, singleLine } from "./text";

// The Add moment and Update moment forms (docs/spec.md §5 "Add moment" / "Update moment": the same
// rules, "can not" and "cannot" wording) and the daily_logs API body.
//
// The photo: in the browser `image` is the chosen File (checked for type and size before it is
// sent); on the server the streaming multipart parser keeps the file out of the form data, and the
// action passes IMAGE_PRESENT (app/images/limits.ts) in its place when a file arrived. The image
// module then judges the bytes; its message replaces this one.

export const TITLE_MAX = 50;
export const CONTENT_MAX = 2000;

/** The kid and moment forms come in two wordings (docs/spec.md §5): adding and updating. */
export type FormVariant = "add" | "update";

export const MOMENT_MESSAGES = {
  add: {
    titleRequired: "Title is required",
    titleTooLong: `Title can not be more than ${TITLE_MAX} characters`,
    contentRequired: "Content is required",
    contentTooLong: `Content can not be more than ${CONTENT_MAX} characters`,
    imageRequired: "Image is required",
  },
  update: {
    titleRequired: "Title is required",
    titleTooLong: `Title cannot be more than ${TITLE_MAX} characters`,
    contentRequired: "Content is required",
    contentTooLong: `Content cannot be more than ${CONTENT_MAX} characters`,
    imageRequired: "Image is required",
  },
} as const;

// ---- several photos (docs/decisions/0030-several-photos-per-moment.md) ----
//
// Field names, the same for the pages' forms and /api (docs/api.md):
// - every file part is named `image`; the n-th one (1-based, empty parts of unused slots counted)
//   is "slot n", and `alt_<n>` is its alt text; an error of slot n's file is on `image` for the
//   first and `image_<n>` for the others;
// - a photo the moment has (its id in the form) : `photo_<id>_position` (its place, 1-based),
//   `photo_<id>_alt`, `photo_<id>_remove` (any value: remove it). Update forms only.

/**
 * Pending photos (docs/decisions/0067-one-photo-control.md): photos the form sent before, kept by
 * the server until the moment takes them. `pending` lists their ids in order ("12,13"); each one's
 * alt text is `pending_<id>_alt` (app/models/pending-photos.server.ts).
 */
export const PENDING_FIELD = "pending";

/** The alt text field of a pending photo. */
export function pendingAltField(id: number): string {
  return `pending_${id}_alt`;
}

/** Longest alt text of a photo, in characters. */
export const ALT_MAX = 250;

export const PHOTO_MESSAGES = {
  tooMany: MULTIPART_MESSAGES.tooManyPhotos,
  keepOne: "A moment needs at least one photo: keep one or add one",
  altRequired: (n: number) => `Enter the alt text of photo ${n} (a short description for people who cannot see it)`,
  altTooLong: (n: number) => `Alt text of photo ${n} can not be more than ${ALT_MAX} characters`,
  altNotOneLine: (n: number) => notOneLineMessage(`Alt text of photo ${n}`),
} as const;

/** The alt text field of slot `slot` (1-based). */
export function altField(slot: number): string {
  return `alt_${slot}`;
}

/** A field of a photo the moment has. */
export function photoField(id: number, what: "position" | "alt" | "remove"): string {
  return `photo_${id}_${what}`;
}

/** The form's fields as the browser holds them. */
export type MomentFormShape = {
  title: string;
  content: string;
  image: File;
  pending: string;
  taken_on: string;
  milestone: string;
  milestone_label: string;
  audience: string;
};

export type MomentInput = {
  title: string;
  content: string;
  /** Who sees it (docs/spec.md §6); absent: the kid's default (adding) or unchanged (updating). */
  audience?: Audience;
} & StoryInput;

const chars = (v: string) => Array.from(v).length;

/**
 * A photo field (always optional here; see `requireImage`). In the browser the chosen File is
 * checked for size and type; on the server IMAGE_PRESENT stands in for an uploaded file.
 */
export function imageSchema() {
  return z
    .any()
    .optional()
    .superRefine((v: unknown, ctx) => {
      // several file inputs share the name (a moment's photo slots): the first slot is this field;
      // the others are checked by the server (and previewed by the picker)
      const problem = chosenFileProblem(Array.isArray(v) ? v[0] : v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
}

/** Was a file chosen: a value, a non-empty File, or (several files under one name) any of them. */
function chosen(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(chosen);
  if (v === undefined || v === null || v === "") return false;
  return !(typeof File !== "undefined" && v instanceof File && v.size === 0 && !v.name);
}

/** Object-level check that a photo was chosen (runs together with the other fields' checks). */
export function requireImage(message: string) {
  return [
    // a moment may be a clip alone (docs/decisions/0064-video-clips.md): then no photo is needed;
    // photos sent before and kept (`pending`) count as chosen
    (v: { image?: unknown; video?: unknown; pending?: unknown }, ctx: z.RefinementCtx) => {
      if (!chosen(v.image) && !chosen(v.video) && !chosen(v.pending)) {
        ctx.addIssue({ code: "custom", message, path: ["image"] });
      }
    },
    { when: () => true },
  ] as const;
}

/** The moment form (and the API body): title and content; `image` only says whether one came. */
export function momentFormSchema(variant: FormVariant) {
  const m = MOMENT_MESSAGES[variant];
  const fields = z.object({
    title: singleLine(
      z
        .string({ error: m.titleRequired })
        .trim()
        .min(1, m.titleRequired)
        .refine((v) => chars(v) <= TITLE_MAX, m.titleTooLong),
      "Title",
    ),
    content: plainText(
      z
        .string({ error: m.contentRequired })
        .trim()
        .min(1, m.contentRequired)
        .refine((v) => chars(v) <= CONTENT_MAX, m.contentTooLong),
      "Content",
    ),
    image: imageSchema(),
    [PENDING_FIELD]: z.string().optional(),
    /** Whether a clip came (the server judges it; VIDEO_PRESENT on the server, a File in the browser). */
    video: z.any().optional(),
    ...storyFields(variant),
    audience: audienceField(),
  });
  const checked = (variant === "add" ? fields.superRefine(...requireImage(m.imageRequired)) : fields).superRefine(
    milestoneLabelCheck(variant),
  );
  return checked.transform(
    (v): MomentInput => ({
      title: v.title,
      content: v.content,
      ...storyInput(v),
      ...(v.audience ? { audience: v.audience } : {}),
    }),
  );
}

// ---- the family's story: the moment's date and milestone (docs/spec.md §5, docs/decisions/0028-*) ----

export const MILESTONES = ["First smile", "First word", "First steps", "First tooth", "First day at school"] as const;
/** The select's values besides the milestones: none, or the parent's own label. */
export const MILESTONE_NONE = "none";
export const MILESTONE_OTHER = "Other";
export const MILESTONE_MAX = 40;

export const STORY_MESSAGES = {
  add: {
    takenOnInvalid: "Date must be a real date, for example 2024-06-14",
    takenOnFuture: "Date can not be in the future",
    takenOnTooEarly: (name: string) => `Date can not be more than 1 year before ${name}'s birth date`,
    milestoneLabelRequired: "Milestone label is required when the milestone is Other",
    milestoneTooLong: `Milestone can not be more than ${MILESTONE_MAX} characters`,
  },
  update: {
    takenOnInvalid: "Date must be a real date, for example 2024-06-14",
    takenOnFuture: "Date cannot be in the future",
    takenOnTooEarly: (name: string) => `Date cannot be more than 1 year before ${name}'s birth date`,
    milestoneLabelRequired: "Milestone label is required when the milestone is Other",
    milestoneTooLong: `Milestone cannot be more than ${MILESTONE_MAX} characters`,
  },
} as const;

/**
 * `takenOn`: the moment's date, "YYYY-MM-DD" (undefined: the default when adding, unchanged when
 * updating). `milestone`: its label, null for none (undefined: none when adding, unchanged when
 * updating).
 */
export type StoryInput = { takenOn?: string; milestone?: string | null };

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function realIsoDate(v: string): boolean {
  if (!ISO_DATE.test(v)) return false;
  const [y, m, d] = v.split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

function storyFields(variant: FormVariant) {
  const m = STORY_MESSAGES[variant];
  return {
    taken_on: z
      .string()
      .trim()
      .optional()
      .refine((v) => v === undefined || v === "" || realIsoDate(v), m.takenOnInvalid),
    milestone: singleLine(
      z
        .string()
        .trim()
        .optional()
        .refine((v) => v === undefined || chars(v) <= MILESTONE_MAX, m.milestoneTooLong),
      "Milestone",
    ),
    milestone_label: singleLine(
      z
        .string()
        .trim()
        .optional()
        .refine((v) => v === undefined || chars(v) <= MILESTONE_MAX, m.milestoneTooLong),
      "Milestone label",
    ),
  };
}

function milestoneLabelCheck(variant: FormVariant) {
  return (v: { milestone?: string; milestone_label?: string }, ctx: z.RefinementCtx) => {
    if (v.milestone === MILESTONE_OTHER && !v.milestone_label) {
      ctx.addIssue({
        code: "custom",
        message: STORY_MESSAGES[variant].milestoneLabelRequired,
        path: ["milestone_label"],
      });
    }
  };
}

function storyInput(v: { taken_on?: string; milestone?: string; milestone_label?: string }): StoryInput {
  const out: StoryInput = {};
  if (v.taken_on) out.takenOn = v.taken_on;
  if (v.milestone === MILESTONE_NONE) out.milestone = null;
  else if (v.milestone === MILESTONE_OTHER) out.milestone = v.milestone_label ?? null;
  else if (v.milestone) out.milestone = v.milestone;
  return out;
}
