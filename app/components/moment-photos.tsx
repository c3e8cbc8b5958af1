import type { FieldMetadata } from "@conform-to/react";
import { useCallback, useState } from "react";
import { href } from "react-router";
import { Photo as PhotoView } from "~/components/photo";
import { Field, FieldFrame } from "./forms";
import { FieldError, useHydrated } from "./form-basics";
import { PhotoUploads, type UploadItem } from "./photo-uploads";
import { MomentPhotos, type MomentPhotoView } from "./moment-photos-view";

export { MomentPhotos, type MomentPhotoView };
import { IMAGE_FIELD, MAX_PHOTOS } from "~/images/limits";
import { ALT_MAX, altField, PENDING_FIELD, pendingAltField, photoField } from "~/forms/moment";

// A moment's photos (docs/decisions/0030-several-photos-per-moment.md): shown as one photo or a
// grid (app/app.css, "Several photos per moment"), and their fields in the add and update forms.
// Field names: app/forms/moment.ts.

type Fields = Record<string, FieldMetadata<unknown>>;

/** The names of the photo fields of a form, in the order the error summary lists them. */
export function photoFieldOrder(existing: { id?: number }[], pending: { id: number }[] = []): string[] {
  const names: string[] = [];
  for (const p of existing) if (p.id) names.push(photoField(p.id, "position"), photoField(p.id, "alt"));
  for (const p of pending) names.push(pendingAltField(p.id));
  // the file control is `image`, which the forms' own order already names
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
 * The photo fields of the add and update forms (docs/decisions/0067-one-photo-control.md). Update:
 * each photo the moment has, with its place (a number), its alt text and a Remove box. Then the
 * photos sent before and kept for this form (`pending`: the server's answer), each with its alt
 * text; then ONE file control for new photos (`image`, several at once). Without JavaScript its
 * files go with the form and come back as pending photos asking their alt texts; with it, each is
 * sent as soon as it is chosen (PhotoUploads) and gets its alt text field in place.
 */
export function MomentPhotoFields({
  fields,
  existing = [],
  pending = [],
  clips = 0,
  kidId,
  hint,
}: {
  fields: Fields;
  /** Update forms: the photos it has, in order. */
  existing?: MomentPhotoView[];
  /** Photos sent before and kept, waiting for this form (the action's answer). */
  pending?: PendingPhotoView[];
  /** The clips the moment has: they count toward its MAX_PHOTOS items. */
  clips?: number;
  kidId: number;
  /** The hint of the file control. */
  hint: string;
}) {
  const [sent, setSent] = useState<number[]>([]);
  const onUploads = useCallback(
    (items: UploadItem[]) => setSent(items.flatMap((it) => (it.photo ? [it.photo.id] : []))),
    [],
  );
  // with JavaScript, the photos sent from this page stay in its list (with what was typed) after
  // an answer; the answer's list shows only the others (those the form sent without JavaScript)
  const sentIds = new Set(sent);
  const kept = pending.filter((p) => !sentIds.has(p.id));
  const room = Math.max(0, MAX_PHOTOS - existing.length - clips - kept.length);
  const image = fields.image!;
  const hintId = `${image.id}-hint`;
  const several = existing.length + kept.length > 0;
  const hydrated = useHydrated();
  return (
    <div className="moment-photo-fields">
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
      {kept.length ? (
        <fieldset className="fieldset">
          <legend>{kept.length === 1 ? "Your new photo" : "Your new photos"}</legend>
          <p className="field-hint">
            They are kept for this form and shown to nobody else until you save it. {ALT_HINT}
          </p>
          <ol className="photo-edit-list">
            {kept.map((p, i) => (
              <li key={p.id} className="photo-edit">
                <PhotoView
                  photo={p}
                  alt={`New photo ${existing.length + i + 1}`}
                  sizes="120px"
                  className="photo-edit__img"
                />
                <div className="photo-edit__fields">
                  <Field
                    meta={fields[pendingAltField(p.id)]!}
                    label={`Alt text of photo ${existing.length + i + 1}`}
                    inputProps={{ autoComplete: "off" }}
                  />
                </div>
              </li>
            ))}
          </ol>
        </fieldset>
      ) : null}
      {room > 0 ? (
        <>
          <FieldFrame
            meta={image}
            label={several ? "Add photos" : "Image Upload"}
            hint={`${hint} You can choose several at once (up to ${room}); you give each its alt text next.`}
            hintId={hintId}
          >
            <PhotoUploads
              inputProps={{
                id: image.id,
                name: IMAGE_FIELD,
                "aria-describedby": [hintId, image.errors?.length ? image.errorId : null].filter(Boolean).join(" "),
                "aria-invalid": image.errors?.length ? true : undefined,
              }}
              uploadUrl={href("/api/kids/:kidId/pending_photos", { kidId: String(kidId) })}
              max={room}
              numberOf={(i) => existing.length + kept.length + i + 1}
              onChange={onUploads}
              listName={PENDING_FIELD}
              listBefore={kept.map((p) => p.id)}
              renderItem={(item, n) => (
                // with JavaScript each photo chosen gets its alt text field in place
                <UploadAltField
                  item={item}
                  n={n}
                  meta={item.photo ? fields[pendingAltField(item.photo.id)] : undefined}
                />
              )}
            />
          </FieldFrame>
          {!hydrated && !several ? (
            // without JavaScript the first photo's alt text is asked beside the control, as with one
            // photo (docs/spec.md); the others' come on the next step
            <Field
              meta={fields[altField(1)]!}
              label="Alt text of photo 1"
              hint={ALT_HINT}
              inputProps={{ autoComplete: "off" }}
            />
          ) : null}
        </>
      ) : (
        <>
          <input type="hidden" name={PENDING_FIELD} value={kept.map((p) => p.id).join(",")} />
          <p className="field-hint">This moment has {MAX_PHOTOS} photos and clips: remove one to add another.</p>
        </>
      )}
    </div>
  );
}

/** A photo kept for the form, as the action answers it. */
export type PendingPhotoView = Pick<MomentPhotoView, "key" | "width" | "height" | "widths" | "placeholder"> & {
  id: number;
};

/**
 * The alt text field of a photo sent from the page (with JavaScript): named once the server has
 * kept it, with the server's error for it after an answer (the summary links to it by its id).
 */
function UploadAltField({ item, n, meta }: { item: UploadItem; n: number; meta?: FieldMetadata<unknown> }) {
  const id = meta?.id ?? `${item.key}-alt`;
  const errors = meta?.errors;
  const errorId = meta?.errorId ?? `${id}-error`;
  return (
    <div className={"field" + (errors?.length ? " field--error" : "")}>
      <label htmlFor={id}>Alt text of photo {n}</label>
      <FieldError id={errorId} errors={errors} />
      <input
        id={id}
        type="text"
        name={item.photo ? pendingAltField(item.photo.id) : undefined}
        autoComplete="off"
        maxLength={ALT_MAX}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={errors?.length ? errorId : undefined}
      />
    </div>
  );
}
