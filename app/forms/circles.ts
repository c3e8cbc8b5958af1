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
