import type { FieldMetadata } from "@conform-to/react";
import { FieldError } from "./form-basics";

// Choosing kids or a person without a dropdown of usernames (docs/decisions/0060-co-parent-invitations.md):
// each choice is a real checkbox or radio button with its own label, a person shown by name with
// the username as a hint (two relatives may share a first name; nobody knows a username by heart).
// Plain inputs: they work without JavaScript. Styles: app/styles/friends.css (.choice).

export type KidOption = { id: number; name: string };
export type PersonOption = { id: number; name: string; username: string };

/** "Also make them a co-parent of": the parent's own kids as checkboxes (none checked: a relative). */
export function CoParentKidsChoice({ meta, kids }: { meta: FieldMetadata<unknown>; kids: KidOption[] }) {
  if (!kids.length) return null;
  const initial = meta.initialValue;
  const checked = new Set((Array.isArray(initial) ? initial : initial ? [initial] : []).map(String));
  const hasError = Boolean(meta.errors?.length);
  const hintId = `${meta.id}-hint`;
  return (
    <fieldset
      className={`fieldset${hasError ? " field--error" : ""}`}
      aria-describedby={hasError ? `${hintId} ${meta.errorId}` : hintId}
      key={meta.key}
    >
      <legend>Also make them a co-parent of (optional)</legend>
      <p className="field-hint" id={hintId}>
        For your partner: a co-parent adds moments, changes them and sees every moment of the kid, those shared “Only
        us” included. Leave it empty for a relative or a friend.
      </p>
      <FieldError id={meta.errorId} errors={meta.errors} />
      <div className="choice-list">
        {kids.map((kid, i) => {
          const id = i === 0 ? meta.id : `${meta.id}-${kid.id}`;
          return (
            <div className="choice" key={kid.id}>
              <input
                type="checkbox"
                id={id}
                name={meta.name}
                value={kid.id}
                defaultChecked={checked.has(`${kid.id}`)}
              />
              <label htmlFor={id}>{kid.name}</label>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}

/** One person among `people` as round buttons: the name as label, "@username" as its hint. */
export function PersonChoice({
  name,
  legend,
  people,
  idPrefix,
}: {
  name: string;
  legend: string;
  people: PersonOption[];
  idPrefix: string;
}) {
  return (
    <fieldset className="fieldset">
      <legend>{legend}</legend>
      <div className="choice-list">
        {people.map((p) => {
          const id = `${idPrefix}-${p.id}`;
          return (
            <div className="choice" key={p.id}>
              <input type="radio" id={id} name={name} value={p.id} required aria-describedby={`${id}-hint`} />
              <label htmlFor={id}>{p.name}</label>
              <p className="field-hint choice__hint" id={`${id}-hint`}>
                @{p.username}
              </p>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
