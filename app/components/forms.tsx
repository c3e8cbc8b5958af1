import {
  useEffect,
  useRef,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import {
  getInputProps,
  getSelectProps,
  getTextareaProps,
  useForm,
  type FieldMetadata,
  type SubmissionResult,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";
import { FieldError, SubmissionToken, useHydrated, useSubmitOnce } from "./form-basics";

export { FieldError, SubmissionToken, useHydrated, useSubmitOnce };

// GOV.UK's form pattern: a real <label>, the error beside the field tied by aria-describedby, and an
// error summary at the top that takes focus and links to each field.

export type SummaryError = { fieldId: string; message: string };

/** Every error of a conform form, in field order, for the summary (form-level errors link to the form). */
export function summaryErrors(
  fields: Record<string, FieldMetadata<unknown>>,
  order: string[],
  formErrors?: string[],
  formId?: string,
): SummaryError[] {
  const out: SummaryError[] = [];
  for (const message of formErrors ?? []) out.push({ fieldId: formId ?? "", message });
  for (const name of order) {
    const meta = fields[name];
    for (const message of meta?.errors ?? []) out.push({ fieldId: meta!.id, message });
  }
  return out;
}

/**
 * "There is a problem" box. Rendered with autoFocus so a full-page (no-JS) answer lands on it; with
 * JavaScript it takes focus again after every failed submit of `formId`.
 */
export function ErrorSummary({ errors, formId }: { errors: SummaryError[]; formId: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const key = errors.map((e) => e.fieldId + e.message).join("|");
  const focusNext = useRef(false);

  useEffect(() => {
    const form = document.getElementById(formId);
    if (!form) return;
    const onSubmit = () => {
      focusNext.current = true;
      // client-side validation blocks the submit and re-renders at once; server errors come later
      setTimeout(() => {
        if (focusNext.current && ref.current) {
          ref.current.focus();
          focusNext.current = false;
        }
      }, 0);
    };
    form.addEventListener("submit", onSubmit);
    return () => form.removeEventListener("submit", onSubmit);
  }, [formId]);

  useEffect(() => {
    if (errors.length && focusNext.current) {
      ref.current?.focus();
      focusNext.current = false;
    }
  }, [key, errors.length]);

  if (!errors.length) return null;
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: the focused summary is named by its title when read out; axe checks the page
    <div className="error-summary" ref={ref} tabIndex={-1} autoFocus aria-labelledby={`${formId}-summary-title`}>
      <h2 id={`${formId}-summary-title`} className="error-summary__title">
        There is a problem
      </h2>
      <ul className="error-summary__list">
        {errors.map((e, i) => (
          <li key={i}>{e.fieldId ? <a href={`#${e.fieldId}`}>{e.message}</a> : e.message}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * One field's frame: the error state, the label, the hint (tied to the control by `hintId`), the
 * error beside the field, then the control. `before` goes above the label (a current photo).
 */
export function FieldFrame({
  meta,
  label,
  hint,
  hintId,
  before,
  children,
}: {
  meta: Pick<FieldMetadata<unknown>, "id" | "errorId" | "errors">;
  label: ReactNode;
  hint?: ReactNode;
  hintId?: string;
  before?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className={"field" + (meta.errors?.length ? " field--error" : "")}>
      {before}
      <label htmlFor={meta.id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <FieldError id={meta.errorId} errors={meta.errors} />
      {children}
    </div>
  );
}

type FieldProps = {
  meta: FieldMetadata<string | undefined | null> | FieldMetadata<unknown>;
  label: ReactNode;
  hint?: ReactNode;
  type?: "text" | "email" | "password" | "search" | "date" | "number";
  inputProps?: InputHTMLAttributes<HTMLInputElement>;
};

export function Field({ meta, label, hint, type = "text", inputProps }: FieldProps) {
  const m = meta as FieldMetadata<string>;
  const hintId = hint ? `${m.id}-hint` : undefined;
  const props = getInputProps(m, { type, ariaDescribedBy: hintId });
  return (
    <FieldFrame meta={m} label={label} hint={hint} hintId={hintId}>
      <input {...props} {...inputProps} key={props.key} />
    </FieldFrame>
  );
}

export function TextareaField({
  meta,
  label,
  hint,
  textareaProps,
}: {
  meta: FieldMetadata<unknown>;
  label: ReactNode;
  hint?: ReactNode;
  textareaProps?: TextareaHTMLAttributes<HTMLTextAreaElement>;
}) {
  const m = meta as FieldMetadata<string>;
  const hintId = hint ? `${m.id}-hint` : undefined;
  const props = getTextareaProps(m, { ariaDescribedBy: hintId });
  return (
    <FieldFrame meta={m} label={label} hint={hint} hintId={hintId}>
      <textarea {...props} {...textareaProps} key={props.key} />
    </FieldFrame>
  );
}

export function SelectField({
  meta,
  label,
  placeholder,
  options,
  selectProps,
}: {
  meta: FieldMetadata<unknown>;
  label: ReactNode;
  placeholder: string;
  options: { value: string; label: string }[];
  selectProps?: SelectHTMLAttributes<HTMLSelectElement>;
}) {
  const m = meta as FieldMetadata<string>;
  const props = getSelectProps(m);
  return (
    <FieldFrame meta={m} label={label}>
      <select {...props} {...selectProps} key={props.key}>
        <option value="">{placeholder}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** A submit button that says it is busy while its form is on its way. */
export function SubmitButton({
  pending,
  children,
  pendingText,
  className = "button button--primary",
  ...rest
}: { pending?: boolean; children: ReactNode; pendingText?: string } & React.ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="submit" className={className} aria-disabled={pending || undefined} {...rest}>
      {pending ? (pendingText ?? "Please wait…") : children}
    </button>
  );
}

const ERROR_PREFIX = "Error: ";

/** `Error: ` prefix for the page title when the form has errors (GOV.UK pattern). */
export function pageTitle(title: string, hasErrors: boolean): string {
  return `${hasErrors ? ERROR_PREFIX : ""}${title} – Sweet Moments`;
}

/**
 * The same prefix for a form that does not own the page's <title>: a modal's (log in, sign up,
 * profile picture) over some page. While `hasErrors`, the document title starts with "Error: ";
 * the page's own title comes back when the errors go or the modal closes. (Without JavaScript a
 * failed modal form answers its own page, whose title says it.)
 */
export function useErrorTitle(hasErrors: boolean) {
  useEffect(() => {
    if (!hasErrors || document.title.startsWith(ERROR_PREFIX)) return;
    document.title = ERROR_PREFIX + document.title;
    return () => {
      if (document.title.startsWith(ERROR_PREFIX)) document.title = document.title.slice(ERROR_PREFIX.length);
    };
  }, [hasErrors]);
}

/**
 * A conform form validated by `schema` in the browser (on submit, then as the user types) with the
 * server's answer `lastResult`: the settings forms' shared set-up.
 */
export function useSchemaForm<S extends z.ZodObject>(
  id: string,
  schema: S,
  lastResult?: SubmissionResult<string[]>,
  defaultValue?: Record<string, string>,
) {
  return useForm<z.input<S>, z.output<S>>({
    id,
    lastResult,
    defaultValue: defaultValue as never,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
}
