import { nowIso, writeTransaction } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { friendLabelSchema, type Circle, type FriendLabel, type FriendRelationship } from "~/forms/circles";
import { conflict, forbidden, invalid, notFound, type Result } from "./refusal";

// How each side of an accepted friendship files the other (docs/spec.md §6): a circle (Family or
// Friends, default Friends) and a relationship label. Stored on the friendship row itself, one pair
// of columns per side (user_low's view of user_high in low_*, and the other way round in high_*),
// so the access module reads the circle with the friendship in the same index lookup
// (app/models/access.server.ts whereMomentVisibleTo).

export const CIRCLE_REFUSALS = {
  friendshipNotFound: "Friendship not found",
  notParty: "You are not authorized",
  notAccepted: "Only an accepted friendship has a circle",
} as const;

/** The caller's side of a friendships row (selected with `labelColumns`). */
export function labelFromRow(row: Record<string, unknown>, viewerId: number): FriendLabel {
  const low = Number(row.user_low) === viewerId;
  return {
    circle: String(low ? row.low_circle : row.high_circle) as Circle,
    relationship: ((low ? row.low_relationship : row.high_relationship) as FriendRelationship | null) ?? null,
  };
}

/** The circle and relationship an invitation row presets (its `circle`, `relationship` columns). */
export function presetFromRow(row: Record<string, unknown>): FriendLabel {
  return { circle: row.circle === "family" ? "family" : "friends", relationship: (row.relationship as FriendRelationship | null) ?? null };
}

/** The friendships columns `labelFromRow` needs, for table alias `t`. */
export const labelColumns = (t: string) => [
  `${t}.user_low`,
  `${t}.low_circle`,
  `${t}.high_circle`,
  `${t}.low_relationship`,
  `${t}.high_relationship`,
];

const friendshipSides = query<{ id: number }>((p, k) =>
  k("friendships")
    .where("friendships.id", p("id"))
    .first("friendships.id", "friendships.status", "friendships.user_high", ...labelColumns("friendships")),
);

/**
 * `viewerId` files the other side of friendship `friendshipId` (as the client wrote the body:
 * `{circle, relationship}`). Refused in the contract's order: no such friendship (not found), not
 * a party (forbidden), not accepted (conflict), then invalid fields.
 */
export async function setFriendLabel(
  viewerId: number,
  friendshipId: number,
  body: Record<string, unknown>,
): Promise<Result<{ friendshipId: number; label: FriendLabel }>> {
  const row = await friendshipSides.first({ id: friendshipId });
  if (!row) return notFound(CIRCLE_REFUSALS.friendshipNotFound);
  const low = Number(row.user_low) === viewerId;
  const high = Number(row.user_high) === viewerId;
  if (!low && !high) return forbidden(CIRCLE_REFUSALS.notParty);
  if (row.status !== "accepted") return conflict(CIRCLE_REFUSALS.notAccepted);
  const parsed = friendLabelSchema.safeParse({ circle: body.circle, relationship: body.relationship });
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (fieldErrors[String(issue.path[0])] ??= []).push(issue.message);
    return invalid(parsed.error.issues[0]!.message, fieldErrors);
  }
  const label = parsed.data;
  const side = low ? { low_circle: label.circle, low_relationship: label.relationship } : { high_circle: label.circle, high_relationship: label.relationship };
  const changed = await writeTransaction((trx) =>
    trx("friendships")
      .where({ id: friendshipId, status: "accepted", [low ? "user_low" : "user_high"]: viewerId })
      .update({ ...side, updated_at: nowIso() }),
  );
  if (!changed) return notFound(CIRCLE_REFUSALS.friendshipNotFound); // removed meanwhile
  return { ok: true, friendshipId, label };
}
