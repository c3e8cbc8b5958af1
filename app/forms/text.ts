import type { z } from "zod";
import { isOneLine } from "~/lib/one-line";

// The one rule "a single line of text" of every form schema that takes a name, a username, a kid's
// name, a title or a label (pages and /api alike): no line break, NUL or other control character
// (app/lib/one-line.ts). Moment and comment text keep their line breaks.

/** The message of a field that is not one line, e.g. "Name cannot contain line breaks or control characters." */
export const notOneLineMessage = (label: string) => `${label} cannot contain line breaks or control characters.`;

/** `schema` (a string field, possibly optional) with the one-line rule added, its message naming `label`. */
export function singleLine<S extends z.ZodType<string | undefined>>(schema: S, label: string): S {
  return schema.refine((v) => v === undefined || isOneLine(v), notOneLineMessage(label)) as S;
}
