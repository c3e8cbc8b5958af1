import type { z } from "zod";
import { asFormValue } from "~/forms/parse-body.server";
import { readFields } from "./read-body.server";
import { apiFieldErrors, fieldErrorsFromIssues } from "./responses.server";

/**
 * The text fields `names` of an /api body through a form's schema: the parsed value, or the 400
 * (B) envelope to answer (thrown, as the body readers do).
 */
export async function readAccountBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  names: string[],
): Promise<z.output<S>> {
  const raw = await readFields(request);
  const body = Object.fromEntries(names.map((k) => [k, asFormValue(raw[k])]));
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw apiFieldErrors(fieldErrorsFromIssues(parsed.error.issues));
  return parsed.data;
}
