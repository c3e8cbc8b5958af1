import type { Knex } from "knex";
import { inList, query } from "~/lib/query.server";
import { photoColumns } from "~/images/photo-sql.server";
import type { FriendLabel } from "~/forms/circles";
import type { FriendshipRow } from "~/lib/tables";
import { listVisibleKidsOf, type Kid } from "./kids.server";
import type { PublicUser } from "./users.server";

import {
  friendshipColumns,
  publicUser,
  publicUserFromRow,
  type Friendship,
  type FriendshipStatus,
  type PublicUserColumns,
} from "./friendships.server";

// The reads of friendships (the state machine that writes them is app/models/friendships.server.ts):
// the friends page's lists, the search's relations, the friend count.

/** The other side of one friendship, as the caller sees it. */
export type FriendEntry = {
  friendshipId: number;
  status: FriendshipStatus;
  /** "sent": the caller sent the request; "received": the other user did. */
  direction: "sent" | "received";
  user: PublicUser;
  /** The other user's kids: only when the friendship is accepted, otherwise always []. */
  kids: Kid[];
  /** How the caller files the other user (docs/spec.md §6): meaningful once accepted. */
  label: FriendLabel;
};

export type FriendLists = {
  /** Every pending request the caller sent or received. */
  pending: FriendEntry[];
  /** Accepted friendships (either direction). */
  confirmed: FriendEntry[];
  /** Requests the caller sent that were denied (the receiver never sees them again). */
  denied: FriendEntry[];
};
/** The caller's side of a friendships row (selected with `labelColumns`). */
export function labelFromRow(row: LabelColumns, viewerId: number): FriendLabel {
  const low = row.user_low === viewerId;
  return {
    circle: low ? row.low_circle : row.high_circle,
    relationship: low ? row.low_relationship : row.high_relationship,
  };
}

/** The row `labelColumns` select. */
export type LabelColumns = Pick<
  FriendshipRow,
  "user_low" | "low_circle" | "high_circle" | "low_relationship" | "high_relationship"
>;

/** The friendships columns `labelFromRow` needs, for table alias `t`. */
export const labelColumns = (t: string) => [
  `${t}.user_low`,
  `${t}.low_circle`,
  `${t}.high_circle`,
  `${t}.low_relationship`,
  `${t}.high_relationship`,
];
const friendshipsOf = query<{ viewerId: number }, Friendship>((p, k) =>
  k("friendships")
    .where("user_id", p("viewerId"))
    .orWhere("friend_id", p("viewerId"))
    .orderBy("id")
    .select(friendshipColumns),
);

/** Usernames in alphabetical order, case and accents aside (one collator: `localeCompare` with options builds one per call). */
const BY_USERNAME = new Intl.Collator("en", { sensitivity: "base" });

/** Every friendship the caller is a party to, in id order (GET /api/friendships/current). */
export async function listFriendships(viewerId: number): Promise<Friendship[]> {
  return friendshipsOf.all({ viewerId });
}

type FriendRow = { friendship_id: FriendshipRow["id"]; sender_id: FriendshipRow["user_id"] } & Pick<
  FriendshipRow,
  "status"
> &
  PublicUserColumns &
  LabelColumns;

/** The viewer's friendships with the other user (and picture), for table alias `f`. */
function friendRows(viewerId: string, k: Knex): Knex.QueryBuilder {
  return k("friendships as f")
    .join("users as other", function () {
      this.on(function () {
        this.onVal("f.user_id", "=", viewerId).andOn("other.id", "=", "f.friend_id");
      }).orOn(function () {
        this.onVal("f.friend_id", "=", viewerId).andOn("other.id", "=", "f.user_id");
      });
    })
    .leftJoin("images as user_images", "user_images.id", "other.image_id")
    .select([
      "f.id as friendship_id",
      "f.user_id as sender_id",
      "f.status",
      "other.id",
      "other.username",
      "other.first_name",
      "other.last_name",
      ...labelColumns("f"),
      ...photoColumns("user_images", "user_image"),
    ]);
}

// the friendships of the viewer with the other user (and picture): not the viewer's denials
const friendsOf = query<{ viewerId: number }, FriendRow>((p, k) =>
  friendRows(p("viewerId"), k)
    .where((w) => w.where("f.user_id", p("viewerId")).orWhere("f.friend_id", p("viewerId")))
    .whereNot((w) => w.where("f.status", "denied").andWhere("f.friend_id", p("viewerId")))
    .orderBy("f.id"),
);

// one friendship of the viewer (the access module has said it is theirs and accepted)
const friendById = query<{ viewerId: number; id: number }, FriendRow>((p, k) =>
  friendRows(p("viewerId"), k).where("f.id", p("id")).first(),
);

function entryFromRow(row: FriendRow, viewerId: number): FriendEntry {
  return {
    friendshipId: row.friendship_id,
    status: row.status,
    direction: row.sender_id === viewerId ? "sent" : "received",
    user: publicUserFromRow(row),
    kids: [],
    label: labelFromRow(row, viewerId),
  };
}

/**
 * One friend of `viewerId` with their kids (a friend's own page): `friendshipId` as the access
 * module's requireFriend answered it. Two queries.
 */
export async function getFriend(viewerId: number, friendshipId: number): Promise<FriendEntry | null> {
  const row = await friendById.first({ viewerId, id: friendshipId });
  if (!row) return null;
  const entry = entryFromRow(row, viewerId);
  entry.kids = (await listVisibleKidsOf(viewerId, [entry.user.id])).get(entry.user.id) ?? [];
  return entry;
}

/**
 * The caller's friends page / GET /api/users/friends, in two queries whatever the number of friends:
 * the friendships with the other user (and picture), then the kids of all accepted friends at once
 * (as the access module lets the caller see them). Denied requests the caller received are left
 * out; pending and denied entries carry no kids, nor any entry with `kids: false` (the friends
 * page, which lists people and shows each one's kids on their own page: one query).
 */
export async function listFriends(viewerId: number, { kids: withKids = true } = {}): Promise<FriendLists> {
  const rows = await friendsOf.all({ viewerId });
  const entries = rows.map((row) => entryFromRow(row, viewerId));

  const confirmed = entries.filter((e) => e.status === "accepted");
  if (confirmed.length && withKids) {
    const kids = await listVisibleKidsOf(
      viewerId,
      confirmed.map((e) => e.user.id),
    );
    for (const entry of confirmed) entry.kids = kids.get(entry.user.id) ?? [];
  }
  confirmed.sort((a, b) => BY_USERNAME.compare(a.user.username, b.user.username) || a.user.id - b.user.id);

  return {
    pending: entries.filter((e) => e.status === "pending"),
    confirmed,
    denied: entries.filter((e) => e.status === "denied" && e.direction === "sent"),
  };
}

/**
 * Where a user stands with another, as the friend search shows it: "friends" (accepted), "sent"
 * (the user's request is pending), "received" (the other's request is pending), "denied" (a denied
 * request between the two, either way: no new one can be sent until its sender deletes it).
 */
export type Relation = "friends" | "sent" | "received" | "denied";

const friendshipsWithUsers = query<
  { viewerId: number; others: number[] },
  Pick<FriendshipRow, "user_id" | "friend_id" | "status">
>((p, k) =>
  k("friendships")
    .where((w) => inList(w.where("user_id", p("viewerId")), "friend_id", p("others")))
    .orWhere((w) => inList(w.where("friend_id", p("viewerId")), "user_id", p("others")))
    .select("user_id", "friend_id", "status"),
);

/** `viewerId`'s relation with each of `others` that has a friendship with them (one query). */
export async function relationsWith(viewerId: number, others: number[]): Promise<Map<number, Relation>> {
  const out = new Map<number, Relation>();
  if (!others.length) return out;
  const rows = await friendshipsWithUsers.all({ viewerId, others: [...new Set(others)] });
  for (const row of rows) {
    const sent = row.user_id === viewerId;
    const other = sent ? row.friend_id : row.user_id;
    const status = row.status;
    out.set(other, status === "accepted" ? "friends" : status === "denied" ? "denied" : sent ? "sent" : "received");
  }
  return out;
}

const acceptedCount = query<{ userId: number }, { n: number }>((p, k) =>
  k("friendships")
    .where("friendships.status", "accepted")
    .andWhere((w) => w.where("friendships.user_low", p("userId")).orWhere("friendships.user_high", p("userId")))
    .first(k.raw("count(*) as n")),
);

/** How many accepted friends `userId` has (the account deletion page's summary). One query. */
export async function countFriends(userId: number): Promise<number> {
  const row = await acceptedCount.first({ userId });
  return row?.n ?? 0;
}

const pendingRequest = query<{ senderId: number; friendId: number }, Pick<FriendshipRow, "id">>((p, k) =>
  k("friendships")
    .where({ user_id: p("senderId"), friend_id: p("friendId"), status: "pending" })
    .first("id"),
);

/** For the search page: did `senderId` send a still-pending request to `friendId`? Then who is it. */
export async function pendingRequestTo(senderId: number, friendId: number): Promise<PublicUser | null> {
  const row = await pendingRequest.first({ senderId, friendId });
  return row ? publicUser(friendId) : null;
}
