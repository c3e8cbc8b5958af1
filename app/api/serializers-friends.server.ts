// Friends, friendships and search hits as api-contract.md returns them.
import { photoUrl } from "~/images/photo";
import type { FriendEntry, FriendKid, FriendLists, Friendship } from "~/models/friendships.server";
import type { SearchHit } from "~/models/user-search.server";

/** Friendship: `{id, user_id, friend_id, status}`. */
export function serializeFriendship(f: Friendship) {
  return { id: f.id, user_id: f.user_id, friend_id: f.friend_id, status: f.status };
}

/** Kid (the contract's shape) on a friend entry. */
export function serializeFriendKid(kid: FriendKid) {
  return {
    id: kid.id,
    user_id: kid.user_id,
    name: kid.name,
    birth_date: kid.birth_date,
    relationship: kid.relationship,
    kid_image_url: kid.photo ? photoUrl(kid.photo) : null,
  };
}

/** Friend entry: `id` is the OTHER user's id; `kids` only when accepted (`[]` otherwise). */
export function serializeFriendEntry(entry: FriendEntry) {
  return {
    id: entry.user.id,
    username: entry.user.username,
    first_name: entry.user.first_name,
    last_name: entry.user.last_name,
    user_image_url: entry.user.photo ? photoUrl(entry.user.photo) : null,
    status: entry.status,
    kids: entry.status === "accepted" ? entry.kids.map(serializeFriendKid) : [],
  };
}

/** GET /api/users/friends. */
export function serializeFriendLists(lists: FriendLists) {
  return {
    pending_friends: lists.pending.map(serializeFriendEntry),
    confirmed_friends: lists.confirmed.map(serializeFriendEntry),
    denied_friends: lists.denied.map(serializeFriendEntry),
  };
}

/** Search hit: `{id, first_name, last_name, user_image_url}` (no email, no kids). */
export function serializeSearchHit(hit: SearchHit) {
  return {
    id: hit.id,
    first_name: hit.first_name,
    last_name: hit.last_name,
    user_image_url: hit.photo ? photoUrl(hit.photo) : null,
  };
}
