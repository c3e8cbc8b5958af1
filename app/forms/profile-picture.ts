import { z } from "zod";
import { chosenFileProblem, IMAGE_MESSAGES } from "~/images/limits";
import { SERVER_ERROR_MESSAGE } from "~/lib/messages";

// The profile picture form (docs/spec.md §2 "Modals", §5 "Profile picture"), shared by the browser and the
// /profile/picture action. In the browser `image` is the chosen File, checked for presence, size
// and declared type before anything is sent. On the server the streaming multipart parser keeps
// the file out of the form data, and the action passes IMAGE_PRESENT (app/images/limits.ts) in its
// place when a file arrived; the image module then judges the bytes and its message replaces these.

export const PICTURE_INTENTS = ["upload", "update"] as const;

/** The page action answers JSON (for the upload with a progress bar) when this header is sent. */
export const PICTURE_JSON_HEADER = "X-Picture-Upload";

/** The limit and its wording are the image module's (app/images/limits.ts). */
export const PICTURE_MESSAGES = {
  required: "Image is required",
  tooBig: IMAGE_MESSAGES.tooBig,
  notAnImage: IMAGE_MESSAGES.notAnImage,
  serverError: SERVER_ERROR_MESSAGE,
} as const;

/** Where the user goes after a picture change (docs/spec.md §2, Modals). */
export const AFTER_PICTURE_CHANGE = "/my-kids-list";

export const PictureSchema = z.object({
  intent: z.enum(PICTURE_INTENTS).optional(),
  image: z.any().superRefine((value: unknown, ctx) => {
    if (value === undefined || value === null || value === "") {
      ctx.addIssue({ code: "custom", message: PICTURE_MESSAGES.required });
      return;
    }
    if (typeof File !== "undefined" && value instanceof File) {
      // the declared type is only a first hint; the server checks the content
      // no bytes and no name: nothing was chosen; a chosen empty file is no image (chosenFileProblem)
      const problem = value.size === 0 && !value.name ? PICTURE_MESSAGES.required : chosenFileProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }
  }),
});
