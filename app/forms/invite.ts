import { z } from "zod";
import { plainText } from "./text";
import { joinName, PASSWORD_MAX, PASSWORD_MIN, passwordLengthOk } from "./people";
import { CIRCLE_MESSAGES, CIRCLES, FRIEND_RELATIONSHIPS, type Circle, type FriendRelationship } from "./circles";

// The forms of invitations and sign-in links (docs/decisions/0026-*): an invitation, joining by
// one, asking for a sign-in link.

const optionalText = (max: number, message: string) =>
  z
    .string()
    .trim()
    .max(max, message)
    .optional()
    .transform((v) => (v ? v : undefined));

const emailValue = (required: string) =>
  z
    .string({ error: required })
    .trim()
    .toLowerCase()
    .min(1, required)
    .max(254, "Enter an email address like name@example.com.")
    .refine(
      (v) => /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(v),
      "Enter an email address like name@example.com.",
    );

export const CO_PARENT_KIDS_MESSAGE = "Choose among your own kids.";

/**
 * The kids an invitation makes its answer a co-parent of (docs/decisions/0060-co-parent-invitations.md):
 * the form's checkboxes (none, one value or several) or the API's list of ids. Which of them are the
 * inviter's own is the model's to say.
 */
const coParentKidsField = z.preprocess(
  (v) => (v === undefined || v === null || v === "" ? [] : Array.isArray(v) ? v : [v]),
  z
    .array(z.unknown(), { error: CO_PARENT_KIDS_MESSAGE })
    .max(50, CO_PARENT_KIDS_MESSAGE)
    .refine((list) => list.every((x) => /^[1-9][0-9]{0,9}$/.test(String(x))), CO_PARENT_KIDS_MESSAGE)
    .transform((list) => [...new Set(list.map(Number))]),
);

/**
 * A parent's new invitation: every field optional. No circle (the form's "As the relationship
 * implies", empty): the circle the relationship implies, Friends without one (impliedCircle,
 * docs/decisions/0059-the-circle-a-relationship-implies.md).
 */
export const InviteSchema = z.object({
  note: plainText(optionalText(500, "The note must be 500 characters or fewer."), "The note"),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, "Enter an email address like name@example.com.")
    .refine(
      (v) => v === "" || /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(v),
      "Enter an email address like name@example.com.",
    )
    .optional()
    .transform((v) => (v ? v : undefined)),
  circle: z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.enum(CIRCLES, { error: CIRCLE_MESSAGES.circle }).optional(),
  ),
  relationship: z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.enum(FRIEND_RELATIONSHIPS, { error: CIRCLE_MESSAGES.relationship }).optional(),
  ),
  coParentKids: coParentKidsField,
});
export type InviteInput = {
  note?: string;
  email?: string;
  circle?: Circle;
  relationship?: FriendRelationship;
  /** Kid ids: whoever accepts becomes their co-parent too. */
  coParentKids?: number[];
};

/** Joining by an invitation: name and email; a password only if they want one. */
export const JoinSchema = z.object({
  name: joinName,
  email: emailValue("Enter your email address."),
  password: z
    .string()
    .optional()
    .refine(
      (v) => !v || passwordLengthOk(v),
      `A password must be between ${PASSWORD_MIN} and ${PASSWORD_MAX} characters (or leave it empty).`,
    ),
});
export type JoinInput = z.output<typeof JoinSchema>;

/** "Email me a sign-in link" and "Forgot your password?". */
export const SignInLinkSchema = z.object({
  email: emailValue("Enter your email address."),
});
