import { isForeignKeyViolation, isUniqueViolation, nowIso, writeTransaction } from "~/lib/db.server";
import type { BlockRow, UserRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { photoColumns, type PhotoColumns } from "~/images/photo-sql.server";
import { endFriendshipBetween, parseUserId, publicUserFromRow } from "./friendships.server";
import { invalid, notFound, type Result } from "./refusal";
import type { PublicUser } from "./users.server";

// Blocking (docs/spec.md §6). A block is a row (blocker, blocked). Blocking ends, in the same
// transaction, any friendship between the two (pending, accepted or denied) and any co-parent
// role or invitation between them (one owns the kid, the other co-parents it), so every view,
// like and comment form on the blocker's kids is gone at once: the access module needs no block
// check of its own (app/models/access.server.ts). What the block itself still decides there:
// the blocked user cannot find the blocker (whereNotBlockedBy), nobody may send the other a
// request or an invitation (isBlockedBetween), and their past comments on the blocker's moments
// are hidden unless the blocker chooses to show them (whereCommentShown). The blocked user is
// never told: their requests answer as if the blocker did not exist.

export const BLOCK_MESSAGES = {
  self: "You cannot block yourself.",
  userNotFound: "User not found",
  notBlocked: "Block not found",
} as const;

export type BlockedUser = PublicUser & { showComments: boolean };

/**
 * `blockerId` blocks `blockedInput` (a user id as the client wrote it). Blocking twice is fine (the
 * same answer). Refused: oneself (invalid), nobody (not found).
 */
export async function blockUser(blockerId: number, blockedInput: unknown): Promise<Result<{ blockedId: number }>> {
  const blockedId = parseUserId(blockedInput);
  if (blockedId === blockerId) return invalid(BLOCK_MESSAGES.self);
  if (blockedId === null) return notFound(BLOCK_MESSAGES.userNotFound);
  try {
    await writeTransaction(async (trx) => {
      const exists = await trx("blocks").where({ blocker_id: blockerId, blocked_id: blockedId }).first("id");
      if (!exists)
        await trx("blocks").insert({
          blocker_id: blockerId,
          blocked_id: blockedId,
          show_comments: false,
          created_at: nowIso(),
        });
      // the friendship and every co-parent role or invitation between the two
      await endFriendshipBetween(trx, blockerId, blockedId);
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) return notFound(BLOCK_MESSAGES.userNotFound);
    if (isUniqueViolation(error)) return { ok: true, blockedId }; // a concurrent block of the same user
    throw error;
  }
  return { ok: true, blockedId };
}

/** Ends `blockerId`'s block of `blockedId` (no friendship comes back). Not blocked: not found. */
export async function unblockUser(blockerId: number, blockedInput: unknown): Promise<Result<{ blockedId: number }>> {
  const blockedId = parseUserId(blockedInput);
  if (blockedId === null) return notFound(BLOCK_MESSAGES.notBlocked);
  const removed = await writeTransaction((trx) =>
    trx("blocks").where({ blocker_id: blockerId, blocked_id: blockedId }).delete(),
  );
  return removed ? { ok: true, blockedId } : notFound(BLOCK_MESSAGES.notBlocked);
}

/** The blocker's choice: show (or hide again) the blocked user's past comments on the blocker's moments. */
export async function showBlockedComments(
  blockerId: number,
  blockedInput: unknown,
  show: boolean,
): Promise<Result<{ blockedId: number }>> {
  const blockedId = parseUserId(blockedInput);
  if (blockedId === null) return notFound(BLOCK_MESSAGES.notBlocked);
  const changed = await writeTransaction((trx) =>
    trx("blocks").where({ blocker_id: blockerId, blocked_id: blockedId }).update({ show_comments: show }),
  );
  return changed ? { ok: true, blockedId } : notFound(BLOCK_MESSAGES.notBlocked);
}

const blockedBy = query<
  { blockerId: number },
  Pick<UserRow, "id" | "username" | "first_name" | "last_name"> &
    Pick<BlockRow, "show_comments"> &
    PhotoColumns<"user_image">
>((p, k) =>
  k("blocks")
    .join("users", "users.id", "blocks.blocked_id")
    .leftJoin("images as user_images", "user_images.id", "users.image_id")
    .where("blocks.blocker_id", p("blockerId"))
    .orderBy("blocks.id")
    .select([
      "users.id",
      "users.username",
      "users.first_name",
      "users.last_name",
      "blocks.show_comments",
      ...photoColumns("user_images", "user_image"),
    ]),
);

/** The users `blockerId` has blocked, oldest block first. One query. */
export async function listBlocked(blockerId: number): Promise<BlockedUser[]> {
  return (await blockedBy.all({ blockerId })).map((row) => ({
    ...publicUserFromRow(row),
    showComments: row.show_comments === 1,
  }));
}
