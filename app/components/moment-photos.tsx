import type { FieldMetadata, SubmissionResult } from "@conform-to/react";
import { useActionData } from "react-router";
import { Photo as PhotoView } from "~/components/photo";
import { Field, FieldFrame, useHydrated } from "./forms";
import { PhotoPicker } from "./photo-picker";
import { MomentPhotos, type MomentPhotoView } from "./moment-photos-view";

export { MomentPhotos, type MomentPhotoView };
import { IMAGE_HINTS, MAX_PHOTOS } from "~/images/limits";
import { ALT_MAX, altField, freeSlots, photoField } from "~/forms/moment";

// A moment's photos (docs/decisions/0030-several-photos-per-moment.md): shown as one photo or a
// grid (app/app.css, "Several photos per moment"), and their fields in the add and update forms.
// Field names: app/forms/moment.ts.

type Fields = Record<string, FieldMetadata<unknown>>;

/** The names of the photo fields of a form, in the order the error summary lists them. */
export function photoFieldOrder(existing: { id?: number }[]): string[] {
  const names: string[] = [];
  for (const p of existing) if (p.id) names.push(photoField(p.id, "position"), photoField(p.id, "alt"));
  // slot 1's file is `image`, which the forms' own order already names
  for (let slot = 1; slot <= freeSlots(existing.length); slot++)
    names.push(...(slot === 1 ? [] : [`image_${slot}`]), altField(slot));
  return names;
}

/** The update form's starting values of the photos it has: their places and alt texts. */
export function photoDefaults(existing: MomentPhotoView[]): Record<string, string> {
  const out: Record<string, string> = {};
  existing.forEach((p, i) => {
    if (!p.id) return;
    out[photoField(p.id, "position")] = String(i + 1);
    out[photoField(p.id, "alt")] = p.alt;
  });
  return out;
}

const ALT_HINT = `Describe the photo for people who cannot see it (at most ${ALT_MAX} characters). Needed for each photo when there are several; a single photo without one is described by the title.`;

/**
 * The photo fields of the add and update forms. Update: each photo the moment has, with its place
 * (a number), its alt text and a Remove box. Then the free slots: the first one open, the others
 * behind "Add more photos" (a <details>, so it works without JavaScript). Every file input is named
 * `image`; slot n's alt text is `alt_<n>`.
 */
export function MomentPhotoFields({
  fields,
  existing = [],
  hint,
}: {
  fields: Fields;
  /** Update forms: the photos it has, in order. */
  existing?: MomentPhotoView[];
  /** The hint of the first slot. */
  hint: string;
}) {
  const free = freeSlots(existing.length);
  const slots = Array.from({ length: free }, (_, i) => i + 1);
  const slotField = (slot: number) => fields[slot === 1 ? "image" : `image_${slot}`]!;
  const laterHasError = slots.slice(1).some((s) => slotField(s).errors?.length || fields[altField(s)]!.errors?.length);
  const slotFields = (slot: number) => (
    <fieldset key={slot} className="fieldset photo-slot">
      <legend>{existing.length || slot > 1 ? `New photo ${existing.length + slot}` : "Photo"}</legend>
      <PhotoSlot
        meta={slotField(slot)}
        label={slot === 1 && !existing.length ? "Image Upload" : `Image ${existing.length + slot}`}
        hint={slot === 1 ? hint : IMAGE_HINTS.replace}
        slot={existing.length + slot}
        againId={slot === 1 && chooseAgain ? againId : undefined}
      />
      <Field
        meta={fields[altField(slot)]!}
        label={`Alt text of photo ${existing.length + slot}`}
        hint={slot === 1 ? ALT_HINT : undefined}
        inputProps={{ autoComplete: "off" }}
      />
    </fieldset>
  );
  // Without JavaScript a refused form comes back as a new page with empty file inputs: say so
  // (with JavaScript the page stays, and the chosen files with it). docs/design.md
  const refused = useActionData<{ result?: SubmissionResult<string[]> }>()?.result?.status === "error";
  const hydrated = useHydrated();
  const chooseAgain = refused && !hydrated;
  const againId = `${slotField(1).id}-again`;
  return (
    <div className="moment-photo-fields">
      {chooseAgain ? (
        <p id={againId} className="field-again">
          The form was not saved, so your photo was not kept: if you chose one, please choose it again.
        </p>
      ) : null}
      {existing.length ? (
        <fieldset className="fieldset">
          <legend>Photos of this moment</legend>
          <p className="field-hint">
            Change the numbers to put the photos in another order (1 comes first), and tick Remove to take a photo away.
            A moment has at most {MAX_PHOTOS} photos.
          </p>
          <ol className="photo-edit-list">
            {existing.map((p, i) => (
              <li key={p.id} className="photo-edit">
                <PhotoView photo={p} alt={`Photo ${i + 1}: ${p.alt}`} sizes="120px" className="photo-edit__img" />
                <div className="photo-edit__fields">
                  <Field
                    meta={fields[photoField(p.id!, "position")]!}
                    label={`Place of photo ${i + 1}`}
                    type="number"
                    inputProps={{ min: 1, max: MAX_PHOTOS, inputMode: "numeric", className: "input--short" }}
                  />
                  <Field
                    meta={fields[photoField(p.id!, "alt")]!}
                    label={`Alt text of photo ${i + 1}`}
                    inputProps={{ autoComplete: "off" }}
                  />
                  <div className="checkbox">
                    <input
                      type="checkbox"
                      id={`photo-${p.id}-remove`}
                      name={photoField(p.id!, "remove")}
                      value="on"
                      defaultChecked={fields[photoField(p.id!, "remove")]?.initialValue === "on"}
                    />
                    <label htmlFor={`photo-${p.id}-remove`}>Remove photo {i + 1}</label>
                  </div>
                </div>
              </li>
            ))}
          </ol>
        </fieldset>
      ) : null}
      {slots.length ? (
        slotFields(1)
      ) : (
        <p className="field-hint">This moment has {MAX_PHOTOS} photos: remove one to add another.</p>
      )}
      {slots.length > 1 ? (
        <details className="more-photos" open={laterHasError || undefined}>
          <summary>Add more photos (up to {MAX_PHOTOS} in all)</summary>
          {slots.slice(1).map(slotFields)}
        </details>
      ) : null}
    </div>
  );
}

/** One file input of a photo slot: the styled picker with its preview, its error beside it. */
function PhotoSlot({
  meta,
  label,
  hint,
  slot,
  againId,
}: {
  meta: FieldMetadata<unknown>;
  label: string;
  hint: string;
  slot: number;
  againId?: string;
}) {
  const hintId = `${meta.id}-hint`;
  const describedBy = [hintId, againId, meta.errors?.length ? meta.errorId : null].filter(Boolean).join(" ");
  return (
    <FieldFrame meta={meta} label={label} hint={hint} hintId={hintId}>
      <PhotoPicker
        inputProps={{
          id: meta.id,
          name: "image",
          "aria-describedby": describedBy,
          "aria-invalid": meta.errors?.length ? true : undefined,
        }}
        previewAlt={`Preview of photo ${slot}`}
      />
    </FieldFrame>
  );
}
