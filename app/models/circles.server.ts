import { writeTransaction } from "~/lib/db.server";
import type { InvitationRow } from "~/lib/tables";
import { friendLabelSchema, type FriendLabel } from "~/forms/circles";
import { displayName } from "~/lib/names";
import { ACCESS_MESSAGES, audiencesText, circlesFiledBy, requireFriendshipParty } from "./access.server";
import { publicUser, setFriendshipLabel } from "./friendships.server";
import { conflict, invalid, notFound, type Result } from "./refusal";

// How each side of an accepted friendship files the other (docs/spec.md §6): a circle (Family or
// Friends, default Friends) and a relationship label. Stored on the friendship row itself, one pair
// of columns per side (user_low's view of user_high in low_*, and the other way round in high_*),
// so the access module reads the circle with the friendship in the same index lookup
// (app/models/access.server.ts whereMomentVisibleTo). The row itself is the friendship module's
// (labelFromRow, setFriendshipLabel in app/models/friendships.server.ts); who may file it is the
// access module's (requireFriendshipParty).

export const CIRCLE_REFUSALS = {
  friendshipNotFound: ACCESS_MESSAGES.friendshipNotFound,
  notParty: ACCESS_MESSAGES.notAuthorized,
  notAccepted: "Only an accepted friendship has a circle",
} as const;

/** The circle and relationship an invitation row presets (its `circle`, `relationship` columns). */
export function presetFromRow(row: Pick<InvitationRow, "circle" | "relationship">): FriendLabel {
  return { circle: row.circle, relationship: row.relationship };
}

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
  const party = await requireFriendshipParty(viewerId, friendshipId);
  if (!party.ok) return party;
  if (!party.accepted) return conflict(CIRCLE_REFUSALS.notAccepted);
  const parsed = friendLabelSchema.safeParse({ circle: body.circle, relationship: body.relationship });
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (fieldErrors[String(issue.path[0])] ??= []).push(issue.message);
    return invalid(parsed.error.issues[0]!.message, fieldErrors);
  }
  const label = parsed.data;
  const changed = await writeTransaction((trx) => setFriendshipLabel(trx, viewerId, friendshipId, party.side, label));
  if (!changed) return notFound(CIRCLE_REFUSALS.friendshipNotFound); // removed meanwhile
  return { ok: true, friendshipId, label };
}

/**
 * What `viewerId` sees of `ownerId`'s moments, as the feed welcomes someone who just joined by the
 * owner's invitation: the owner's name and "Family and Everyone". null: not the owner's friend.
 */
export async function whatViewerSeesOf(
  viewerId: number,
  ownerId: number,
): Promise<{ name: string; sees: string } | null> {
  const circle = (await circlesFiledBy(ownerId, [viewerId])).get(viewerId);
  const owner = circle ? await publicUser(ownerId) : null;
  return owner && circle ? { name: displayName(owner), sees: audiencesText(circle) } : null;
}
