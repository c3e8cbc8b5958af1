// Text that must stay on one line: names, usernames, kid names, titles, milestone labels, alt texts
// (docs/decisions/0042-uploads-limits-private-files-and-one-line-text.md). Such text is shown in
// lists, headers and mail: a line break, NUL or another control character in it could fake a line
// of its own there (a "Bcc: …" line in a mail's text). Pure functions, for the browser and the
// server alike: the forms refuse such text (app/forms/text.ts), and what is written from rows made
// before the rule passes through `oneLine`.

/** Control characters (C0 with CR, LF, tab and NUL; DEL; C1) and the Unicode line and paragraph separators. */
const NOT_ONE_LINE = /[\p{Cc}\u2028\u2029]/u;
const NOT_ONE_LINE_RUNS = /[\p{Cc}\u2028\u2029]+/gu;

/** True when `text` has no control character and no line break. */
export function isOneLine(text: string): boolean {
  return !NOT_ONE_LINE.test(text);
}

/** Control characters other than tab, CR and LF: never in any text (PostgreSQL refuses NUL outright). */
const NOT_PLAIN = /[^\P{Cc}\t\n\r]/u;

/** True when `text` (several lines allowed: a moment's text, a comment, a note) has no control character but tab, CR and LF. */
export function isPlainText(text: string): boolean {
  return !NOT_PLAIN.test(text);
}

/** `text` with each run of control characters and line breaks made one space. */
export function oneLine(text: string): string {
  return text.replace(NOT_ONE_LINE_RUNS, " ");
}

/**
 * Text of several lines (a note, a comment) inside a mail's text part: every line after the first
 * starts with `indent`, so none of them can pass for a line of the message's own (no line of it
 * starts a header-like "Bcc: …" at the margin). Other control characters become spaces.
 */
export function indentedLines(text: string, indent: string): string {
  return text
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => oneLine(line))
    .join(`\n${indent}`);
}
