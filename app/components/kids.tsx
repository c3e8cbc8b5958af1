import {
  getInputProps,
  useForm,
  type DefaultValue,
  type FieldMetadata,
  type SubmissionResult,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";
import { Link, useNavigation } from "react-router";
import { Field, FieldFrame, SelectField, SubmitButton, summaryErrors, TextareaField, useSubmitOnce } from "./forms";
import { Photo as PhotoView } from "~/components/photo";
import { PhotoPicker } from "./photo-picker";
import { ChooseAgain, useChooseAgain } from "./choose-again";
import type { Photo } from "~/images/photo";
import { DAY_OPTIONS, MONTH_OPTIONS, RELATIONSHIPS } from "~/forms/kid";
import { CONTENT_MAX, TITLE_MAX } from "~/forms/moment";

// Pieces shared by the kid and moment screens (My Kids, a kid's moments, a moment, and the four
// add/update forms). Styles: app/styles/kids.css.

/** The photo file input: images only, the current photo (update forms), its error beside it. */
export function PhotoField({
  meta,
  label,
  hint,
  current,
  currentAlt,
}: {
  meta: FieldMetadata<unknown>;
  label: string;
  hint: string;
  /** Update forms: the photo now (null: none yet). Add forms: leave out. */
  current?: Photo | null;
  currentAlt?: string;
}) {
  const m = meta as FieldMetadata<string>;
  const hintId = `${m.id}-hint`;
  const chooseAgain = useChooseAgain();
  const againId = `${m.id}-again`;
  // the styled picker with its preview (app/components/photo-picker.tsx); no `key`: a remount would lose the chosen file
  const { key: _key, ...inputProps } = getInputProps(m, {
    type: "file",
    ariaDescribedBy: chooseAgain ? `${hintId} ${againId}` : hintId,
  });
  const before =
    current !== undefined ? (
      <figure className="current-photo">
        <PhotoView
          photo={current}
          alt={currentAlt ?? "Current picture"}
          sizes="160px"
          icon="child"
          className="current-photo__img"
        />
        <figcaption>{current ? "Current picture" : "No picture yet"}</figcaption>
      </figure>
    ) : null;
  return (
    <FieldFrame meta={m} label={label} hint={hint} hintId={hintId} before={before}>
      {chooseAgain ? <ChooseAgain id={againId} what="photo" /> : null}
      <PhotoPicker inputProps={inputProps} previewAlt="Preview of the chosen photo" />
    </FieldFrame>
  );
}

type KidFieldsMeta = {
  name: FieldMetadata<unknown>;
  year: FieldMetadata<unknown>;
  month: FieldMetadata<unknown>;
  day: FieldMetadata<unknown>;
  relationship: FieldMetadata<unknown>;
};

/** Name, Birth Date (year, month, day selects) and Relationship: the Add and Update Kid forms. */
export function KidFields({ fields, years }: { fields: KidFieldsMeta; years: number[] }) {
  const dateErrors = [fields.year, fields.month, fields.day].some((f) => f.errors?.length);
  return (
    <>
      <Field meta={fields.name} label="Name" inputProps={{ autoComplete: "off" }} />
      <fieldset className={"fieldset birth-date" + (dateErrors ? " birth-date--error" : "")}>
        <legend>Birth Date</legend>
        <div className="inline-fields">
          <SelectField
            meta={fields.year}
            label="Year"
            placeholder="Year"
            options={years.map((y) => ({ value: String(y), label: String(y) }))}
          />
          <SelectField meta={fields.month} label="Month" placeholder="Month" options={MONTH_OPTIONS} />
          <SelectField
            meta={fields.day}
            label="Day"
            placeholder="Day"
            options={DAY_OPTIONS.map((d) => ({ value: d, label: d }))}
          />
        </div>
      </fieldset>
      <SelectField
        meta={fields.relationship}
        label="Relationship"
        placeholder="Choose a relationship"
        options={RELATIONSHIPS.map((r) => ({ value: r, label: r }))}
      />
    </>
  );
}

/** Title and Content: the Add and Update moment forms. */
export function MomentFields({
  fields,
}: {
  fields: { title: FieldMetadata<unknown>; content: FieldMetadata<unknown> };
}) {
  return (
    <>
      <Field
        meta={fields.title}
        label="Title"
        hint={`At most ${TITLE_MAX} characters.`}
        inputProps={{ autoComplete: "off" }}
      />
      <TextareaField
        meta={fields.content}
        label="Content"
        hint={`At most ${CONTENT_MAX} characters.`}
        textareaProps={{ rows: 6 }}
      />
    </>
  );
}

/** The kid and moment forms' fields, in the order the error summary lists their errors. */
export const KID_FIELD_ORDER = ["name", "year", "month", "day", "relationship", "image", "default_audience"] as const;
export const MOMENT_FIELD_ORDER = ["title", "content", "image", "audience"] as const;

/**
 * The conform state of the four add/update forms: checked on submit, then on every input, by the
 * schema the server uses too; `once` wraps the form's props (useSubmitOnce); `errors` lists the form's own and then each field's, in `order`, for
 * the error summary.
 */
export function usePhotoForm<Shape extends Record<string, unknown>, Output>(
  id: string,
  schema: z.ZodType<Output>,
  order: readonly (keyof Shape & string)[],
  lastResult: SubmissionResult<string[]> | null | undefined,
  defaultValue?: DefaultValue<Shape>,
) {
  const [form, fields] = useForm<Shape, Output>({
    id,
    lastResult,
    defaultValue,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  // a form on its way ignores further submits (app/components/forms.tsx)
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  return { form, fields, once, errors: summaryErrors(fields as never, [...order], form.errors, id) };
}

/** The add/update forms' last row: the submit button (busy while the form is on its way) and Cancel. */
export function SubmitOrCancel({
  pendingText,
  cancelTo,
  children,
}: {
  pendingText: string;
  cancelTo: string;
  children: string;
}) {
  const navigation = useNavigation();
  return (
    <div className="button-row">
      <SubmitButton pending={navigation.state === "submitting"} pendingText={pendingText}>
        {children}
      </SubmitButton>
      <Link to={cancelTo} className="button button--secondary">
        Cancel
      </Link>
    </div>
  );
}
