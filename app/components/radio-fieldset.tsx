import type { FieldMetadata } from "@conform-to/react";
import type { ReactNode } from "react";
import { FieldError } from "./form-basics";

// A group of radios in the GOV.UK error pattern, for the forms whose choices each say a word more
// (who sees a moment, the circle of an invitation): one fieldset, its legend and error, a radio a
// choice. No conform hooks here: the moment forms load it too (docs/decisions/0035-slow-networks.md).

export type RadioChoice<V extends string> = { value: V; label: string; hint?: string };

/**
 * `meta` is the form's field; `initial` the value checked at first; `describedBy` another id the
 * whole group is described by (a hint after the choices, given as `children`). The first radio
 * carries the field's id: the error summary links to it.
 */
export function RadioFieldset<V extends string>({
  meta,
  legend,
  choices,
  initial,
  onChoose,
  describedBy,
  children,
}: {
  meta: Pick<FieldMetadata<unknown>, "id" | "name" | "errorId" | "errors"> & { key?: string };
  legend: string;
  choices: RadioChoice<V>[];
  initial: string;
  onChoose?: (value: V) => void;
  describedBy?: string;
  children?: ReactNode;
}) {
  const hasError = Boolean(meta.errors?.length);
  const describers = [hasError ? meta.errorId : "", describedBy ?? ""].filter(Boolean).join(" ");
  return (
    <fieldset
      className={"fieldset audience" + (hasError ? " field--error" : "")}
      aria-describedby={describers || undefined}
      key={meta.key}
    >
      <legend>{legend}</legend>
      <FieldError id={meta.errorId} errors={meta.errors} />
      {choices.map(({ value, label, hint }, i) => {
        const id = i === 0 ? meta.id : `${meta.id}-${value}`;
        return (
          <div className="audience__choice" key={value || "default"}>
            <input
              type="radio"
              id={id}
              name={meta.name}
              value={value}
              defaultChecked={initial === value}
              aria-describedby={hint ? `${id}-hint` : undefined}
              onChange={onChoose ? () => onChoose(value) : undefined}
            />
            <label htmlFor={id}>{label}</label>
            {hint ? (
              <span id={`${id}-hint`} className="field-hint audience__hint">
                {hint}
              </span>
            ) : null}
          </div>
        );
      })}
      {children}
    </fieldset>
  );
}
