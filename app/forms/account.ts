import { z } from "zod";
import { email, name, username } from "./auth";
import { password } from "./people";

// The settings page's forms (docs/spec.md, Settings), shared by the browser (conform), the page
// actions and PUT /api/users/current…. Field rules and messages are sign-up's.

export const CURRENT_PASSWORD_REQUIRED = "Enter your current password to change your username or email.";
export const CURRENT_PASSWORD_WRONG = "The current password is incorrect.";
export const PASSWORD_MISMATCH = "Confirm Password field must be the same as the Password field.";
export const DELETE_PASSWORD_REQUIRED = "Enter your password to delete your account.";

/** An optional name: empty is no name (accounts from the older sign-up page have none); `keep`: the account's own. */
const optionalName = (label: "First name" | "Last name", keep?: string | null) =>
  z.union([z.undefined(), z.literal(""), name(label, keep)]).transform((v) => v || null);

const optionalText = z
  .string()
  .max(200)
  .optional()
  .transform((v) => v || undefined);

/**
 * "Your details". `stored`: the names the account has now, accepted unchanged even when saved
 * before today's name rule (decision 0061), so any other detail can be saved without renaming.
 */
export const profileSchema = (stored: { first_name?: string | null; last_name?: string | null } = {}) =>
  z.object({
    first_name: optionalName("First name", stored.first_name),
    last_name: optionalName("Last name", stored.last_name),
    username,
    email: email("The email is required."),
    current_password: optionalText,
  });
export type ProfileInput = z.output<ReturnType<typeof profileSchema>>;

/** Change (the account has a password: the current one is asked for) or set a password. */
export const PasswordSchema = z
  .object({
    current_password: optionalText,
    password: password("The password is required."),
    confirmPassword: z.string({ error: "The confirmPassword is required." }).min(1, "The confirmPassword is required."),
  })
  .refine((v) => v.password === v.confirmPassword, { message: PASSWORD_MISMATCH, path: ["confirmPassword"] });
export type PasswordInput = z.output<typeof PasswordSchema>;

export const DeleteAccountSchema = z.object({ password: optionalText });
