// Friends, friendships and search hits as the API returns them (docs/api.md, Entities as returned).
import type { FriendEntry, FriendLists } from "~/models/friend-lists.server";
import type { Friendship } from "~/models/friendships.server";
import type { SearchHit } from "~/models/user-search.server";
import type { CoParent } from "~/models/co-parents.server";
import { serializeKid } from "./serializers-kids.server";
import { imageUrl } from "./serializers.server";

/** Friendship: `{id, user_id, friend_id, status}`. */
export function serializeFriendship(f: Friendship) {
  return { id: f.id, user_id: f.user_id, friend_id: f.friend_id, status: f.status };
}

/** Friend entry: `id` is the OTHER user's id; `kids` only when accepted (`[]` otherwise). */
export function serializeFriendEntry(entry: FriendEntry, coParents: Map<number, CoParent[]> = new Map()) {
  return {
    id: entry.user.id,
    username: entry.user.username,
    first_name: entry.user.first_name,
    last_name: entry.user.last_name,
    user_image_url: imageUrl(entry.user.photo),
    status: entry.status,
    kids: entry.status === "accepted" ? entry.kids.map((kid) => serializeKid(kid, coParents)) : [],
    ...friendEntryLabel(entry),
  };
}

/** An accepted friend's `circle` and `relationship` as the list's owner filed them (docs/api.md). */
function friendEntryLabel(entry: FriendEntry) {
  return entry.status === "accepted" ? { circle: entry.label.circle, relationship: entry.label.relationship } : {};
}

/** GET /api/users/friends (`coParents`: of the confirmed friends' kids). */
export function serializeFriendLists(lists: FriendLists, coParents: Map<number, CoParent[]> = new Map()) {
  return {
    pending_friends: lists.pending.map((e) => serializeFriendEntry(e)),
    confirmed_friends: lists.confirmed.map((e) => serializeFriendEntry(e, coParents)),
    denied_friends: lists.denied.map((e) => serializeFriendEntry(e)),
  };
}

/** Search hit: `{id, first_name, last_name, user_image_url}` (no email, no kids). */
export function serializeSearchHit(hit: SearchHit) {
  return {
    id: hit.id,
    first_name: hit.first_name,
    last_name: hit.last_name,
    user_image_url: imageUrl(hit.photo),
  };
}
