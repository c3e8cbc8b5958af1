import { isUniqueViolation, writeTransaction, type Db } from "~/lib/db.server";
import type { CoParentRow, UserRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { hashPassword, hasPassword, verifyPassword } from "~/lib/password.server";
import { withinLimit } from "~/lib/limits.server";
import { withImageTransaction } from "~/images/storage.server";
import { deleteMailOf } from "~/mail/queue.server";
import {
  CURRENT_PASSWORD_REQUIRED,
  CURRENT_PASSWORD_WRONG,
  DELETE_PASSWORD_REQUIRED,
  type PasswordInput,
  type ProfileInput,
} from "~/forms/account";
import { canSeeKidsOf, whereKidOwnedBy, whereOwnedBy } from "./access.server";
import { countFriends } from "./friend-lists.server";
import { deleteSubmissionsOf } from "./submissions.server";
import { deleteOtherSessions } from "./sessions.server";
import { closeRelativeLinks } from "./sign-in-links.server";
import { recordEmailChange } from "./email-changes.server";
import { forgetInvitedAddress } from "./invitations.server";
import { notify } from "./notifications.server";
import { conflict, invalid, invalidField, notFound, tooMany, type Refusal, type Result } from "./refusal";
import { clipsOfMoments } from "~/video/clips.server";
import { getUserById, normalizeEmail, normalizeUsername, takenErrors, type User } from "./users.server";

// A person's own account (docs/spec.md, Settings and "Delete my account"): change the profile,
// change or set the password, delete everything. Only the user themself reaches these (the
// callers pass the signed-in user's id); the password rules are in app/lib/password.server.ts.

/** The signed-in user's account, and whether it has a password. */
export type Account = User & { has_password: boolean; created_at: string };

type AccountRow = Pick<UserRow, "password_hash" | "created_at" | "username" | "email_normalized">;

const accountRow = query<{ id: number }, AccountRow>((p, k) =>
  whereOwnedBy(k("users"), "users.id", p("id")).first(
    "users.password_hash",
    "users.created_at",
    "users.username",
    "users.email_normalized",
  ),
);

export async function getAccount(userId: number): Promise<Account | null> {
  const [user, row] = await Promise.all([getUserById(userId), accountRow.first({ id: userId })]);
  if (!user || !row) return null;
  return { ...user, has_password: hasPassword(row.password_hash), created_at: row.created_at };
}

export const EMAIL_CHANGES_TOO_MANY =
  "You have changed your email address as often as one may in a day. Try again tomorrow.";

/**
 * Changes names, username and email. A new username or email needs the current password when the
 * account has one (a stolen session alone cannot take the account over), except in the minutes
 * after a sign-in by a link from the account's own email (`proof.linkSignInAt`: that link could
 * set a new password anyway; decision 0061). A new email is told to the old address, with a link
 * that undoes it (email-changes.server.ts; `origin`: the site's, for that link). Refused:
 * not-found (no such user), invalid (current_password), too-many (more than 10 new email
 * addresses tried in a day, as a field error of `email`), conflict (email/username taken, in
 * sign-up's words).
 */
export async function updateProfile(
  userId: number,
  input: ProfileInput,
  origin: string,
  proof: { linkSignInAt?: string | null } = {},
): Promise<Result<{ user: User }>> {
  const row = await accountRow.first({ id: userId });
  if (!row) return notFound("User not found");
  const email = normalizeEmail(input.email);
  const username = input.username.trim();
  const changesLogin = email !== row.email_normalized || username !== row.username;
  if (changesLogin) {
    const refused = await currentPasswordProblem(
      row.password_hash,
      input.current_password,
      proof,
      CURRENT_PASSWORD_REQUIRED,
    );
    if (refused) return refused;
  }
  // a new email is counted before it is looked up: "already in use" must not be a free oracle
  if (email !== row.email_normalized && !(await withinLimit("emailChangesPerUser", String(userId)))) {
    return { ...tooMany(EMAIL_CHANGES_TOO_MANY), fieldErrors: { email: [EMAIL_CHANGES_TOO_MANY] } };
  }
  const taken = await takenErrors(email, username, userId);
  if (taken) return conflict(undefined, taken);
  try {
    await writeTransaction(async (trx) => {
      await trx("users")
        .where("id", userId)
        .update({
          username,
          username_normalized: normalizeUsername(username),
          email,
          email_normalized: email,
          first_name: input.first_name,
          last_name: input.last_name,
        });
      if (email !== row.email_normalized)
        await recordEmailChange(trx, { userId, oldEmail: row.email_normalized, newEmail: email, origin });
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return conflict(
      undefined,
      (await takenErrors(email, username, userId)) ?? { email: ["Email address is already in use."] },
    );
  }
  const user = await getUserById(userId);
  return user ? { ok: true, user } : notFound("User not found");
}

/**
 * What a change that needs the current password answers when it is not shown, or null when it may
 * go on: an account without a password has none to show, and a sign-in by a link from the
 * account's own email within FRESH_SIGN_IN_MS stands in for it (decision 0061); a current password
 * that is given is checked all the same.
 */
async function currentPasswordProblem(
  stored: string,
  given: string | undefined,
  proof: { linkSignInAt?: string | null },
  required: string,
): Promise<Refusal | null> {
  if (!hasPassword(stored)) return null;
  if (!given) return isFreshSignIn(proof.linkSignInAt) ? null : invalidField("current_password", required);
  return (await verifyPassword(given, stored)) ? null : invalidField("current_password", CURRENT_PASSWORD_WRONG);
}

/**
 * Changes the password (the current one is asked for when there is one, but for a fresh sign-in
 * by an emailed link: the "Forgot your password?" path) or sets a first one, and ends every other
 * session of the account (whoever else was signed in must log in again with the new password;
 * `proof.keepToken` is the session that made the change). Answers how many ended.
 * Refused: not-found, invalid (current_password).
 */
export async function changePassword(
  userId: number,
  input: PasswordInput,
  proof: { linkSignInAt?: string | null; keepToken?: string | null } = {},
): Promise<Result<{ endedSessions: number }>> {
  const row = await accountRow.first({ id: userId });
  if (!row) return notFound("User not found");
  const refused = await currentPasswordProblem(
    row.password_hash,
    input.current_password,
    proof,
    "Enter your current password.",
  );
  if (refused) return refused;
  const password_hash = await hashPassword(input.password);
  const endedSessions = await writeTransaction(async (trx) => {
    await trx("users").where("id", userId).update({ password_hash });
    // the relative secured the account: a parent no longer makes links for it, and older ones stop
    await closeRelativeLinks(trx, userId, proof.keepToken ?? null);
    return deleteOtherSessions(trx, userId, proof.keepToken ?? null);
  });
  return { ok: true, endedSessions };
}

/**
 * How recent a sign-in must be to delete an account that has no password to confirm with, or (by
 * an emailed link) to stand in for the current password.
 */
export const FRESH_SIGN_IN_MS = 10 * 60 * 1000;

/** Did the session sign in within FRESH_SIGN_IN_MS? */
export function isFreshSignIn(signedInAt: string | null | undefined, now = Date.now()): boolean {
  const at = signedInAt ? Date.parse(signedInAt) : NaN;
  return at > now - FRESH_SIGN_IN_MS && at <= now + 60_000;
}

/**
 * Deletes the account and everything that is the user's, in ONE transaction: the users row (the
 * database cascades to sessions, kids, their moments, likes and comments on them, the user's own
 * likes and comments, friendships, and every table that references users with ON DELETE CASCADE),
 * the rows of every photo the user owns, and every mail message to, from or about the user (queued
 * or sent: deleteMailOf), and the address from other users' invitations to it. Photo files go after the commit, through the photo store. Friends lose
 * access at once: the rows are gone.
 *
 * `proof`: the password (an account with one), or for an account without a password the time its
 * current session signed in (within FRESH_SIGN_IN_MS). Refused: not-found, invalid (password).
 */
export async function deleteAccount(
  userId: number,
  proof: { password?: string; signedInAt?: string | null },
): Promise<Result> {
  const row = await accountRow.first({ id: userId });
  if (!row) return notFound("User not found");
  if (hasPassword(row.password_hash)) {
    if (!proof.password) return invalidField("password", DELETE_PASSWORD_REQUIRED);
    if (!(await verifyPassword(proof.password, row.password_hash)))
      return invalidField("password", "The password is incorrect.");
  } else {
    if (!isFreshSignIn(proof.signedInAt)) return invalid(SIGN_IN_AGAIN);
  }
  await withImageTransaction(async (trx, { dropImages, dropStoreKeys }) => {
    await handOverSharedKids(trx, userId);
    const images: number[] = await trx("images").where("owner_id", userId).pluck("id");
    // the clips of the kids that go with the account (their posters are among its images)
    const ownMoments = trx("daily_logs")
      .whereIn("kid_id", trx("kids").where("user_id", userId).select("id"))
      .select("id");
    dropStoreKeys((await clipsOfMoments(trx, ownMoments)).keys);
    await deleteSubmissionsOf(trx, userId); // no foreign key to users there
    // mail to, from or about the user, queued or sent (a friend's queued digest with their moments is cancelled)
    await deleteMailOf(trx, { id: userId, email: row.email_normalized });
    await forgetInvitedAddress(trx, row.email_normalized);
    await trx("users").where("id", userId).delete();
    await dropImages(images);
  });
  return { ok: true };
}

/**
 * Kids the user owns with an accepted co-parent stay with the remaining parent (docs/spec.md §6):
 * the co-parent who joined first becomes the owner, and the kid's and its moments' photos become
 * theirs, so nothing of that kid goes with the account. Inside the deleting transaction.
 *
 * The hand-over shows nobody anything they could not see before
 * (docs/decisions/0041-co-parenting-follows-the-friendship.md): audiences were the old owner's
 * choice about the old owner's friends, so the kid is hidden from the new owner's friends
 * (`shown_to_friends`) and every moment shared beyond "Only us" becomes "Only us" (and so does the
 * kid's default) until the new owner chooses (showKidToFriends, then each moment's audience); the
 * comments the old owner's blocks hid stay hidden (`comments.hidden`); invitations the old owner
 * sent end, and so do the roles of other co-parents who are not the new owner's friends
 * (co-parenting follows the friendship). The new owner is told by a notification.
 */
async function handOverSharedKids(trx: Db, userId: number): Promise<void> {
  const links: Pick<CoParentRow, "kid_id" | "user_id" | "id">[] = await trx("co_parents")
    .join("kids", "kids.id", "co_parents.kid_id")
    .where("kids.user_id", userId)
    .andWhere("co_parents.status", "accepted")
    .orderBy([{ column: "co_parents.kid_id" }, { column: "co_parents.created_at" }, { column: "co_parents.id" }])
    .select("co_parents.kid_id", "co_parents.user_id", "co_parents.id");
  const heirs = new Map<number, { userId: number; linkId: number }>();
  for (const l of links) if (!heirs.has(l.kid_id)) heirs.set(l.kid_id, { userId: l.user_id, linkId: l.id });
  for (const [kidId, heir] of heirs) {
    await trx("kids")
      .where("id", kidId)
      .update({ user_id: heir.userId, default_audience: "us", shown_to_friends: false });
    await trx("co_parents").where("id", heir.linkId).delete();
    await trx("daily_logs").where("kid_id", kidId).whereNot("audience", "us").update({ audience: "us" });
    const moments = trx("daily_logs").where("kid_id", kidId).select("id");
    const hiddenAuthors = trx("blocks").where({ blocker_id: userId, show_comments: false }).select("blocked_id");
    await trx("comments").whereIn("daily_log_id", moments).whereIn("user_id", hiddenAuthors).update({ hidden: true });
    await trx("co_parents").where({ kid_id: kidId, status: "pending" }).delete();
    const others: CoParentRow["user_id"][] = await trx("co_parents").where("kid_id", kidId).pluck("user_id");
    for (const other of others) {
      if (!(await canSeeKidsOf(other, heir.userId, trx)))
        await trx("co_parents").where({ kid_id: kidId, user_id: other }).delete();
    }
    const photos = trx("kids").where("id", kidId).whereNotNull("image_id").select("image_id");
    const momentPhotos = trx("daily_logs").where("kid_id", kidId).whereNotNull("image_id").select("image_id");
    const morePhotos = trx("moment_photos")
      .join("daily_logs", "daily_logs.id", "moment_photos.daily_log_id")
      .where("daily_logs.kid_id", kidId)
      .select("moment_photos.image_id");
    const posters = trx("videos")
      .join("daily_logs", "daily_logs.id", "videos.daily_log_id")
      .where("daily_logs.kid_id", kidId)
      .whereNotNull("videos.poster_image_id")
      .select("videos.poster_image_id");
    await trx("images")
      .where("owner_id", userId)
      .andWhere((w) =>
        w.whereIn("id", photos).orWhereIn("id", momentPhotos).orWhereIn("id", morePhotos).orWhereIn("id", posters),
      )
      .update({ owner_id: heir.userId });
  }
  // one notification per new owner, whatever the number of kids
  await notify(
    trx,
    [...new Set([...heirs.values()].map((h) => h.userId))].map((id) => ({
      userId: id,
      kind: "kid-handed-over",
      actorId: id,
    })),
  );
}

export const SIGN_IN_AGAIN = "For your safety, log out and log in again, then delete your account within 10 minutes.";

const ownedCounts = query<{ id: number }, { kids: number; moments: number }>((p, k) =>
  whereKidOwnedBy(k("kids"), p("id"))
    .leftJoin("daily_logs", "daily_logs.kid_id", "kids.id")
    .first(k.raw("count(distinct kids.id) as kids"), k.raw("count(daily_logs.id) as moments")),
);
const photoCount = query<{ id: number }, { n: number }>((p, k) =>
  k("images").where("images.owner_id", p("id")).first(k.raw("count(*) as n")),
);
/** What deleting the account takes with it, counted for the confirm page. */
export async function accountSummary(
  userId: number,
): Promise<{ kids: number; moments: number; photos: number; friends: number }> {
  const [owned, photos, friends] = await Promise.all([
    ownedCounts.first({ id: userId }),
    photoCount.first({ id: userId }),
    countFriends(userId),
  ]);
  return {
    kids: owned?.kids ?? 0,
    moments: owned?.moments ?? 0,
    photos: photos?.n ?? 0,
    friends,
  };
}
