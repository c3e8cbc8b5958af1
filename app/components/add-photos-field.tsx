import { IMAGE_FIELD } from "~/images/limits";
import { FieldError } from "./form-basics";

// "Add photos"'s file control (docs/decisions/0065-drafts.md): ONE plain `<input type="file"
// multiple>` with its own label and hint, that works without JavaScript. Self-contained, so a
// picker that shows each file's progress can take its place without touching the page.

export function AddPhotosField({
  id = "add-photos-image",
  label,
  hint,
  error,
}: {
  id?: string;
  label: string;
  hint: string;
  error?: string | null;
}) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className={"field" + (error ? " field--error" : "")}>
      <label htmlFor={id}>{label}</label>
      <p id={hintId} className="field-hint">
        {hint}
      </p>
      <FieldError id={errorId} errors={error ? [error] : undefined} />
      <input
        id={id}
        name={IMAGE_FIELD}
        type="file"
        multiple
        accept="image/*"
        aria-describedby={error ? `${hintId} ${errorId}` : hintId}
        aria-invalid={error ? true : undefined}
      />
    </div>
  );
}
