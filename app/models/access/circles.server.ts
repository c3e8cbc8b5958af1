import type { Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import type { FriendshipRow } from "~/lib/tables";
import { AUDIENCE_LABELS } from "~/forms/audiences";
import { CIRCLES, type Audience, type Circle } from "~/forms/circles";

// Which audiences of the owner's moments a friend sees, by the circle the owner files them in
// (docs/decisions/0031-audiences-circles-co-parents-blocks.md). Written once: the list condition
// (lists.server.ts), the guards' facts (facts.server.ts) and every sentence that tells a parent
// or a relative what someone sees (docs/decisions/0059-the-circle-a-relationship-implies.md) read
// this table. "Only us" is never a circle's: only the kid's parents see it. Every friend sees at
// least what the Friends circle sees (the list condition relies on it; a test checks it).

export const AUDIENCES_SEEN_BY_CIRCLE: Readonly<Record<Circle, readonly Exclude<Audience, "us">[]>> = {
  family: ["family", "everyone"],
  friends: ["everyone"],
};

/** The audiences a friend filed in `circle` sees, in the order of the audience choice. */
export function audiencesSeenBy(circle: Circle): readonly Exclude<Audience, "us">[] {
  return AUDIENCES_SEEN_BY_CIRCLE[circle];
}

/**
 * "Family and Everyone": the audiences (as the moment form labels them) whose moments a friend
 * filed in `circle` sees. Every sentence that says what someone sees is made with it.
 */
export function audiencesText(circle: Circle): string {
  const labels = audiencesSeenBy(circle).map((a) => AUDIENCE_LABELS[a]);
  return labels.length > 1 ? `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}` : (labels[0] ?? "");
}

/** audiencesText of every circle: for a form that says what the chosen circle sees as it changes. */
export function circleSeesTexts(): Record<Circle, string> {
  return Object.fromEntries(CIRCLES.map((c) => [c, audiencesText(c)])) as Record<Circle, string>;
}

const ownerSides = query<
  { ownerId: number; others: number[] },
  Pick<FriendshipRow, "user_low" | "user_high" | "low_circle" | "high_circle">
>((p, k) =>
  k("friendships")
    .where("friendships.status", "accepted")
    .andWhere((pair) =>
      pair
        .where((w) => inList(w.where("friendships.user_low", p("ownerId")), "friendships.user_high", p("others")))
        .orWhere((w) => inList(w.where("friendships.user_high", p("ownerId")), "friendships.user_low", p("others"))),
    )
    .select("friendships.user_low", "friendships.user_high", "friendships.low_circle", "friendships.high_circle"),
);

/**
 * The circle `ownerId` files each of `others` in, for those who are the owner's accepted friends
 * (others: absent, they see nothing of the owner's). One query.
 */
export async function circlesFiledBy(ownerId: number, others: number[], conn?: Db): Promise<Map<number, Circle>> {
  const out = new Map<number, Circle>();
  if (!others.length) return out;
  for (const row of await ownerSides.all({ ownerId, others: [...new Set(others)] }, { conn })) {
    const low = row.user_low === ownerId;
    out.set(low ? row.user_high : row.user_low, low ? row.low_circle : row.high_circle);
  }
  return out;
}
