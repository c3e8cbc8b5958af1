import { data, redirect } from "react-router";
import type { z } from "zod";
import { readPhotoForm, retryAfterSeconds } from "~/api/read-body.server";
import { discardFiles } from "~/forms/photo-form.server";
import { altField, MOMENT_MESSAGES, PENDING_FIELD, PHOTO_MESSAGES, pendingAltField } from "~/forms/moment";
import { IMAGE_FIELD, MAX_PHOTOS, MULTIPART_MESSAGES } from "~/images/limits";
import { fileDigest, slotErrorField } from "~/images/multipart.server";
import type { MomentPhotos } from "~/models/moment-photos.server";
import { keepPendingPhotos, pendingFromFields, readPendingPhotos } from "~/models/pending-photos.server";
import type { Result } from "~/models/refusal";
import { OWNER_ONLY, pageRefusal } from "./refusal.server";
import type { PhotoFormUpload } from "./forms.server";

// The action of a moment's add and update pages (docs/decisions/0067-one-photo-control.md): like
// savePhotoForm (app/web/forms.server.ts), but every photo that came is first kept as a pending
// photo, so a form answered with its errors (a missing alt text, a wrong title, one file that is
// not a photo) shows the photos it has instead of asking to choose them again. Without JavaScript
// this is the second step that asks the alt texts of several new photos; with it, the photos come
// one by one beforehand (app/routes/api/kids-pending-photos.ts) and the form names them.

export async function saveMomentForm<S extends z.ZodType, T extends object>(
  request: Request,
  schema: S,
  steps: {
    viewerId: number;
    /** The kid the photos are for; checked (the owner check) before the body is read. */
    kidId: () => Promise<Result<{ kidId: number }>>;
    save: (value: z.output<S>, token: string | undefined, photos: MomentPhotos) => Promise<Result<T>>;
    /** The page's photos' fields: `momentPhotosFrom` (app/forms/photo-form.server.ts) without the files. */
    photos: (upload: PhotoFormUpload) => MomentPhotos;
    to: (saved: T) => string;
  },
) {
  const kid = await steps.kidId();
  if (!kid.ok) throw pageRefusal(kid, { forbidden: OWNER_ONLY });
  const form = await readPhotoForm(request, schema, {
    uploader: steps.viewerId,
    maxFiles: MAX_PHOTOS,
    maxVideos: 1,
  });
  try {
    if (form.photoLimitWaitMs) {
      return data(
        { result: form.reply(), pending: await readPendingPhotos(steps.viewerId, kid.kidId, ids(form.fields)) },
        { status: 429, headers: { "Retry-After": String(retryAfterSeconds(form.photoLimitWaitMs)) } },
      );
    }
    // what the files were, for the one-time token (a form sent twice keeps its photos twice)
    const digests = new Map(
      await Promise.all(form.files.map(async (f) => [f.slot, await fileDigest(f.file)] as const)),
    );
    const kept = await keepPendingPhotos(steps.viewerId, kid.kidId, form.files);
    if (!kept.ok) throw pageRefusal(kept, { forbidden: OWNER_ONLY });
    // the new photos join the ones the form names, each with the alt text its slot was given
    const named = pendingFromFields(form.fields);
    const fresh = kept.kept.map((p) => ({
      id: p.id,
      alt: form.fields[altField(p.slot)] ?? "",
      digest: digests.get(p.slot),
    }));
    const shown = await readPendingPhotos(steps.viewerId, kid.kidId, [
      ...named.map((p) => p.id),
      ...fresh.map((p) => p.id),
    ]);
    const takenOn = new Map(shown.map((p) => [p.id, p.takenOn]));
    const pending = [...named, ...fresh]
      .filter((p) => takenOn.has(p.id))
      .map((p) => ({ ...p, takenOn: takenOn.get(p.id) ?? null }));
    const fields = {
      ...form.fields,
      [PENDING_FIELD]: pending.map((p) => p.id).join(","),
      ...Object.fromEntries(fresh.map((p) => [pendingAltField(p.id), p.alt])),
    };
    const names = new Map(form.files.map((f) => [f.slot, f.file.filename]));
    const refused = Object.fromEntries(kept.refused.map((r) => [slotErrorField(r.slot), r.messages]));
    const answer = (extra?: Record<string, string[]>) => {
      const result = form.reply({ ...refused, ...extra });
      return data({ result: oneFileField(withFields(result, fields), names), pending: shown }, { status: 400 });
    };
    if (!form.value || kept.refused.length) return answer();
    const photos = { ...steps.photos({ files: [], videos: form.videos, fields: form.fields }), pending };
    const saved = await steps.save(form.value, form.submissionToken, photos);
    if (!saved.ok) {
      if (saved.kind === "invalid") return answer(saved.fieldErrors);
      throw pageRefusal(saved, { forbidden: OWNER_ONLY });
    }
    return redirect(steps.to(saved));
  } finally {
    await discardFiles(form);
  }
}

function ids(fields: Record<string, string | undefined>): number[] {
  return pendingFromFields(fields).map((p) => p.id);
}

const SLOT_FIELD = /^image_([1-9][0-9]?)$/;

/**
 * The errors of the files a form sent, all on its one file field `image` (several files: each
 * message after the file's name, or its number when the name is not known).
 */
function oneFileField<R extends { error?: Record<string, string[] | null> | null }>(
  result: R,
  names: Map<number, string>,
): R {
  if (!result.error) return result;
  const error: Record<string, string[] | null> = {};
  const files: string[] = [];
  const several = Object.keys(result.error).some((k) => SLOT_FIELD.test(k)) || names.size > 1;
  for (const [key, messages] of Object.entries(result.error)) {
    const slot = key === IMAGE_FIELD ? 1 : Number(SLOT_FIELD.exec(key)?.[1] ?? 0);
    if (!slot) {
      error[key] = messages;
      continue;
    }
    const name = names.get(slot) || `File ${slot}`;
    for (const m of messages ?? []) files.push(several && !isWholeFormMessage(m) ? `${name}: ${m}` : m);
  }
  if (files.length) error[IMAGE_FIELD] = files;
  return { ...result, error };
}

/** Messages about all the photos together (too many), not one file. */
function isWholeFormMessage(message: string): boolean {
  const whole: string[] = [MULTIPART_MESSAGES.tooManyPhotos, MOMENT_MESSAGES.add.imageRequired, PHOTO_MESSAGES.keepOne];
  return whole.includes(message);
}

/** The form's answer with the values it shows again: the pending photos' list and their alt texts. */
function withFields<R extends { initialValue?: unknown }>(result: R, fields: Record<string, string | undefined>): R {
  const initial = (result.initialValue ?? {}) as Record<string, unknown>;
  return { ...result, initialValue: { ...initial, ...fields } };
}
