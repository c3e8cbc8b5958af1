import { data, redirect, href } from "react-router";
import type { z } from "zod";
import { readPhotoForm, retryAfterSeconds } from "~/api/read-body.server";
import { parseId } from "~/lib/request.server";
import type { SlotFile, UploadedFile } from "~/images/multipart.server";
import { discardFiles, type PhotoBodyOptions } from "~/forms/photo-form.server";

/** Every photo a form sent, with its text fields (a moment's photo fields: app/forms/moment.ts). */
export type PhotoFormUpload = { files: SlotFile[]; videos: SlotFile[]; fields: Record<string, string | undefined> };
import { deleteMoment } from "~/models/moment-changes.server";
import type { Result } from "~/models/refusal";
import { OWNER_ONLY, pageRefusal } from "./refusal.server";
import { FORGET_KEPT_PAGES } from "./conditional.server";

// The actions the kid and moment pages share: their add/update forms and the delete-moment form.

/**
 * The action of the kid and moment pages' forms (add, update). `allowed` (the owner check, when
 * the page changes something that exists) runs before the body is read: a refusal is the page's
 * (app/web/refusal.server.ts, with OWNER_ONLY for a friend). Then it reads the multipart form and
 * its photo (app/forms/photo-form.server.ts), answers the form with its errors (400) when it is not
 * valid, otherwise saves it through `save` (the domain call) and redirects to `to(saved)`. An
 * invalid refusal (e.g. a photo that is not one) is the form with its errors again; any other is
 * the page's. The photo's temporary file is removed whatever happens.
 */
export async function savePhotoForm<S extends z.ZodType, T extends object>(
  request: Request,
  schema: S,
  steps: {
    allowed?: () => Promise<Result>;
    /** `token`: the form's one-time submission token as sent (a creating form passes it to its model). */
    save: (
      value: z.output<S>,
      file: UploadedFile | null,
      token: string | undefined,
      upload: PhotoFormUpload,
    ) => Promise<Result<T>>;
    to: (saved: T) => string;
  },
  opts: PhotoBodyOptions,
) {
  const { allowed, save, to } = steps;
  const access = await allowed?.();
  if (access && !access.ok) throw pageRefusal(access, { forbidden: OWNER_ONLY });
  const form = await readPhotoForm(request, schema, opts);
  try {
    if (form.photoLimitWaitMs) {
      // past the hourly photo limit: the form again with the message, nothing decoded
      return data(
        { result: form.reply() },
        { status: 429, headers: { "Retry-After": String(retryAfterSeconds(form.photoLimitWaitMs)) } },
      );
    }
    if (!form.value) return data({ result: form.reply() }, { status: 400 });
    const saved = await save(form.value, form.file, form.submissionToken, {
      files: form.files,
      videos: form.videos,
      fields: form.fields,
    });
    if (!saved.ok) {
      if (saved.kind === "invalid") return data({ result: form.reply(saved.fieldErrors) }, { status: 400 });
      throw pageRefusal(saved, { forbidden: OWNER_ONLY });
    }
    return redirect(to(saved));
  } finally {
    await discardFiles(form);
  }
}

/**
 * The delete-moment form's action, on a kid's moments page and on a moment's page: any other
 * intent is refused (400); the moment is the page's own (`momentId`) or, without one, the form's
 * `momentId` (not an id: 404). Deletes it (owner only) and goes to the kid's moments.
 */
export async function deleteMomentForm(request: Request, viewerId: number, momentId?: number) {
  const form = await request.formData();
  if (form.get("intent") !== "delete-moment") throw data("That request could not be handled.", { status: 400 });
  const id = momentId ?? parseId(String(form.get("momentId") ?? ""));
  if (!id) throw data("Not found", { status: 404 });
  const deleted = await deleteMoment(viewerId, id);
  if (!deleted.ok) throw pageRefusal(deleted, { forbidden: OWNER_ONLY });
  return redirect(href("/kids/:kidId/dailyLogs", { kidId: String(deleted.kidId) }), { headers: FORGET_KEPT_PAGES });
}
