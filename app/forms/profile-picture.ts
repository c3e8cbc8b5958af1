import { z } from "zod";

// The profile picture form (spec §2 modal, §5 "Profile picture"), shared by the browser and the
// /profile/picture action. In the browser `image` is the chosen File, checked for presence, size
// and declared type before anything is sent. On the server the streaming multipart parser keeps
// the file out of the form data, and the action passes PICTURE_PRESENT in its place when a file
// arrived; the image module then judges the bytes and its message replaces these.

export const PICTURE_INTENTS = ["upload", "update"] as const;
export type PictureIntent = (typeof PICTURE_INTENTS)[number] | "delete";

/** The page action answers JSON (for the upload with a progress bar) when this header is sent. */
export const PICTURE_JSON_HEADER = "X-Picture-Upload";

/** Stands for "a file was uploaded" when the server validates the form. */
export const PICTURE_PRESENT = "uploaded-file";

/** Same limit and wording as the image module (app/images/multipart.server.ts, process.server.ts). */
export const PICTURE_MAX_BYTES = 15 * 1024 * 1024;

export const PICTURE_MESSAGES = {
  required: "Image is required",
  tooBig: "Image must be 15 MB or smaller.",
  notAnImage: "Only image files are accepted.",
  serverError: "Something went wrong. Please try again.",
} as const;

/** Where the user goes after a picture change (spec §1). */
export const AFTER_PICTURE_CHANGE = "/my-kids-list";

export const PictureSchema = z.object({
  intent: z.enum(PICTURE_INTENTS).optional(),
  image: z.any().superRefine((value: unknown, ctx) => {
    if (value === undefined || value === null || value === "") {
      ctx.addIssue({ code: "custom", message: PICTURE_MESSAGES.required });
      return;
    }
    if (typeof File !== "undefined" && value instanceof File) {
      if (value.size === 0) ctx.addIssue({ code: "custom", message: PICTURE_MESSAGES.required });
      else if (value.size > PICTURE_MAX_BYTES) ctx.addIssue({ code: "custom", message: PICTURE_MESSAGES.tooBig });
      // the declared type is only a first hint; the server checks the content
      else if (value.type && !value.type.startsWith("image/")) ctx.addIssue({ code: "custom", message: PICTURE_MESSAGES.notAnImage });
    }
  }),
});
