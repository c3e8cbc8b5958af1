import type { z } from "zod";
import { isOneLine, isPlainText } from "~/lib/one-line";

// The one rule "a single line of text" of every form schema that takes a name, a username, a kid's
// name, a title or a label (pages and /api alike): no line break, NUL or other control character
// (app/lib/one-line.ts). Moment and comment text and notes keep their line breaks, and only those
// (`plainText`).

/** The message of a field that is not one line, e.g. "Name cannot contain line breaks or control characters." */
export const notOneLineMessage = (label: string) => `${label} cannot contain line breaks or control characters.`;

/** `schema` (a string field, possibly optional) with the one-line rule added, its message naming `label`. */
export function singleLine<S extends z.ZodType<string | undefined>>(schema: S, label: string): S {
  return schema.refine((v) => v === undefined || isOneLine(v), notOneLineMessage(label)) as S;
}

/** The message of a text of several lines with a control character, e.g. "Content cannot contain control characters." */
export const notPlainTextMessage = (label: string) => `${label} cannot contain control characters.`;

/** `schema` (a text of several lines: a moment's text, a note) with NUL and the other control characters but tab, CR and LF refused. */
export function plainText<S extends z.ZodType<string | undefined>>(schema: S, label: string): S {
  return schema.refine((v) => v === undefined || isPlainText(v), notPlainTextMessage(label)) as S;
}
