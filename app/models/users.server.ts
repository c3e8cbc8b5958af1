import { db, nowIso, isUniqueViolation, type Db } from "~/lib/db.server";
import { hashPassword } from "~/lib/password.server";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import type { Photo } from "~/images/photo";

/** A user as the app works with it (never carries the password hash). */
export type User = {
  id: number;
  username: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  photo: Photo | null;
  is_demo: boolean;
};

/** A user as other people see them: no email. */
export type PublicUser = Omit<User, "email" | "is_demo">;

export const userColumns = [
  "users.id",
  "users.username",
  "users.email",
  "users.first_name",
  "users.last_name",
  "users.is_demo",
  ...photoColumns("user_images", "user_image"),
];

/** Base query: users joined with their profile picture. */
export function usersQuery(conn: Db = db()) {
  return conn("users").leftJoin("images as user_images", "user_images.id", "users.image_id");
}

export function userFromRow(row: Record<string, unknown>): User {
  return {
    id: Number(row.id),
    username: String(row.username),
    email: String(row.email),
    first_name: (row.first_name as string | null) ?? null,
    last_name: (row.last_name as string | null) ?? null,
    photo: photoFromRow(row, "user_image"),
    is_demo: Boolean(row.is_demo),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export async function getUserById(id: number): Promise<User | null> {
  const row = await usersQuery().where("users.id", id).first(userColumns);
  return row ? userFromRow(row) : null;
}

export async function getUserWithPasswordByEmail(
  email: string,
): Promise<(User & { password_hash: string }) | null> {
  const row = await usersQuery()
    .where("users.email_normalized", normalizeEmail(email))
    .first([...userColumns, "users.password_hash"]);
  return row ? { ...userFromRow(row), password_hash: String(row.password_hash) } : null;
}

export type NewUser = {
  email: string;
  username: string;
  password: string;
  first_name?: string | null;
  last_name?: string | null;
  is_demo?: boolean;
};

export type SignupConflict = { email?: string[]; username?: string[] };

/**
 * Creates an account. Email and username are unique case-insensitively; the database's unique
 * indexes on the normalized columns are the final word, so two simultaneous sign-ups cannot both win.
 */
export async function createUser(input: NewUser): Promise<{ user: User } | { errors: SignupConflict }> {
  const email = normalizeEmail(input.email);
  const username = input.username.trim();
  const existing = await db()("users")
    .where("email_normalized", email)
    .orWhere("username_normalized", normalizeUsername(username))
    .select("email_normalized", "username_normalized");
  const errors = conflictErrors(existing, email, username);
  if (errors) return { errors };
  const password_hash = await hashPassword(input.password);
  try {
    const [row] = await db()("users")
      .insert({
        username,
        username_normalized: normalizeUsername(username),
        email,
        email_normalized: email,
        first_name: input.first_name?.trim() || null,
        last_name: input.last_name?.trim() || null,
        password_hash,
        is_demo: input.is_demo ?? false,
        created_at: nowIso(),
      })
      .returning("id");
    const user = await getUserById(Number(typeof row === "object" ? row.id : row));
    if (!user) throw new Error("user vanished after insert");
    return { user };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const again = await db()("users")
      .where("email_normalized", email)
      .orWhere("username_normalized", normalizeUsername(username))
      .select("email_normalized", "username_normalized");
    return { errors: conflictErrors(again, email, username) ?? { email: ["Email address is already in use."] } };
  }
}

function conflictErrors(
  rows: { email_normalized: string; username_normalized: string }[],
  email: string,
  username: string,
): SignupConflict | null {
  const errors: SignupConflict = {};
  if (rows.some((r) => r.email_normalized === email)) errors.email = ["Email address is already in use."];
  if (rows.some((r) => r.username_normalized === normalizeUsername(username)))
    errors.username = ["Username is already in use."];
  return errors.email || errors.username ? errors : null;
}
