import type { Knex } from "knex";
import { insertedId, nowIso, isUniqueViolation, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { hashPassword, verifyPassword } from "~/lib/password.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import { deleteImageRows } from "~/images/storage.server";
import type { Photo } from "~/images/photo";
import type { UserRow } from "~/lib/tables";
import { conflict, type FieldErrors, type Result } from "./refusal";
import { SIGNUP_USER, submissionOnce } from "./submissions.server";
import { insertDefaultDigest } from "./email-preferences.server";

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

/** The row `userColumns` select. */
export type UserColumns = Pick<UserRow, "id" | "username" | "email" | "first_name" | "last_name" | "is_demo"> &
  PhotoColumns<"user_image">;

/** Base query: users joined with their profile picture. */
export function usersQuery(k: Knex) {
  return k("users").leftJoin("images as user_images", "user_images.id", "users.image_id");
}

export function userFromRow(row: UserColumns): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    photo: photoFromRow(row, "user_image"),
    is_demo: row.is_demo === 1,
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

const userById = query<{ id: number }, UserColumns>((p, k) =>
  usersQuery(k).where("users.id", p("id")).first(userColumns),
);

export async function getUserById(id: number): Promise<User | null> {
  const row = await userById.first({ id });
  return row ? userFromRow(row) : null;
}

type WithPassword = UserColumns & Pick<UserRow, "password_hash">;

const userWithPasswordByEmail = query<{ email: string }, WithPassword>((p, k) =>
  usersQuery(k)
    .where("users.email_normalized", p("email"))
    .first([...userColumns, "users.password_hash"]),
);

export async function getUserWithPasswordByEmail(email: string): Promise<(User & { password_hash: string }) | null> {
  const row = await userWithPasswordByEmail.first({ email: normalizeEmail(email) });
  return row ? { ...userFromRow(row), password_hash: row.password_hash } : null;
}

export type NewUser = {
  email: string;
  username: string;
  password: string;
  first_name?: string | null;
  last_name?: string | null;
  is_demo?: boolean;
};

// An address an account was moved away from stays that account's while the change can be undone
// (app/models/email-changes.server.ts): nobody else may take it meanwhile, or the undo could not
// put it back.
// `reserved` is 1 on such a row. Exported for joining by invitation, which must not take it either.
type Taken = Pick<UserRow, "id" | "email_normalized" | "username_normalized"> & { reserved: 0 | 1 };
export const usersWithEmailOrUsername = query<{ email: string; username: string; now: string }, Taken>((p, k) =>
  k("users")
    .where("email_normalized", p("email"))
    .orWhere("username_normalized", p("username"))
    .select("id", "email_normalized", "username_normalized", k.raw("0 as reserved"))
    .unionAll((u) =>
      u
        .from("email_changes")
        .where("old_email", p("email"))
        .whereNull("used_at")
        .andWhere("expires_at", ">", p("now"))
        .select(
          "user_id as id",
          "old_email as email_normalized",
          k.raw("'' as username_normalized"),
          k.raw("1 as reserved"),
        ),
    ),
);

/**
 * Uniqueness errors for this email and username as sign-up words them, or null; rows of `exceptUserId`
 * (an account changing its own) do not count.
 */
export async function takenErrors(email: string, username: string, exceptUserId?: number): Promise<FieldErrors | null> {
  const rows = await usersWithEmailOrUsername.all({
    email: normalizeEmail(email),
    username: normalizeUsername(username),
    now: new Date().toISOString(),
  });
  return conflictErrors(
    rows.filter((r) => r.id !== exceptUserId),
    normalizeEmail(email),
    username.trim(),
  );
}

const userWithPasswordById = query<{ id: number }, WithPassword>((p, k) =>
  usersQuery(k)
    .where("users.id", p("id"))
    .first([...userColumns, "users.password_hash"]),
);

/**
 * Creates an account. Email and username are unique case-insensitively; the database's unique
 * indexes on the normalized columns are the final word, so two simultaneous sign-ups cannot both win.
 * Refused: a conflict, with the messages under `email` and/or `username`.
 *
 * `token`: the form's one-time submission token (submissions.server.ts). A repeat of a sign-up
 * that succeeded (a double click on "Register") answers the account it created (`replayed`, for
 * the caller to sign in), and only when the password is that account's: the token alone proves
 * nothing. Otherwise it is a new sign-up (and then "already in use", as always).
 */
export async function createUser(
  input: NewUser,
  opts: { token?: unknown } = {},
): Promise<Result<{ user: User; replayed?: true }>> {
  const email = normalizeEmail(input.email);
  const username = input.username.trim();
  const firstName = input.first_name?.trim() || null;
  const lastName = input.last_name?.trim() || null;
  // the first account, only for its own password: otherwise this is a new sign-up
  const sameAccount = async (id: number): Promise<User | null> => {
    const row = await userWithPasswordById.first({ id });
    if (!row || !(await verifyPassword(input.password, row.password_hash))) return null;
    return userFromRow(row);
  };
  const content = () => [email, normalizeUsername(username), firstName, lastName];
  const once = await submissionOnce(SIGNUP_USER, "signup", opts.token, content, sameAccount);
  if (once.first) return { ok: true, user: once.first, replayed: true };
  const taken = () =>
    usersWithEmailOrUsername.all({
      email,
      username: normalizeUsername(username),
      now: new Date().toISOString(),
    });
  const errors = conflictErrors(await taken(), email, username);
  if (errors) {
    // the first submission of this sign-up may have committed since we looked
    const first = await once.winner();
    return first ? { ok: true, user: first, replayed: true } : conflict(undefined, errors);
  }
  const password_hash = await hashPassword(input.password);
  try {
    const id = await once.create(async (conn) => {
      const id = await insertUser(conn, { ...input, password_hash });
      await insertDefaultDigest(conn, id);
      return id;
    });
    const user = await getUserById(id);
    if (!user) throw new Error("user vanished after insert");
    return { ok: true, user };
  } catch (error) {
    const first = await once.winner(error);
    if (first) return { ok: true, user: first, replayed: true };
    if (!isUniqueViolation(error)) throw error;
    return conflict(
      undefined,
      conflictErrors(await taken(), email, username) ?? { email: ["Email address is already in use."] },
    );
  }
}

/**
 * Sign-up, for the pages' forms and POST /api/auth/signup: a new account from a validated form
 * (names optional: the older page has none). Takes exactly these fields, so a sign-up never makes a
 * demo account. Refused as createUser refuses. `token`: the form's one-time submission token (or
 * the Idempotency-Key), as createUser takes it.
 */
export function signUp(
  form: { email: string; username: string; password: string; first_name?: string; last_name?: string },
  opts: { token?: unknown } = {},
) {
  const { email, username, password, first_name, last_name } = form;
  return createUser({ email, username, password, first_name, last_name }, opts);
}

/**
 * The users row of a new account, on `conn` (a transaction of the caller's, e.g. the demo seed's):
 * email and username trimmed, with their normalized copies; empty names stored as null. No
 * uniqueness check beyond the database's unique indexes (createUser does the friendly one).
 */
export async function insertUser(
  conn: Db,
  input: Omit<NewUser, "password"> & { password_hash: string },
): Promise<number> {
  const email = normalizeEmail(input.email);
  const username = input.username.trim();
  return insertedId(
    await conn("users")
      .insert({
        username,
        username_normalized: normalizeUsername(username),
        email,
        email_normalized: email,
        first_name: input.first_name?.trim() || null,
        last_name: input.last_name?.trim() || null,
        password_hash: input.password_hash,
        is_demo: input.is_demo ?? false,
        created_at: nowIso(),
      })
      .returning("id"),
  );
}

/**
 * Removes every demo account (is_demo) on `conn` (the demo seed's transaction), with everything
 * they own (foreign-key cascades) and the rows of every photo they own. Answers those photos' keys:
 * the caller removes their files after the commit.
 */
export async function removeDemoAccounts(conn: Db): Promise<string[]> {
  const demo = await conn("users").where("is_demo", true).pluck("id");
  if (!demo.length) return [];
  const keys = await deleteImageRows(conn, await conn("images").whereIn("owner_id", demo).pluck("id"));
  await conn("users").whereIn("id", demo).delete();
  return keys;
}

function conflictErrors(rows: Taken[], email: string, username: string): FieldErrors | null {
  const errors: FieldErrors = {};
  if (rows.some((r) => r.email_normalized === email)) errors.email = ["Email address is already in use."];
  if (rows.some((r) => r.username_normalized === normalizeUsername(username)))
    errors.username = ["Username is already in use."];
  return errors.email || errors.username ? errors : null;
}
