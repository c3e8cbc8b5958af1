import { z } from "zod";
import { AUDIENCES } from "./audiences";

// Who sees what (docs/spec.md §6): the audience of a moment (and a kid's default for new ones),
// and how each side of an accepted friendship files the other (circle and relationship). The
// values are the database's and the API's; the labels are the pages'. Browser and server.

export type { Audience } from "./audiences";

export const CIRCLES = ["family", "friends"] as const;
export type Circle = (typeof CIRCLES)[number];
export const CIRCLE_LABELS: Record<Circle, string> = { family: "Family", friends: "Friends" };

export const FRIEND_RELATIONSHIPS = [
  "grandparent",
  "parents_sibling",
  "cousin",
  "friend",
  "caregiver",
  "other",
] as const;
export type FriendRelationship = (typeof FRIEND_RELATIONSHIPS)[number];
export const FRIEND_RELATIONSHIP_LABELS: Record<FriendRelationship, string> = {
  grandparent: "Grandparent",
  parents_sibling: "Parent's sibling",
  cousin: "Cousin",
  friend: "Friend",
  caregiver: "Caregiver",
  other: "Other",
};

/**
 * The circle a relationship implies (docs/decisions/0059-the-circle-a-relationship-implies.md):
 * the kid's grandparents, aunts and uncles (a parent's sibling) and cousins are Family; a friend,
 * a caregiver, "Other" and no relationship at all are Friends, the default of every friendship.
 */
export const IMPLIED_CIRCLE: Record<FriendRelationship, Circle> = {
  grandparent: "family",
  parents_sibling: "family",
  cousin: "family",
  friend: "friends",
  caregiver: "friends",
  other: "friends",
};

export function impliedCircle(relationship: FriendRelationship | null | undefined): Circle {
  return relationship ? IMPLIED_CIRCLE[relationship] : "friends";
}

/** A relationship value from a form field (anything else: none). */
export function asRelationship(value: unknown): FriendRelationship | null {
  return (FRIEND_RELATIONSHIPS as readonly unknown[]).includes(value) ? (value as FriendRelationship) : null;
}

/**
 * The circle a friend's label form (a circle and a relationship, Save) means, given what the form
 * showed before (`was`: its hidden fields): a newly chosen relationship brings the circle it
 * implies, unless the same save changed the circle too, then that choice stands
 * (docs/decisions/0059-the-circle-a-relationship-implies.md). Without JavaScript this is how the
 * form follows the relationship; with JavaScript the page already moved the circle.
 */
export function circleOfLabelForm(
  sent: { circle: unknown; relationship: unknown },
  was: { circle: unknown; relationship: unknown },
): unknown {
  const relationship = asRelationship(sent.relationship);
  const newRelationship = relationship !== null && relationship !== asRelationship(was.relationship);
  return newRelationship && sent.circle === was.circle ? impliedCircle(relationship) : sent.circle;
}

export const CIRCLE_MESSAGES = {
  audience: "Choose who can see it: Only us, Family or Everyone",
  circle: "Choose a circle: Family or Friends",
  relationship: "Choose a relationship from the list",
} as const;

/** An optional audience field (absent or empty: undefined, the caller's default applies). */
export function audienceField() {
  return z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.enum(AUDIENCES, { error: CIRCLE_MESSAGES.audience }).optional(),
  );
}

/** The friend-label form and API body: a circle, and a relationship (empty: none). */
export const friendLabelSchema = z.object({
  circle: z.enum(CIRCLES, { error: CIRCLE_MESSAGES.circle }),
  relationship: z.preprocess(
    (v) => (v === "" || v === undefined ? null : v),
    z.enum(FRIEND_RELATIONSHIPS, { error: CIRCLE_MESSAGES.relationship }).nullable(),
  ),
});
export type FriendLabel = z.output<typeof friendLabelSchema>;
