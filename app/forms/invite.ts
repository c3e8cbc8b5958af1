import { z } from "zod";
import { plainText, singleLine } from "./text";
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
});
export type InviteInput = { note?: string; email?: string; circle?: Circle; relationship?: FriendRelationship };

/** Joining by an invitation: name and email; a password only if they want one. */
export const JoinSchema = z.object({
  name: singleLine(
    z
      .string({ error: "Enter your name." })
      .trim()
      .min(1, "Enter your name.")
      .max(60, "Your name must be 60 characters or fewer."),
    "Your name",
  ),
  email: emailValue("Enter your email address."),
  password: z
    .string()
    .optional()
    .refine(
      (v) => !v || (v.length >= 6 && v.length <= 20),
      "A password must be between 6 and 20 characters (or leave it empty).",
    ),
});
export type JoinInput = z.output<typeof JoinSchema>;

/** "Email me a sign-in link" and "Forgot your password?". */
export const SignInLinkSchema = z.object({
  email: emailValue("Enter your email address."),
});
