import { getSelectProps, type FieldMetadata } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import { Field, FieldFrame, useHydrated } from "./forms";
import { MILESTONE_MAX, MILESTONE_NONE, MILESTONE_OTHER, MILESTONES } from "~/forms/moment";

// The moment forms' "story" fields (docs/decisions/0028-*): the moment's date and its milestone.
// Kept apart from the moment's title/content/photo fields (app/components/kids.tsx) so other
// additions to the same forms merge without touching these. Styles: app/styles/kids.css.

export type StoryFieldsMeta = {
  taken_on: FieldMetadata<unknown>;
  milestone: FieldMetadata<unknown>;
  milestone_label: FieldMetadata<unknown>;
};

/** The story fields' names, in the order the error summary lists their errors (after the moment's own). */
export const STORY_FIELD_ORDER = ["taken_on", "milestone", "milestone_label"] as const;

/**
 * Date (a native date input: a text box "YYYY-MM-DD" where the browser has no date picker) and
 * Milestone (a select, "Other" with a label). `variant` words the date's hint. The label's field
 * shows only while "Other" is chosen once the page's scripts run; without them it is always there,
 * worded as optional and used only with Other.
 */
export function StoryFields({
  fields,
  variant,
  kidName,
}: {
  fields: StoryFieldsMeta;
  variant: "add" | "update";
  kidName: string;
}) {
  const hint =
    variant === "add"
      ? "For example, 2024-06-14. Leave empty to use the date the photo was taken (or today)."
      : "For example, 2024-06-14.";
  const milestone = fields.milestone as FieldMetadata<string>;
  const select = getSelectProps(milestone);
  const hydrated = useHydrated();
  const selectRef = useRef<HTMLSelectElement>(null);
  const [choice, setChoice] = useState(milestone.initialValue ?? MILESTONE_NONE);
  // a choice made before the scripts ran is the select's own value, not the state's
  useEffect(() => {
    if (selectRef.current) setChoice(selectRef.current.value);
  }, []);
  const labelErrors = (fields.milestone_label as FieldMetadata<string>).errors;
  const showLabel = !hydrated || choice === MILESTONE_OTHER || (labelErrors?.length ?? 0) > 0;
  return (
    <>
      <Field
        meta={fields.taken_on}
        label={`Date of the moment`}
        hint={hint}
        type="date"
        inputProps={{ placeholder: "YYYY-MM-DD", pattern: "\\d{4}-\\d{2}-\\d{2}", autoComplete: "off" }}
      />
      <fieldset className="fieldset milestone-fields">
        <legend>Milestone</legend>
        <FieldFrame meta={milestone} label={`Is this one of ${kidName}'s milestones?`}>
          <select
            {...select}
            key={select.key}
            ref={selectRef}
            defaultValue={milestone.initialValue ?? MILESTONE_NONE}
            onChange={(e) => setChoice(e.currentTarget.value)}
          >
            <MilestoneOptions />
          </select>
        </FieldFrame>
        {showLabel ? (
          <Field
            meta={fields.milestone_label}
            label={hydrated ? "Label for Other" : "Label for Other (optional)"}
            hint={
              hydrated
                ? `At most ${MILESTONE_MAX} characters. For example, First swim.`
                : `Used only when you choose Other, at most ${MILESTONE_MAX} characters. For example, First swim.`
            }
            inputProps={{ autoComplete: "off" }}
          />
        ) : null}
      </fieldset>
    </>
  );
}

/** The update form's starting values for a stored milestone (a label not in the list is "Other"). */
export function milestoneDefaults(milestone: string | null): { milestone: string; milestone_label: string } {
  if (!milestone) return { milestone: MILESTONE_NONE, milestone_label: "" };
  if ((MILESTONES as readonly string[]).includes(milestone)) return { milestone, milestone_label: "" };
  return { milestone: MILESTONE_OTHER, milestone_label: milestone };
}

/** The milestone select's options: none, the milestones, Other (the moment forms and a draft's). */
export function MilestoneOptions() {
  return (
    <>
      <option value={MILESTONE_NONE}>No milestone</option>
      {MILESTONES.map((m) => (
        <option key={m} value={m}>
          {m}
        </option>
      ))}
      <option value={MILESTONE_OTHER}>Other (give it a label)</option>
    </>
  );
}
