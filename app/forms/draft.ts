import { z } from "zod";
import { audienceField, type Audience } from "./circles";
import { ALT_MAX, CONTENT_MAX, MILESTONE_NONE, MILESTONE_OTHER, STORY_MESSAGES, TITLE_MAX, photoField } from "./moment";
import { isOneLine } from "~/lib/one-line";
import { parseIsoDate } from "~/lib/dates";
import { invalid, type Result } from "~/models/refusal";
import { plainText, singleLine, notOneLineMessage } from "./text";

// A draft moment's form on the review page, and the body of PUT /api/drafts/{id}
// (docs/decisions/0065-drafts.md): title, text, date, milestone and audience as a moment's, and the
// alt text of each of its photos (`photo_<id>_alt`, as a moment's update form names them). A draft
// may be saved unfinished (no text, no alt texts yet); publishing asks for what a moment needs.

const chars = (v: string) => Array.from(v).length;

export const DRAFT_FORM_MESSAGES = {
  titleRequired: "Title is required",
  titleTooLong: `Title cannot be more than ${TITLE_MAX} characters`,
  contentTooLong: `Text cannot be more than ${CONTENT_MAX} characters`,
  contentRequired: "Enter the moment's text before publishing it",
  altRequired: (n: number) => `Enter the alt text of photo ${n} (a short description for people who cannot see it)`,
  altTooLong: (n: number) => `Alt text of photo ${n} cannot be more than ${ALT_MAX} characters`,
  altNotOneLine: (n: number) => notOneLineMessage(`Alt text of photo ${n}`),
  takenOnRequired: "Date is required",
} as const;

/** What a draft's form changes. */
export type DraftInput = {
  title: string;
  content: string;
  takenOn: string;
  /** null: none */
  milestone: string | null;
  /** null: the kid's default */
  audience: Audience | null;
  /** the alt texts sent, by photo id */
  alts: { id: number; alt: string }[];
};

const m = STORY_MESSAGES.update;

/** The draft form's fixed fields (the alt texts are read by `draftAlts`). */
export const draftFormSchema = z
  .object({
    title: singleLine(
      z
        .string({ error: DRAFT_FORM_MESSAGES.titleRequired })
        .trim()
        .min(1, DRAFT_FORM_MESSAGES.titleRequired)
        .refine((v) => chars(v) <= TITLE_MAX, DRAFT_FORM_MESSAGES.titleTooLong),
      "Title",
    ),
    content: plainText(
      z
        .string()
        .trim()
        .optional()
        .default("")
        .refine((v) => chars(v) <= CONTENT_MAX, DRAFT_FORM_MESSAGES.contentTooLong),
      "Text",
    ),
    taken_on: z
      .string({ error: DRAFT_FORM_MESSAGES.takenOnRequired })
      .trim()
      .min(1, DRAFT_FORM_MESSAGES.takenOnRequired)
      .refine((v) => parseIsoDate(v) !== null, m.takenOnInvalid),
    milestone: singleLine(z.string().trim().optional(), "Milestone"),
    milestone_label: singleLine(
      z
        .string()
        .trim()
        .optional()
        .refine((v) => v === undefined || chars(v) <= 40, m.milestoneTooLong),
      "Milestone label",
    ),
    audience: audienceField(),
  })
  .superRefine((v, ctx) => {
    if (v.milestone === MILESTONE_OTHER && !v.milestone_label)
      ctx.addIssue({ code: "custom", message: m.milestoneLabelRequired, path: ["milestone_label"] });
  });

/** The draft's milestone from the form's select and label. */
export function draftMilestone(v: { milestone?: string; milestone_label?: string }): string | null {
  if (!v.milestone || v.milestone === MILESTONE_NONE) return null;
  if (v.milestone === MILESTONE_OTHER) return v.milestone_label ?? null;
  return v.milestone;
}

const ALT_NAME = /^photo_(\d{1,12})_alt$/;

/** The alt texts a form or body sends (`photo_<id>_alt`), trimmed. */
export function draftAlts(fields: Record<string, unknown>): { id: number; alt: string }[] {
  const out: { id: number; alt: string }[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const match = ALT_NAME.exec(name);
    if (match && typeof value === "string") out.push({ id: Number(match[1]), alt: value.trim() });
  }
  return out;
}

/** An alt text's problem (n: the photo's number on the page), or null. `publishing`: an empty one is one. */
export function altProblem(alt: string, n: number, publishing: boolean): string | null {
  if (chars(alt) > ALT_MAX) return DRAFT_FORM_MESSAGES.altTooLong(n);
  if (!isOneLine(alt)) return DRAFT_FORM_MESSAGES.altNotOneLine(n);
  if (publishing && !alt) return DRAFT_FORM_MESSAGES.altRequired(n);
  return null;
}

/** The field of a draft photo's alt text. */
export const draftAltField = (photoId: number) => photoField(photoId, "alt");

/** A draft form's or PUT body's fields → what changes, or the fields' errors (on their names). */
export function parseDraftFields(fields: Record<string, unknown>): Result<{ value: DraftInput }> {
  const parsed = draftFormSchema.safeParse(fields);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (errors[String(issue.path[0] ?? "message")] ??= []).push(issue.message);
    return invalid(Object.values(errors)[0]?.[0], errors);
  }
  const v = parsed.data;
  return {
    ok: true,
    value: {
      title: v.title,
      content: v.content,
      takenOn: v.taken_on,
      milestone: draftMilestone(v),
      audience: v.audience ?? null,
      alts: draftAlts(fields),
    },
  };
}
