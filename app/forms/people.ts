import { z } from "zod";
import { isOneLine } from "~/lib/one-line";
import { notOneLineMessage } from "./text";

// The one place a person's name and a password are judged, for every form that takes them (sign-up,
// settings, joining by an invitation) and their /api bodies alike
// (docs/decisions/0061-real-names-and-long-passwords.md). Pure: the browser runs the same rules.

export const NAME_MAX = 50;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;

/** Letters and marks of any script, with spaces, hyphens, apostrophes, periods and the joiners some scripts need. */
const NAME_CHARACTERS = /^[\p{L}\p{M} \-\u2010'\u2019\u02bc.\u200c\u200d]+$/u;
const HAS_LETTER = /\p{L}/u;
/** Any run of spaces (a no-break or an ideographic space too) becomes one plain space. */
const SPACES = /\p{Zs}+/gu;

/** Length as people count it: code points, so "Zoë" is 3 whichever way it was typed, and an emoji is 1. */
export const characters = (text: string) => [...text].length;

/** The message of a name longer than NAME_MAX, e.g. "First name must be 50 characters or fewer." */
const nameTooLongMessage = (label: string, max = NAME_MAX) => `${label} must be ${max} characters or fewer.`;
const nameCharactersMessage = (label: string) =>
  `${label} can contain only letters, spaces, hyphens, apostrophes and periods.`;

/**
 * The problem with a name (already NFC, trimmed, spaces made single), or null: one message at a
 * time, the most basic first. `max`: NAME_MAX for a first or last name.
 */
function nameProblem(value: string, label: string, max = NAME_MAX): string | null {
  if (!isOneLine(value)) return notOneLineMessage(label);
  if (!NAME_CHARACTERS.test(value) || !HAS_LETTER.test(value)) return nameCharactersMessage(label);
  if (characters(value) > max) return nameTooLongMessage(label, max);
  return null;
}

/**
 * A person's name: 1 to `max` characters of letters of any script (docs/decisions/0061-*), NFC,
 * trimmed, each run of spaces one space. `required`: the message of an empty one. `keep`: the name
 * the account has now, taken as it is even if the rule would refuse it (saved before the rule: a
 * person is never made to rename themself to save another setting).
 */
export function personName(label: string, required: string, max = NAME_MAX, keep?: string | null) {
  return z
    .string({ error: required })
    .normalize("NFC")
    .trim()
    .overwrite((v) => v.replace(SPACES, " "))
    .min(1, required)
    .check((ctx) => {
      const problem = ctx.value === "" || ctx.value === keep ? null : nameProblem(ctx.value, label, max);
      // `continue`: a refinement's issue, so a union (an optional name) answers this message
      if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value, continue: true });
    });
}

export const passwordLengthMessage = `Password must be between ${PASSWORD_MIN} and ${PASSWORD_MAX} characters.`;

/** Is this a password of an acceptable length (code points, NIST SP 800-63B)? */
export const passwordLengthOk = (v: string) => characters(v) >= PASSWORD_MIN && characters(v) <= PASSWORD_MAX;

/** A password: PASSWORD_MIN to PASSWORD_MAX characters, any characters (spaces and emoji too), never trimmed. */
export const password = (required: string) =>
  z.string({ error: required }).min(1, required).refine(passwordLengthOk, passwordLengthMessage);

/** "Ana María López" → first "Ana", last "María López" (null when there is one word): how a join's one name field is kept. */
export function splitFullName(fullName: string): { first_name: string; last_name: string | null } {
  const [first, ...rest] = fullName.trim().split(" ");
  return { first_name: first ?? fullName, last_name: rest.join(" ") || null };
}

/** The join form's one name field: a first name, and a last name after the first space; each a name as above. */
export const joinName = personName("Your name", "Enter your name.", 2 * NAME_MAX + 1).check((ctx) => {
  if (characters(ctx.value) > 2 * NAME_MAX + 1) return; // already said
  const { first_name, last_name } = splitFullName(ctx.value);
  if (characters(first_name) > NAME_MAX || characters(last_name ?? "") > NAME_MAX)
    ctx.issues.push({
      code: "custom",
      message: `Your first name and your last name can each be at most ${NAME_MAX} characters.`,
      input: ctx.value,
      continue: true,
    });
});

/** The hint under every new-password field. */
export const PASSWORD_HINT = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`;
