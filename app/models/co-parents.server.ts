import {
  insertedId,
  isForeignKeyViolation,
  isUniqueViolation,
  nowIso,
  writeTransaction,
  type Db,
} from "~/lib/db.server";
import type { CoParentRow, KidRow, UserRow } from "~/lib/tables";
import { inList, query } from "~/lib/query.server";
import { displayName, listText } from "~/lib/names";
import { canSeeKidsOf, requireKid } from "./access.server";
import { parseUserId } from "./user-id";
import { conflict, invalid, notFound, type Result } from "./refusal";
import { submissionOnce } from "./submissions.server";

// Co-parents of a kid (docs/spec.md §6). The kid's owner invites an accepted friend; the friend
// accepts (or declines) on their side. An accepted co-parent may add moments, edit and delete any
// moment of the kid, edit the kid, and sees "Only us" moments; only the owner removes the kid or a
// co-parent; a co-parent may leave. Who may do what is decided in app/models/access.server.ts
// (requireKid "change" vs "own"); this module keeps the rows.
//
// Co-parenting follows the friendship (docs/decisions/0041-co-parenting-follows-the-friendship.md):
// the owner and a co-parent are accepted friends for as long as the role (or invitation) lasts.
// Ending the friendship (Remove Friend, a block) ends, in the same transaction, every role and
// invitation between the two (endCoParentingBetween); an invitation is accepted only while the
// friendship holds. The Friends page and the API say so first (coParentingBetween).

export const CO_PARENT_MESSAGES = {
  self: "You are already this kid's parent.",
  userNotFound: "User not found",
  notFriend: "Only an accepted friend can be invited as a co-parent",
  exists: "This user is already a co-parent of this kid or has been invited",
  invitationNotFound: "Invitation not found",
  coParentNotFound: "Co-parent not found",
  invalidStatus: "Invalid status update",
} as const;

/** `name`: how pages show the person (displayName); the API shows `{id, username}`. */
export type CoParent = { id: number; username: string; name: string };
export type CoParentInvitation = {
  id: number;
  kidId: number;
  kidName: string;
  ownerId: number;
  ownerUsername: string;
  ownerName: string;
};

const coParentRow = query<{ id: number; kidId: number }, Pick<CoParentRow, "user_id">>((p, k) =>
  k("co_parents")
    .where({ id: p("id"), kid_id: p("kidId") })
    .first("user_id"),
);

/**
 * The kid's owner invites `userInput` (a user id as the client wrote it). Refused in the contract's
 * order: no kid, not the owner (the access module's refusals), then nobody/oneself/not an accepted
 * friend (a block ends the friendship, so a blocked user is not one), then an invitation or role
 * that exists (conflict). `token`: the form's one-time submission token, or the Idempotency-Key
 * (submissions.server.ts): a repeat answers the first invitation instead of "already invited".
 */
export async function inviteCoParent(
  ownerId: number,
  kidId: number,
  userInput: unknown,
  opts: { token?: unknown } = {},
): Promise<Result<{ invitationId: number; userId: number; replayed?: true }>> {
  const access = await requireKid(ownerId, kidId, "own");
  if (!access.ok) return access;
  const userId = parseUserId(userInput);
  if (userId === null) return notFound(CO_PARENT_MESSAGES.userNotFound);
  if (userId === ownerId) return invalid(CO_PARENT_MESSAGES.self);
  if (!(await canSeeKidsOf(userId, ownerId))) return invalid(CO_PARENT_MESSAGES.notFriend);
  const once = await submissionOnce(
    ownerId,
    "co-parent",
    opts.token,
    () => [kidId, userId],
    async (id) => {
      const row = await coParentRow.first({ id, kidId });
      return row && row.user_id === userId ? { invitationId: id, userId } : null;
    },
  );
  if (once.first) return { ok: true, ...once.first, replayed: true };
  try {
    const id = await once.create(async (trx) =>
      insertedId(
        await trx("co_parents")
          .insert({ kid_id: kidId, user_id: userId, status: "pending", created_at: nowIso() })
          .returning("id"),
      ),
    );
    return { ok: true, invitationId: id, userId };
  } catch (error) {
    const first = await once.winner(error);
    if (first) return { ok: true, ...first, replayed: true };
    if (isUniqueViolation(error)) return conflict(CO_PARENT_MESSAGES.exists);
    if (isForeignKeyViolation(error)) return notFound(CO_PARENT_MESSAGES.userNotFound);
    throw error;
  }
}

/** The invited user accepts (`accepted`) or declines (`declined`: the invitation goes) their invitation. */
const pendingInvitation = query<{ id: number; userId: number }, Pick<CoParentRow, "kid_id">>((p, k) =>
  k("co_parents")
    .where({ "co_parents.id": p("id"), "co_parents.user_id": p("userId"), "co_parents.status": "pending" })
    .first("co_parents.kid_id"),
);

export async function answerCoParentInvitation(
  viewerId: number,
  invitationId: number,
  status: unknown,
): Promise<Result<{ kidId: number }>> {
  const row = await pendingInvitation.first({ id: invitationId, userId: viewerId });
  if (!row) return notFound(CO_PARENT_MESSAGES.invitationNotFound);
  if (status !== "accepted" && status !== "declined") return invalid(CO_PARENT_MESSAGES.invalidStatus);
  const changed = await writeTransaction(async (trx: Db) => {
    const q = trx("co_parents").where({ id: invitationId, user_id: viewerId, status: "pending" });
    if (status === "declined") return q.delete();
    // only while the inviter is still an accepted friend (a friendship's end takes its invitations
    // along; this holds for rows written before it did)
    const kid: Pick<KidRow, "user_id"> | undefined = await trx("kids").where("id", row.kid_id).first("user_id");
    if (!kid || !(await canSeeKidsOf(viewerId, kid.user_id, trx))) return 0;
    return q.update({ status: "accepted" });
  });
  if (!changed) return notFound(CO_PARENT_MESSAGES.invitationNotFound);
  return { ok: true, kidId: row.kid_id };
}

/**
 * Makes `userId` an accepted co-parent of `kidId` on `trx`, the transaction of an invitation's
 * answer that made them the owner's friend (docs/decisions/0060-co-parent-invitations.md): only
 * while `ownerId` still owns the kid (the access module's "own": a kid removed or handed over
 * meanwhile is skipped) and the two are friends; a pending invitation of theirs becomes the role.
 * Answers "added", "already" (they co-parented it before) or null (not given).
 */
export async function addCoParentByInvitation(
  trx: Db,
  ownerId: number,
  kidId: number,
  userId: number,
): Promise<"added" | "already" | null> {
  const access = await requireKid(ownerId, kidId, "own", trx);
  if (!access.ok || userId === ownerId || !(await canSeeKidsOf(userId, ownerId, trx))) return null;
  const before: Pick<CoParentRow, "status"> | undefined = await trx("co_parents")
    .where({ kid_id: kidId, user_id: userId })
    .first("status");
  if (before?.status === "accepted") return "already";
  await trx("co_parents")
    .insert({ kid_id: kidId, user_id: userId, status: "accepted", created_at: nowIso() })
    .onConflict(["kid_id", "user_id"])
    .merge({ status: "accepted" });
  return "added";
}

/**
 * Ends `userInput`'s co-parent role (or invitation) for the kid: the owner removes anyone; a
 * co-parent removes only themselves (leaves). Refused: no kid / not visible (the access module's),
 * someone else's role (forbidden), no such role (not found).
 */
export async function removeCoParent(
  viewerId: number,
  kidId: number,
  userInput: unknown,
): Promise<Result<{ userId: number }>> {
  const userId = parseUserId(userInput);
  const access = await requireKid(viewerId, kidId, userId === viewerId ? "view" : "own");
  if (!access.ok) return access;
  if (userId === null) return notFound(CO_PARENT_MESSAGES.coParentNotFound);
  const removed = await writeTransaction((trx) => trx("co_parents").where({ kid_id: kidId, user_id: userId }).delete());
  return removed ? { ok: true, userId } : notFound(CO_PARENT_MESSAGES.coParentNotFound);
}

/**
 * Ends every co-parent role and invitation between `a` and `b`, either way (one owns the kid, the
 * other co-parents it or is invited to), on `conn`: the transaction that ends their friendship
 * (deleteFriendship, a block). Answers how many rows went.
 */
export async function endCoParentingBetween(conn: Db, a: number, b: number): Promise<number> {
  let ended = 0;
  for (const [owner, other] of [
    [a, b],
    [b, a],
  ] as const) {
    ended += await conn("co_parents")
      .where("user_id", other)
      .whereIn("kid_id", conn("kids").where("user_id", owner).select("id"))
      .delete();
  }
  return ended;
}

/** One co-parent role or invitation between the viewer and another user, as the viewer sees it. */
export type SharedKid = {
  kidId: number;
  kidName: string;
  /** "yours": the viewer owns the kid and the other co-parents it; "theirs": the other way round. */
  owner: "yours" | "theirs";
  /** An invitation not yet answered. */
  pending: boolean;
};

const sharedKidsQuery = query<
  { viewerId: number; others: number[] },
  Pick<CoParentRow, "kid_id" | "user_id" | "status"> & Pick<KidRow, "name"> & { owner_id: KidRow["user_id"] }
>((p, k) =>
  k("co_parents")
    .join("kids", "kids.id", "co_parents.kid_id")
    .where((w) =>
      w
        .where((mine) => inList(mine.where("kids.user_id", p("viewerId")), "co_parents.user_id", p("others")))
        .orWhere((theirs) => inList(theirs.where("co_parents.user_id", p("viewerId")), "kids.user_id", p("others"))),
    )
    .orderBy("co_parents.id")
    .select("co_parents.kid_id", "co_parents.user_id", "co_parents.status", "kids.name", "kids.user_id as owner_id"),
);

/**
 * The co-parent roles and invitations between `viewerId` and each of `others` (either way): what
 * ending the friendship with one of them would also end. One query; users with none are absent.
 */
export async function coParentingBetween(viewerId: number, others: number[]): Promise<Map<number, SharedKid[]>> {
  const out = new Map<number, SharedKid[]>();
  if (!others.length) return out;
  for (const row of await sharedKidsQuery.all({ viewerId, others: [...new Set(others)] })) {
    const yours = row.owner_id === viewerId;
    const other = yours ? row.user_id : row.owner_id;
    const list = out.get(other) ?? [];
    list.push({
      kidId: row.kid_id,
      kidName: row.name,
      owner: yours ? "yours" : "theirs",
      pending: row.status !== "accepted",
    });
    out.set(other, list);
  }
  return out;
}

/** "This also ends …": what ending the friendship with someone ends of `shared` (null: nothing). */
export function endsCoParentingText(who: string, shared: SharedKid[] | undefined): string | null {
  if (!shared?.length) return null;
  const parts = shared.map((s) =>
    s.owner === "yours"
      ? s.pending
        ? `your invitation to ${who} to co-parent ${s.kidName}`
        : `${who}'s co-parenting of ${s.kidName}`
      : s.pending
        ? `${who}'s invitation to you to co-parent ${s.kidName}`
        : `your co-parenting of ${s.kidName}`,
  );
  return `This also ends ${listText(parts)}. Co-parenting lasts only as long as the friendship.`;
}

const shownQuery = query<{ kidId: number }, Pick<KidRow, "shown_to_friends">>((p, k) =>
  k("kids").where("kids.id", p("kidId")).first("kids.shown_to_friends"),
);

/** Is the kid shown to its owner's friends? (false: handed over and not shown yet.) One query. */
export async function isKidShownToFriends(kidId: number): Promise<boolean> {
  return ((await shownQuery.first({ kidId }))?.shown_to_friends ?? 1) === 1;
}

/**
 * The owner of a kid handed over to them (account deletion of the other parent: hidden from the
 * owner's friends) shows it to their friends again: they see the kid and its moments as each
 * moment's audience says (every moment was made "Only us" by the hand-over). Owner only.
 * Showing a kid that is shown already is fine (the same answer).
 */
export async function showKidToFriends(viewerId: number, kidId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireKid(viewerId, kidId, "own");
  if (!access.ok) return access;
  await writeTransaction((trx) =>
    trx("kids").where({ id: kidId, user_id: viewerId }).update({ shown_to_friends: true }),
  );
  return { ok: true, kidId };
}

const coParentsOfKids = query<
  { kidIds: number[] },
  Pick<CoParentRow, "kid_id" | "status"> & Pick<UserRow, "id" | "username" | "first_name" | "last_name">
>((p, k) =>
  inList(k("co_parents").join("users", "users.id", "co_parents.user_id"), "co_parents.kid_id", p("kidIds"))
    .orderBy("co_parents.id")
    .select(
      "co_parents.kid_id",
      "co_parents.status",
      "users.id",
      "users.username",
      "users.first_name",
      "users.last_name",
    ),
);

/** The co-parents of many kids at once (accepted; with `pending`, the invited ones too), one query. */
export async function coParentsOf(
  kidIds: number[],
  { pending = false } = {},
): Promise<Map<number, (CoParent & { pending: boolean })[]>> {
  const out = new Map<number, (CoParent & { pending: boolean })[]>(kidIds.map((id) => [id, []]));
  if (!kidIds.length) return out;
  for (const row of await coParentsOfKids.all({ kidIds: [...new Set(kidIds)] })) {
    const isPending = row.status !== "accepted";
    if (isPending && !pending) continue;
    out.get(row.kid_id)?.push({ id: row.id, username: row.username, name: displayName(row), pending: isPending });
  }
  return out;
}

const invitationsTo = query<
  { userId: number },
  Pick<CoParentRow, "id"> & {
    kid_id: KidRow["id"];
    kid_name: KidRow["name"];
    owner_id: UserRow["id"];
    owner_username: UserRow["username"];
    owner_first_name: UserRow["first_name"];
    owner_last_name: UserRow["last_name"];
  }
>((p, k) =>
  k("co_parents")
    .join("kids", "kids.id", "co_parents.kid_id")
    .join("users as owners", "owners.id", "kids.user_id")
    .where("co_parents.user_id", p("userId"))
    .andWhere("co_parents.status", "pending")
    .orderBy("co_parents.id")
    .select(
      "co_parents.id",
      "kids.id as kid_id",
      "kids.name as kid_name",
      "owners.id as owner_id",
      "owners.username as owner_username",
      "owners.first_name as owner_first_name",
      "owners.last_name as owner_last_name",
    ),
);

/** The co-parent invitations `userId` has received and not answered. One query. */
export async function coParentInvitationsFor(userId: number): Promise<CoParentInvitation[]> {
  return (await invitationsTo.all({ userId })).map((row) => ({
    id: row.id,
    kidId: row.kid_id,
    kidName: row.kid_name,
    ownerId: row.owner_id,
    ownerUsername: row.owner_username,
    ownerName: displayName({
      username: row.owner_username,
      first_name: row.owner_first_name,
      last_name: row.owner_last_name,
    }),
  }));
}

const usernames = query<{ ids: number[] }, Pick<UserRow, "id" | "username">>((p, k) =>
  inList(k("users"), "users.id", p("ids")).select("users.id", "users.username"),
);

/** Who posted moments (their `posted_by`), by id: one query for any number. */
export async function posterNames(ids: (number | null)[]): Promise<Record<number, string>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (!wanted.length) return {};
  return Object.fromEntries((await usernames.all({ ids: wanted })).map((r) => [r.id, r.username]));
}
