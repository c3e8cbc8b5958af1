import type { FieldMetadata } from "@conform-to/react";
import { RadioFieldset } from "./radio-fieldset";
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
  const initial = typeof meta.initialValue === "string" ? meta.initialValue : fallback;
  return <RadioFieldset meta={meta} legend={legend} choices={AUDIENCE_CHOICES} initial={initial} />;
}

const AUDIENCE_CHOICES = AUDIENCES.map((value) => ({
  value,
  label: AUDIENCE_LABELS[value],
  hint: AUDIENCE_HINTS[value],
}));

/** The three audiences as radios for a form without conform (a draft's); `id` goes to the first radio. */
export function AudienceChoices({
  id,
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
  return (
    <RadioFieldset meta={{ id, name, errorId, errors }} legend={legend} choices={AUDIENCE_CHOICES} initial={initial} />
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
