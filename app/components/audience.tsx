import type { FieldMetadata } from "@conform-to/react";
import { FieldError } from "./form-basics";
import { AUDIENCE_HINTS, AUDIENCE_LABELS, AUDIENCES, type Audience } from "~/forms/audiences";

// Who sees a moment (docs/spec.md §6): the radio group of the moment forms (and of the kid forms,
// for the kid's default), and the small label the kid's owner and co-parents see on a moment.

/**
 * "Who can see it": Only us, Family, Everyone. `meta` is the form's `audience` (or
 * `default_audience`) field; `fallback` is checked when the form has no value yet.
 */
export function AudienceFields({
  meta,
  legend,
  fallback,
}: {
  meta: FieldMetadata<unknown>;
  legend: string;
  fallback: Audience;
}) {
  return (
    <AudienceChoices
      key={meta.key}
      id={meta.id}
      name={meta.name}
      errorId={meta.errorId}
      errors={meta.errors}
      legend={legend}
      initial={typeof meta.initialValue === "string" ? meta.initialValue : fallback}
    />
  );
}

/** The three audiences as radios (the first carries `id`: the error summary links to it); no form library. */
export function AudienceChoices({
  id: first,
  name,
  errorId,
  errors,
  legend,
  initial,
}: {
  id: string;
  name: string;
  errorId: string;
  errors?: string[];
  legend: string;
  initial: string;
}) {
  const hasError = Boolean(errors?.length);
  return (
    <fieldset
      className={"fieldset audience" + (hasError ? " field--error" : "")}
      aria-describedby={hasError ? errorId : undefined}
    >
      <legend>{legend}</legend>
      <FieldError id={errorId} errors={errors} />
      {AUDIENCES.map((value, i) => {
        // the first radio carries the field's id: the error summary links to it
        const id = i === 0 ? first : `${first}-${value}`;
        return (
          <div className="audience__choice" key={value}>
            <input
              type="radio"
              id={id}
              name={name}
              value={value}
              defaultChecked={initial === value}
              aria-describedby={`${id}-hint`}
            />
            <label htmlFor={id}>{AUDIENCE_LABELS[value]}</label>
            <span id={`${id}-hint`} className="field-hint audience__hint">
              {AUDIENCE_HINTS[value]}
            </span>
          </div>
        );
      })}
    </fieldset>
  );
}

/** The small label on a moment for its kid's owner and co-parents: a paragraph of its own. */
export function AudienceLabel({ audience }: { audience: Audience }) {
  return (
    <p className={`audience-label audience-label--${audience}`}>
      <span className="visually-hidden">Seen by: </span>
      {AUDIENCE_LABELS[audience]}
    </p>
  );
}
