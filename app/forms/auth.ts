import { z } from "zod";
import { singleLine } from "./text";
import { password, personName } from "./people";

// One schema per form, used by conform in the browser and by the action / API on the server.
// Messages are the spec's, verbatim. Conform turns empty inputs into `undefined`, so "required"
// is the message for a missing value.

export const email = (required: string) =>
  z
    .string({ error: required })
    .trim()
    .toLowerCase()
    .min(1, required)
    .max(254, "Please provide a valid email.")
    .refine((v) => /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u.test(v), "Please provide a valid email.");

/**
 * A first or last name (app/forms/people.ts: 1 to 50 characters of letters of any script); `keep`:
 * the account's own, accepted unchanged.
 */
export const name = (label: "First name" | "Last name", keep?: string | null) =>
  personName(label, `${label} is required.`, undefined, keep);

export const username = singleLine(
  z
    .string({ error: "The username is required." })
    .trim()
    .min(1, "The username is required.")
    .refine((v) => v.length >= 3 && v.length <= 30, "Username must be between 3 and 30 characters."),
  "Username",
);

export const LoginSchema = z.object({
  email: email("Email is required."),
  password: password("Password is required."),
});

const signupFields = {
  first_name: name("First name"),
  last_name: name("Last name"),
  username,
  email: email("The email is required."),
  password: password("The password is required."),
};

/** The "Create your account" modal. */
export const SignupSchema = z
  .object({
    ...signupFields,
    confirmPassword: z.string({ error: "The confirmPassword is required." }).min(1, "The confirmPassword is required."),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Confirm Password field match the Password.",
    path: ["confirmPassword"],
  });

/** The older standalone sign-up page: no names. */
export const LegacySignupSchema = z
  .object({
    email: signupFields.email,
    username,
    password: signupFields.password,
    confirmPassword: z.string({ error: "The confirmPassword is required." }).min(1, "The confirmPassword is required."),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Confirm Password field must be the same as the Password field.",
    path: ["confirmPassword"],
  });

/** POST /api/auth/signup: names are optional as a pair (older clients send neither). */
export function apiSignupSchema(body: Record<string, unknown>) {
  const hasNames = body.first_name != null || body.last_name != null;
  return hasNames
    ? z.object(signupFields)
    : z.object({ email: signupFields.email, username, password: signupFields.password });
}
