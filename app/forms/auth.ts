import { z } from "zod";
import { singleLine } from "./text";

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

export const password = (required: string) =>
  z
    .string({ error: required })
    .min(1, required)
    .refine((v) => v.length >= 6 && v.length <= 20, "Password must be between 6 and 20 characters.");

export const name = (label: "First name" | "Last name") =>
  singleLine(
    z
      .string({ error: `${label} is required.` })
      .trim()
      .min(1, `${label} is required.`)
      .refine((v) => v.length >= 3 && v.length <= 30, `${label} must be between 3 and 30 characters.`),
    label,
  );

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
