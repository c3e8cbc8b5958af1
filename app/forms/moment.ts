import { z } from "zod";
import { chosenFileProblem } from "~/images/limits";
import { audienceField, type Audience } from "./circles";

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

/** The form's fields as the browser holds them. */
export type MomentFormShape = { title: string; content: string; image: File; audience: string };

export type MomentInput = {
  title: string;
  content: string;
  /** Who sees it (docs/spec.md §6); absent: the kid's default (adding) or unchanged (updating). */
  audience?: Audience;
};

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
      const problem = chosenFileProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
}

/** Object-level check that a photo was chosen (runs together with the other fields' checks). */
export function requireImage(message: string) {
  return [
    (v: { image?: unknown }, ctx: z.RefinementCtx) => {
      if (v.image === undefined || v.image === null || v.image === "") {
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
    title: z
      .string({ error: m.titleRequired })
      .trim()
      .min(1, m.titleRequired)
      .refine((v) => chars(v) <= TITLE_MAX, m.titleTooLong),
    content: z
      .string({ error: m.contentRequired })
      .trim()
      .min(1, m.contentRequired)
      .refine((v) => chars(v) <= CONTENT_MAX, m.contentTooLong),
    image: imageSchema(),
    audience: audienceField(),
  });
  const checked = variant === "add" ? fields.superRefine(...requireImage(m.imageRequired)) : fields;
  return checked.transform((v): MomentInput => ({ title: v.title, content: v.content, ...(v.audience ? { audience: v.audience } : {}) }));
}
