// The audience of a moment (docs/spec.md §6): values and labels, without zod, so a page that only
// shows them loads no validation code (docs/decisions/0035-slow-networks.md). Browser and server.

export const AUDIENCES = ["us", "family", "everyone"] as const;
export type Audience = (typeof AUDIENCES)[number];

export const AUDIENCE_LABELS: Record<Audience, string> = {
  us: "Only us",
  family: "Family",
  everyone: "Everyone",
};
export const AUDIENCE_HINTS: Record<Audience, string> = {
  us: "You and the kid's co-parents.",
  family: "Also the friends you put in your Family circle.",
  everyone: "All your friends.",
};
