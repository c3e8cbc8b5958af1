import { isForeignKeyViolation, isUniqueViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { FriendshipRow, UserRow } from "~/lib/tables";
import type { FriendLabel } from "~/forms/circles";
import { isBlockedBetween } from "./access.server";
import { notify } from "./notifications.server";
import { conflict, forbidden, invalid, notFound, type Result } from "./refusal";
import type { PublicUser } from "./users.server";
import { submissionOnce } from "./submissions.server";
import { endCoParentingBetween } from "./co-parents.server";
import { parseUserId } from "./user-id";

// Friendships: the state machine of docs/spec.md §4, enforced here and by the database.
//
//   (none) --send--> pending --accept (receiver)--> accepted
//                    pending --deny (receiver)----> denied
//   pending | denied | accepted --delete (either party)--> (none)
//
// One row per pair of users in either direction. A row stores the pair once, as who asked whom
// (user_id, friend_id); the ordered pair user_low/user_high is computed from them by the database
// (generated columns, db/migrations/20261205000000_friendship_pair_once.mjs) and is UNIQUE, so two
// simultaneous requests cannot both land. Nothing writes user_low/user_high; a lookup of the pair
// in either direction names it with pairOf. Who may see whose kids is decided in
// access.server.ts from the same table (accepted rows only); this module (with its reads,
// friend-lists.server.ts) and that one are the only ones that read or write it
// (docs/decisions/0012-refusal-and-access-module.md). What other modules need of it is a function
// here: the row a block ends (endFriendshipBetween), a side's circle (setFriendshipLabel, behind the
// access module's requireFriendshipParty), the friend count of the account page (countFriends, in
// friend-lists.server.ts).

export type FriendshipStatus = FriendshipRow["status"];

/** A friendships row as the API shows it: exactly the columns `friendshipColumns` select. */
export type Friendship = Pick<FriendshipRow, "id" | "user_id" | "friend_id" | "status">;
export const MESSAGES = {
  self: "You cannot send a friend request to yourself.",
  friendNotFound: "Friend not found",
  exists: "Friendship already exists. Please try another name.",
  friendshipNotFound: "Friendship not found",
  notRecipient: "Only the recipient can update the friend request status",
  invalidStatus: "Invalid status update",
  notParty: "You are not authorized",
  deleted: "Friendship deleted successfully",
  youBlocked: "You have blocked this user. Unblock them first.",
} as const;

export { parseUserId };

export const friendshipColumns = ["id", "user_id", "friend_id", "status"] as const;

const friendshipById = query<{ id: number }, Friendship>((p, k) =>
  k("friendships").where("id", p("id")).first(friendshipColumns),
);

export async function getFriendship(id: number, conn?: Db): Promise<Friendship | null> {
  return (await friendshipById.first({ id }, { conn })) ?? null;
}

/** The columns of a user's public face, and their picture under "user_image". */
export type PublicUserColumns = Pick<UserRow, "id" | "username" | "first_name" | "last_name"> &
  PhotoColumns<"user_image">;

const publicUserById = query<{ id: number }, PublicUserColumns>((p, k) =>
  k("users")
    .leftJoin("images as user_images", "user_images.id", "users.image_id")
    .where("users.id", p("id"))
    .first([
      "users.id",
      "users.username",
      "users.first_name",
      "users.last_name",
      ...photoColumns("user_images", "user_image"),
    ]),
);

/** The public face of a user (no email), or null. */
export async function publicUser(id: number): Promise<PublicUser | null> {
  const row = await publicUserById.first({ id });
  return row ? publicUserFromRow(row) : null;
}

export function publicUserFromRow(row: PublicUserColumns): PublicUser {
  return {
    id: row.id,
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    photo: photoFromRow(row, "user_image"),
  };
}

// ---- transitions ----------------------------------------------------------------------------

/**
 * Sends a friend request from `senderId` to `friendIdInput` (as the client wrote it).
 * Refused: to oneself (invalid), to nobody (not found), when any friendship exists between the two
 * in either direction (conflict), also when the other side's request lands at the same moment
 * (the UNIQUE pair). `token`: the form's one-time submission token (submissions.server.ts); a
 * repeat of a request that was sent answers that request (`replayed`).
 */
export async function sendFriendRequest(
  senderId: number,
  friendIdInput: unknown,
  opts: { token?: unknown } = {},
): Promise<Result<{ friendship: Friendship; friend: PublicUser; replayed?: true }>> {
  const friendId = parseUserId(friendIdInput);
  if (friendId === senderId) return invalid(MESSAGES.self);
  if (friendId === null) return notFound(MESSAGES.friendNotFound);
  const friend = await publicUser(friendId);
  if (!friend) return notFound(MESSAGES.friendNotFound);
  // a block: the blocked user is not told (the blocker answers as nobody at all)
  const block = await isBlockedBetween(senderId, friendId);
  if (block.blocked)
    return block.blockedBy === senderId ? conflict(MESSAGES.youBlocked) : notFound(MESSAGES.friendNotFound);
  // a repeat of a request that was sent (a double click) answers that request, not "already exists"
  const sentBefore = async (id: number) => {
    const f = await getFriendship(id);
    return f && f.user_id === senderId && f.friend_id === friendId ? f : null;
  };
  const once = await submissionOnce(senderId, "friend-request", opts.token, () => [friendId], sentBefore);
  if (once.first) return { ok: true, friendship: once.first, friend, replayed: true };
  const made: { friendship?: Friendship } = {};
  try {
    await once.create(async (conn) => {
      made.friendship = await insertFriendship(conn, senderId, friendId, "pending");
      await notify(conn, [{ userId: friendId, kind: "friend-request", actorId: senderId }]);
      return made.friendship.id;
    });
    return { ok: true, friendship: made.friendship!, friend };
  } catch (error) {
    const first = await once.winner(error);
    if (first) return { ok: true, friendship: first, friend, replayed: true };
    if (isUniqueViolation(error)) return conflict(MESSAGES.exists);
    if (isForeignKeyViolation(error)) return notFound(MESSAGES.friendNotFound); // deleted meanwhile
    throw error;
  }
}

/**
 * The row of the pair {a, b}, whichever asked: the generated ordered pair, a lookup of the
 * UNIQUE (user_low, user_high) index. Read-only: the database computes these columns.
 */
export function pairOf(a: number, b: number): { user_low: number; user_high: number } {
  return { user_low: Math.min(a, b), user_high: Math.max(a, b) };
}

/**
 * The friendships row from `senderId` to `friendId` in `status`, on `conn` (sendFriendRequest's
 * connection, or a caller's transaction such as the demo seed's, or a test's fixture). The database
 * derives the ordered pair that makes it the only one between the two: a second row for the pair
 * throws (UNIQUE).
 */
export async function insertFriendship(
  conn: Db,
  senderId: number,
  friendId: number,
  status: FriendshipStatus,
  at: string = nowIso(),
): Promise<Friendship> {
  const [row]: Friendship[] = await conn("friendships")
    .insert({
      user_id: senderId,
      friend_id: friendId,
      status,
      created_at: at,
      updated_at: at,
    })
    .returning(friendshipColumns as unknown as string[]);
  return { id: row!.id, user_id: row!.user_id, friend_id: row!.friend_id, status: row!.status };
}

const pairStatus = query<{ low: number; high: number }, Pick<FriendshipRow, "status">>((p, k) =>
  k("friendships")
    .where("friendships.user_low", p("low"))
    .andWhere("friendships.user_high", p("high"))
    .first("friendships.status"),
);

/**
 * An invitation was accepted (app/models/invitations.server.ts): `inviterId` and `userId` become
 * accepted friends on `conn` (the accepting transaction), whatever stood between them before (a
 * pending or denied request either way is turned into the accepted friendship), and the inviter's
 * side files the new friend as the invitation preset (`preset`: circle and relationship). A
 * friendship that was accepted already keeps the labels its sides chose. A block between the two
 * (either way) makes no friendship: answers false and writes nothing, so the caller can refuse
 * without saying why.
 */
export async function befriendByInvitation(
  conn: Db,
  inviterId: number,
  userId: number,
  preset: FriendLabel = { circle: "friends", relationship: null },
): Promise<boolean> {
  if ((await isBlockedBetween(inviterId, userId, conn)).blocked) return false;
  const pair = pairOf(inviterId, userId);
  const before = await pairStatus.first({ low: pair.user_low, high: pair.user_high }, { conn });
  if (!before) await insertFriendship(conn, inviterId, userId, "accepted");
  if (before?.status !== "accepted") {
    const side =
      inviterId === pair.user_low
        ? { low_circle: preset.circle, low_relationship: preset.relationship }
        : { high_circle: preset.circle, high_relationship: preset.relationship };
    await conn("friendships")
      .where(pair)
      .update({ status: "accepted", ...side, updated_at: nowIso() });
  }
  await notify(conn, [{ userId: inviterId, kind: "invite-accepted", actorId: userId }]);
  return true;
}

/**
 * The receiver accepts or denies a pending request. Refused: no such friendship (not found), the
 * caller is not its receiver (forbidden), a status other than accepted/denied (invalid) or a
 * request no longer pending (conflict). The update is conditional, so a request cancelled or
 * answered meanwhile is never changed.
 */
export async function answerFriendRequest(
  viewerId: number,
  friendshipId: number,
  status: unknown,
): Promise<Result<{ friendship: Friendship }>> {
  const current = await getFriendship(friendshipId);
  if (!current) return notFound(MESSAGES.friendshipNotFound);
  if (current.friend_id !== viewerId) return forbidden(MESSAGES.notRecipient);
  if (status !== "accepted" && status !== "denied") return invalid(MESSAGES.invalidStatus);
  if (current.status !== "pending") return conflict(MESSAGES.invalidStatus);
  const changed = await writeTransaction(async (trx) => {
    const n = await trx("friendships")
      .where({ id: friendshipId, friend_id: viewerId, status: "pending" })
      .update({ status, updated_at: nowIso() });
    if (n && status === "accepted")
      await notify(trx, [{ userId: current.user_id, kind: "friend-accepted", actorId: viewerId }]);
    return n;
  });
  if (!changed) {
    // cancelled or answered between the read and the update
    return (await getFriendship(friendshipId))
      ? conflict(MESSAGES.invalidStatus)
      : notFound(MESSAGES.friendshipNotFound);
  }
  return { ok: true, friendship: { ...current, status } };
}

/**
 * Deletes a friendship: either party may (cancel a pending request, clear a denied one, end an
 * accepted friendship), and with it every co-parent role and invitation between the two (docs/decisions/0041).
 * `expect` narrows it to what the caller's button meant (e.g. "Cancel
 * Request" only deletes the caller's own still-pending request, never a friendship accepted
 * meanwhile); the delete is conditional, so the check and the change are one statement.
 */
export async function deleteFriendship(
  viewerId: number,
  friendshipId: number,
  expect: { status?: FriendshipStatus; role?: "sender" | "receiver" } = {},
): Promise<Result<{ friendship: Friendship }>> {
  const current = await getFriendship(friendshipId);
  if (!current) return notFound(MESSAGES.friendshipNotFound);
  if (current.user_id !== viewerId && current.friend_id !== viewerId) return forbidden(MESSAGES.notParty);
  if (expect.role === "sender" && current.user_id !== viewerId) return forbidden(MESSAGES.notParty);
  if (expect.role === "receiver" && current.friend_id !== viewerId) return forbidden(MESSAGES.notParty);
  if (expect.status && current.status !== expect.status) return conflict(MESSAGES.invalidStatus);
  const removed = await writeTransaction(async (trx) => {
    const q = trx("friendships")
      .where({ id: friendshipId })
      .andWhere((w) => w.where("user_id", viewerId).orWhere("friend_id", viewerId));
    if (expect.status) q.andWhere("status", expect.status);
    const n = await q.delete();
    // co-parenting follows the friendship: its roles and invitations end with it (co-parents.server.ts)
    if (n) await endCoParentingBetween(trx, current.user_id, current.friend_id);
    return n;
  });
  if (!removed) {
    return (await getFriendship(friendshipId))
      ? conflict(MESSAGES.invalidStatus)
      : notFound(MESSAGES.friendshipNotFound);
  }
  return { ok: true, friendship: current };
}

/**
 * A block (app/models/blocks.server.ts) ends any friendship between `a` and `b`, whatever its
 * status, and every co-parent role and invitation between them, on `conn` (the block's transaction).
 */
export async function endFriendshipBetween(conn: Db, a: number, b: number): Promise<void> {
  await conn("friendships").where(pairOf(a, b)).delete();
  await endCoParentingBetween(conn, a, b);
}

/**
 * `viewerId`, on side `side` of the friendship `friendshipId` (as the access module's
 * requireFriendshipParty found it), files the other as `label`, on `conn`. Conditional: only while
 * the friendship is still there, still accepted and the viewer still on that side. Answers the
 * number of rows changed (0: not any more).
 */
export async function setFriendshipLabel(
  conn: Db,
  viewerId: number,
  friendshipId: number,
  side: "low" | "high",
  label: FriendLabel,
): Promise<number> {
  const columns =
    side === "low"
      ? { low_circle: label.circle, low_relationship: label.relationship }
      : { high_circle: label.circle, high_relationship: label.relationship };
  return conn("friendships")
    .where({ id: friendshipId, status: "accepted", [side === "low" ? "user_low" : "user_high"]: viewerId })
    .update({ ...columns, updated_at: nowIso() });
}
