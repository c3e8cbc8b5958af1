import { getSelectProps, type FieldMetadata } from "@conform-to/react";
import { Link } from "react-router";
import type { AltPhoto } from "~/images/photo";
import { MomentPhotos } from "./moment-photos";
import { Field, FieldFrame } from "./forms";
import { MILESTONE_MAX, MILESTONE_NONE, MILESTONE_OTHER, MILESTONES } from "~/forms/moment";

// The moment forms' "story" fields (issue #15): the moment's date and its milestone. Kept apart
// from the moment's title/content/photo fields (app/components/kids.tsx) so other additions to the
// same forms merge without touching these. Styles: app/styles/kids.css.

export type StoryFieldsMeta = {
  taken_on: FieldMetadata<unknown>;
  milestone: FieldMetadata<unknown>;
  milestone_label: FieldMetadata<unknown>;
};

/** The story fields' names, in the order the error summary lists their errors (after the moment's own). */
export const STORY_FIELD_ORDER = ["taken_on", "milestone", "milestone_label"] as const;

/**
 * Date (a native date input: a text box "YYYY-MM-DD" where the browser has no date picker) and
 * Milestone (a select, "Other" with a label). `variant` words the date's hint.
 */
export function StoryFields({ fields, variant, kidName }: { fields: StoryFieldsMeta; variant: "add" | "update"; kidName: string }) {
  const hint =
    variant === "add"
      ? "For example, 2024-06-14. Leave empty to use the date the photo was taken (or today)."
      : "For example, 2024-06-14.";
  const milestone = fields.milestone as FieldMetadata<string>;
  const select = getSelectProps(milestone);
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
          <select {...select} key={select.key} defaultValue={milestone.initialValue ?? MILESTONE_NONE}>
            <option value={MILESTONE_NONE}>No milestone</option>
            {MILESTONES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
            <option value={MILESTONE_OTHER}>Other (give it a label)</option>
          </select>
        </FieldFrame>
        <Field
          meta={fields.milestone_label}
          label="Label for Other"
          hint={`Only with Other, at most ${MILESTONE_MAX} characters. For example, First swim.`}
          inputProps={{ autoComplete: "off" }}
        />
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

/** A moment's date as pages show it: "14 June 2024 · Elsa was 2 years, 3 months". */
export type MomentDateView = { takenOn: string; date: string; age: string };

export function MomentDate({ view, kidName }: { view: MomentDateView; kidName?: string }) {
  return (
    <p className="moment__date">
      {kidName ? <>{kidName} · </> : null}
      <time dateTime={view.takenOn}>{view.date}</time>
      {view.age ? <> · {view.age}</> : null}
    </p>
  );
}

/** The milestone badge ("Milestone: First steps"), or nothing. */
export function MilestoneBadge({ milestone }: { milestone: string | null }) {
  if (!milestone) return null;
  return (
    <p className="milestone-badge">
      <span className="visually-hidden">Milestone: </span>
      <span aria-hidden="true">★ </span>
      {milestone}
    </p>
  );
}

/** A moment in a kid's milestones or timeline: title (to the moment's page), badge, date and age, photo, text. */
export function StoryMoment({
  moment,
  priority = false,
}: {
  moment: { id: number; title: string; content: string; photos: AltPhoto[]; milestone: string | null; date: MomentDateView };
  priority?: boolean;
}) {
  return (
    <article id={`moment-${moment.id}`} className="moment card" aria-labelledby={`moment-${moment.id}-title`}>
      <h3 id={`moment-${moment.id}-title`} className="moment__title">
        <Link to={`/dailyLogs/${moment.id}`}>{moment.title}</Link>
      </h3>
      <MilestoneBadge milestone={moment.milestone} />
      <MomentDate view={moment.date} />
      <MomentPhotos
        photos={moment.photos}
        title={moment.title}
        sizes="(max-width: 42rem) 100vw, 640px"
        priority={priority}
        overlay={<Link to={`/dailyLogs/${moment.id}`} tabIndex={-1} aria-hidden="true" aria-label={moment.title} className="moment__photo-link" />}
      />
      <p className="moment__content">{moment.content}</p>
    </article>
  );
}

/** A list of StoryMoments, the first one loaded eagerly. */
export function StoryMomentList({ moments }: { moments: Parameters<typeof StoryMoment>[0]["moment"][] }) {
  return (
    <ol className="moment-list">
      {moments.map((m, i) => (
        <li key={m.id}>
          <StoryMoment moment={m} priority={i === 0} />
        </li>
      ))}
    </ol>
  );
}

/** The kid page's links to the story views. */
export function StoryLinks({ kidId, current }: { kidId: number; current?: "milestones" | "timeline" | "moments" }) {
  const links = [
    { key: "moments", to: `/kids/${kidId}/dailyLogs`, label: "All moments" },
    { key: "milestones", to: `/kids/${kidId}/milestones`, label: "Milestones" },
    { key: "timeline", to: `/kids/${kidId}/timeline`, label: "Timeline by age" },
  ] as const;
  return (
    <nav aria-label="Views of the kid's moments" className="story-links">
      <ul>
        {links.map((l) => (
          <li key={l.key}>
            <Link to={l.to} aria-current={current === l.key ? "page" : undefined}>
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
