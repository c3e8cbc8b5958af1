import { useState } from "react";
import { getInputProps, useForm, type DefaultValue, type FieldMetadata, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";
import { Link, useActionData, useNavigation } from "react-router";
import { Field, FieldFrame, SelectField, SubmitButton, summaryErrors, TextareaField, useHydrated, useSubmitOnce } from "./forms";
import { ConfirmDialog } from "./modal";
import { ListLink } from "./list-link";
import { Photo as PhotoView } from "~/components/photo";
import { PhotoPicker } from "./photo-picker";
import type { Photo } from "~/images/photo";
import { DAY_OPTIONS, MONTH_OPTIONS, RELATIONSHIPS } from "~/forms/kid";
import { CONTENT_MAX, TITLE_MAX } from "~/forms/moment";

// Pieces shared by the kid and moment screens (My Kids, a kid's moments, a moment, and the four
// add/update forms). Styles: app/styles/kids.css.

/**
 * A kid's age with its tooltip ("Born on …"). The age is a real button, so the tooltip opens on
 * keyboard focus as well as on hover, and screen readers hear it through aria-describedby. Escape
 * hides it (WCAG 1.4.13) until the pointer or focus leaves. Works without JavaScript (CSS only).
 */
export function KidAge({ id, age, born, birthDate }: { id: string; age: string; born: string; birthDate: string }) {
  const [dismissed, setDismissed] = useState(false);
  if (!age) return null;
  const tipId = `${id}-tip`;
  return (
    <span
      className={"age-tip" + (dismissed ? " age-tip--dismissed" : "")}
      onMouseLeave={() => setDismissed(false)}
      onBlur={() => setDismissed(false)}
    >
      <button
        type="button"
        className="age-tip__trigger"
        aria-describedby={tipId}
        onKeyDown={(e) => {
          if (e.key === "Escape") setDismissed(true);
        }}
      >
        <span className="visually-hidden">Age: </span>
        {age}
      </button>
      <span role="tooltip" id={tipId} className="age-tip__bubble">
        Born on <time dateTime={birthDate}>{born}</time>
      </span>
    </span>
  );
}

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
  // Without JavaScript the browser sends the whole form and shows the answer as a new page: a file
  // input is always empty there, so after a refused submission say that the photo must be chosen
  // again (with JavaScript the page stays and the chosen file with it). docs/design.md
  const refused = useActionData<{ result?: SubmissionResult<string[]> }>()?.result?.status === "error";
  const hydrated = useHydrated();
  const chooseAgain = refused && !hydrated;
  const againId = `${m.id}-again`;
  // the styled picker with its preview (app/components/photo-picker.tsx); no `key`: a remount would lose the chosen file
  const { key: _key, ...inputProps } = getInputProps(m, { type: "file", ariaDescribedBy: chooseAgain ? `${hintId} ${againId}` : hintId });
  const before =
    current !== undefined ? (
      <figure className="current-photo">
        <PhotoView photo={current} alt={currentAlt ?? "Current picture"} sizes="160px" icon="child" className="current-photo__img" />
        <figcaption>{current ? "Current picture" : "No picture yet"}</figcaption>
      </figure>
    ) : null;
  return (
    <FieldFrame meta={m} label={label} hint={hint} hintId={hintId} before={before}>
      {chooseAgain ? (
        <p id={againId} className="field-again">
          The form was not saved, so your photo was not kept: if you chose one, please choose it again.
        </p>
      ) : null}
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
          <SelectField meta={fields.day} label="Day" placeholder="Day" options={DAY_OPTIONS.map((d) => ({ value: d, label: d }))} />
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
export function MomentFields({ fields }: { fields: { title: FieldMetadata<unknown>; content: FieldMetadata<unknown> } }) {
  return (
    <>
      <Field meta={fields.title} label="Title" hint={`At most ${TITLE_MAX} characters.`} inputProps={{ autoComplete: "off" }} />
      <TextareaField meta={fields.content} label="Content" hint={`At most ${CONTENT_MAX} characters.`} textareaProps={{ rows: 6 }} />
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
export function SubmitOrCancel({ pendingText, cancelTo, children }: { pendingText: string; cancelTo: string; children: string }) {
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

/**
 * The owner's Update and Delete for one moment (Delete opens the confirm dialog by URL).
 * `replace`: Delete replaces the history entry (the moment's own page: see DeleteMomentDialog).
 */
export function MomentOwnerActions({ momentId, title, deleteTo, replace }: { momentId: number; title: string; deleteTo: string; replace?: boolean }) {
  return (
    <div className="button-row moment__actions">
      <ListLink to={`/dailyLogs/${momentId}/update`} className="button button--secondary button--small">
        Update<span className="visually-hidden"> {title}</span>
      </ListLink>
      <ListLink to={deleteTo} keepScroll replace={replace} className="button button--danger button--small">
        Delete<span className="visually-hidden"> {title}</span>
      </ListLink>
    </div>
  );
}

/**
 * "Confirm Delete": the Yes button posts `intent=delete-moment` to `action`. On the moment's own
 * page (`replace`) the dialog was opened in place of the page's history entry and the answer
 * replaces it too: after the deletion, Back leads to where the visitor was before the moment,
 * never to the deleted moment's "Page not found".
 */
export function DeleteMomentDialog({ momentId, action, closeTo, replace }: { momentId: number; action: string; closeTo: string; replace?: boolean }) {
  return (
    <ConfirmDialog
      title="Confirm Delete"
      question="Are you sure you want to delete this moment?"
      yesLabel="Yes (Remove Daily Log)"
      noLabel="No (Keep Daily Log)"
      closeTo={closeTo}
      action={action}
      intent="delete-moment"
      hidden={{ dailyLogId: String(momentId) }}
      replace={replace}
    />
  );
}

/** The search string without the confirm dialog's parameters (where "close" and "back" go). */
export function withoutConfirm(search: string): string {
  const params = new URLSearchParams(search);
  for (const name of ["confirm", "kidId", "dailyLogId"]) params.delete(name);
  const q = params.toString();
  return q ? `?${q}` : "";
}

/** Loaders re-run on every navigation; opening or closing a confirm dialog changes nothing on the server. */
export function onlyConfirmChanged(currentUrl: URL, nextUrl: URL): boolean {
  return currentUrl.pathname === nextUrl.pathname && withoutConfirm(currentUrl.search) === withoutConfirm(nextUrl.search);
}
