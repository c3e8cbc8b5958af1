import type { ReactNode } from "react";
import { MILESTONE_MAX, MILESTONE_NONE } from "~/forms/moment";
import { AudienceChoices } from "./audience";
import { MilestoneOptions } from "./moment-story";
import { FieldError } from "./form-basics";

// The fields of a draft moment's form on the review page (docs/decisions/0065-drafts.md): plain
// controls with a real label, a hint, and the error beside the field (GOV.UK), ids made from the
// draft's so that a page of many drafts has no clash and the error summary links to the field.

export type FieldState = { id: string; name: string; value: string; errors?: string[] };

function Frame({ f, label, hint, children }: { f: FieldState; label: ReactNode; hint?: string; children: ReactNode }) {
  return (
    <div className={"field" + (f.errors?.length ? " field--error" : "")}>
      <label htmlFor={f.id}>{label}</label>
      {hint ? (
        <p id={`${f.id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${f.id}-error`} errors={f.errors} />
      {children}
    </div>
  );
}

/** aria-describedby of a control: its hint and its error. */
const describedBy = (f: FieldState, hint?: string) =>
  [hint ? `${f.id}-hint` : "", f.errors?.length ? `${f.id}-error` : ""].filter(Boolean).join(" ") || undefined;

export function TextField({
  f,
  label,
  hint,
  type = "text",
  maxLength,
}: {
  f: FieldState;
  label: ReactNode;
  hint?: string;
  type?: "text" | "date";
  maxLength?: number;
}) {
  return (
    <Frame f={f} label={label} hint={hint}>
      <input
        id={f.id}
        name={f.name}
        type={type}
        defaultValue={f.value}
        maxLength={maxLength}
        autoComplete="off"
        aria-describedby={describedBy(f, hint)}
        aria-invalid={f.errors?.length ? true : undefined}
      />
    </Frame>
  );
}

export function TextArea({ f, label, hint }: { f: FieldState; label: ReactNode; hint?: string }) {
  return (
    <Frame f={f} label={label} hint={hint}>
      <textarea
        id={f.id}
        name={f.name}
        defaultValue={f.value}
        rows={3}
        aria-describedby={describedBy(f, hint)}
        aria-invalid={f.errors?.length ? true : undefined}
      />
    </Frame>
  );
}

/** Milestone: a select, and a label used with "Other" (always shown: the page works without scripts). */
export function MilestoneFields({
  select,
  label,
  kidName,
}: {
  select: FieldState;
  label: FieldState;
  kidName: string;
}) {
  return (
    <fieldset className="fieldset milestone-fields">
      <legend>Milestone</legend>
      <Frame f={select} label={`Is this one of ${kidName}'s milestones?`}>
        <select id={select.id} name={select.name} defaultValue={select.value || MILESTONE_NONE}>
          <MilestoneOptions />
        </select>
      </Frame>
      <TextField
        f={label}
        label="Label for Other (optional)"
        hint={`Used only when you choose Other, at most ${MILESTONE_MAX} characters.`}
        maxLength={MILESTONE_MAX}
      />
    </fieldset>
  );
}

/** Who sees it: the three audiences, the kid's default chosen when the draft has none. */
export function AudienceRadios({ f }: { f: FieldState }) {
  return (
    <AudienceChoices
      id={f.id}
      name={f.name}
      errorId={`${f.id}-error`}
      errors={f.errors}
      legend="Who can see it"
      initial={f.value}
    />
  );
}
