import { Form, useNavigation } from "react-router";
import type { Photo as PhotoData } from "~/images/photo";
import type { Audience } from "~/forms/audiences";
import { MILESTONE_NONE, MILESTONE_OTHER, MILESTONES, TITLE_MAX } from "~/forms/moment";
import { MAX_PHOTOS } from "~/images/limits";
import { Photo } from "./photo";
import { AudienceRadios, type FieldState, MilestoneFields, TextArea, TextField } from "./draft-fields";
import type { SummaryError } from "./forms";

// A draft moment on the review page (docs/decisions/0065-drafts.md): its form (title, text, date,
// milestone, audience, the alt text of each photo; save or publish), each photo's actions (move to
// another draft or a new one, split the draft before it, remove it), merge into another draft,
// discard. Every action is a plain POST form; a photo's buttons sit beside it and belong to the
// photo's own form (the `form` attribute), as forms cannot nest.

export type DraftView = {
  id: number;
  title: string;
  content: string;
  takenOn: string;
  dateText: string;
  ageText: string;
  expiresText: string;
  audience: Audience;
  milestone: string | null;
  photos: (PhotoData & { id: number; alt: string; name: string })[];
};

/** What a failed post of this page said about one draft. */
export type DraftFailure = { draftId?: number; errors?: Record<string, string[]>; values?: Record<string, string> };

export const draftFieldId = (draftId: number, name: string) => `draft-${draftId}-${name.replaceAll("_", "-")}`;

/** The error summary's lines for a failure: each field's error, linked to the field. */
export function draftSummary(failure: DraftFailure | undefined, message: string | undefined): SummaryError[] {
  const fields = Object.entries(failure?.errors ?? {});
  if (!failure?.draftId || !fields.length) return message ? [{ fieldId: "", message }] : [];
  return fields.flatMap(([name, messages]) =>
    messages.map((m) => ({ fieldId: draftFieldId(failure.draftId!, name), message: m })),
  );
}

function milestoneValues(milestone: string | null): { milestone: string; label: string } {
  if (!milestone) return { milestone: MILESTONE_NONE, label: "" };
  return (MILESTONES as readonly string[]).includes(milestone)
    ? { milestone, label: "" }
    : { milestone: MILESTONE_OTHER, label: milestone };
}

export function DraftCard({
  draft,
  kidName,
  others,
  failure,
  once,
}: {
  draft: DraftView;
  kidName: string;
  /** The other drafts of the kid, for "move to" and "merge into". */
  others: { id: number; label: string; photos: number }[];
  failure?: DraftFailure;
  once: (props?: object) => object;
}) {
  const mine = failure?.draftId === draft.id ? failure : undefined;
  const navigation = useNavigation();
  // the button whose form is on its way says so (a photo's by the photo, the others by the draft)
  const pending = (intent: string, id: number) => {
    const sent = navigation.state === "submitting" ? navigation.formData : undefined;
    const key = intent === "move" || intent === "drop" || intent === "split" ? "photo" : "draft";
    return sent?.get("intent") === intent && sent.get(key) === String(id);
  };
  const ms = milestoneValues(draft.milestone);
  const field = (name: string, value: string): FieldState => ({
    id: draftFieldId(draft.id, name),
    name,
    value: mine?.values?.[name] ?? value,
    errors: mine?.errors?.[name],
  });
  const n = draft.photos.length;
  const roomy = others.filter((o) => o.photos < MAX_PHOTOS);
  const photoForm = (photoId: number) => `draft-${draft.id}-photo-${photoId}`;
  return (
    <section id={`draft-${draft.id}`} className="card draft stack" aria-labelledby={`draft-${draft.id}-heading`}>
      <h2 id={`draft-${draft.id}-heading`}>
        {draft.dateText} · {n === 1 ? "1 photo" : `${n} photos`}
      </h2>
      <p className="field-hint">
        {draft.ageText ? `${draft.ageText}. ` : ""}Only you see this draft. It is kept until {draft.expiresText} unless
        you change it.
      </p>
      <Form method="post" id={`draft-${draft.id}-form`} className="stack" noValidate {...once()}>
        <input type="hidden" name="draft" value={draft.id} />
        <TextField f={field("title", draft.title)} label="Title" maxLength={TITLE_MAX * 2} />
        <TextArea f={field("content", draft.content)} label="Text" hint="What happened that day. Needed to publish." />
        <TextField
          f={field("taken_on", draft.takenOn)}
          label="Date of the moment"
          hint="For example, 2024-06-14."
          type="date"
        />
        <MilestoneFields
          select={field("milestone", ms.milestone)}
          label={field("milestone_label", ms.label)}
          kidName={kidName}
        />
        <AudienceRadios f={field("audience", draft.audience)} />
        <ol className="draft-photos" aria-label={`Photos of the draft of ${draft.dateText}`}>
          {draft.photos.map((p, i) => (
            <li key={p.id} className="draft-photo">
              <Photo
                photo={p}
                alt={p.alt || `Photo ${i + 1} (${p.name})`}
                sizes="160px"
                className="draft-photo__image"
              />
              <TextField
                f={field(`photo_${p.id}_alt`, p.alt)}
                label={`Alt text of photo ${i + 1}`}
                hint={`${p.name}: a short description for people who cannot see it.`}
              />
              <div className="draft-photo__actions">
                <label htmlFor={`${photoForm(p.id)}-to`}>Move photo {i + 1} to</label>
                <select id={`${photoForm(p.id)}-to`} name="to" form={photoForm(p.id)} defaultValue="new">
                  <option value="new">A new draft of this day</option>
                  {roomy.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.label}
                    </option>
                  ))}
                </select>
                <button
                  type="submit"
                  name="intent"
                  value="move"
                  form={photoForm(p.id)}
                  className="button button--secondary"
                >
                  {pending("move", p.id) ? "Moving…" : `Move photo ${i + 1}`}
                </button>
                {i > 0 ? (
                  <button
                    type="submit"
                    name="intent"
                    value="split"
                    form={photoForm(p.id)}
                    className="button button--secondary"
                  >
                    {pending("split", p.id) ? "Splitting…" : `Split: photo ${i + 1} and later to a new draft`}
                  </button>
                ) : null}
                <button
                  type="submit"
                  name="intent"
                  value="drop"
                  form={photoForm(p.id)}
                  className="button button--secondary"
                >
                  {pending("drop", p.id) ? "Removing…" : `Remove photo ${i + 1}`}
                </button>
              </div>
            </li>
          ))}
        </ol>
        <div className="draft__actions">
          <button type="submit" name="intent" value="publish" className="button button--primary">
            {pending("publish", draft.id) ? "Publishing…" : "Publish this moment"}
          </button>
          <button type="submit" name="intent" value="save" className="button button--secondary">
            {pending("save", draft.id) ? "Saving…" : "Save draft"}
          </button>
        </div>
      </Form>
      {draft.photos.map((p) => (
        <Form key={p.id} method="post" id={photoForm(p.id)} className="draft-photo__form" {...once()}>
          <input type="hidden" name="photo" value={p.id} />
          <input type="hidden" name="draft" value={draft.id} />
        </Form>
      ))}
      {others.length ? (
        <Form method="post" className="draft__merge" {...once()}>
          <input type="hidden" name="draft" value={draft.id} />
          <label htmlFor={`draft-${draft.id}-into`}>Merge this draft into</label>
          <select id={`draft-${draft.id}-into`} name="into">
            {others.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </select>
          <button type="submit" name="intent" value="merge" className="button button--secondary">
            {pending("merge", draft.id) ? "Merging…" : "Merge"}
          </button>
        </Form>
      ) : null}
      <Form method="post" {...once()}>
        <input type="hidden" name="draft" value={draft.id} />
        <button type="submit" name="intent" value="discard" className="button button--secondary">
          {pending("discard", draft.id) ? "Discarding…" : "Discard this draft and its photos"}
        </button>
      </Form>
    </section>
  );
}
