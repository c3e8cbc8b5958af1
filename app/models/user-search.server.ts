import type { Knex } from "knex";
import type { UserRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { characters, NAME_MAX } from "~/forms/people";
import { whereNotBlockedBy } from "./access.server";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { Photo } from "~/images/photo";
import { relationsWith, type Relation } from "./friend-lists.server";

// Friend search (docs/spec.md §5 "Friend search", docs/api.md GET /api/users/search): any signed-in user
// may find any user by name, to send a friend request. A hit carries only what the search page
// shows: id, names and picture (never an email, never kids).

export const SEARCH_LIMIT = 20;
/** First and last name are at most NAME_MAX characters each: "first last" is at most 2 × NAME_MAX + 1. */
const LONGEST_MATCHABLE = 2 * NAME_MAX + 1;

export type SearchHit = { id: number; first_name: string | null; last_name: string | null; photo: Photo | null };

/** A hit as the search page shows it: also the username (two people may share a name) and where the searcher stands with them. */
export type PersonHit = SearchHit & { username: string; relation: Relation | "self" | null };

/**
 * The query as it is matched: control characters dropped (no name holds one, and PostgreSQL refuses
 * a NUL in text), trimmed, inner whitespace collapsed, lower-cased; "" when blank.
 */
export function normalizeSearchQuery(query: string | null | undefined): string {
  return (
    (query ?? "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping control characters is the point
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, "")
      .trim()
      .replace(/\s+/g, " ")
      .toLowerCase()
  );
}

/** LIKE pattern for a literal substring: `\`, `%` and `_` are escaped (used with ESCAPE '\'). */
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// users who blocked the viewer are not found (docs/spec.md §6): whereNotBlockedBy
function matchingUsers(k: Knex, pattern: string, viewer: string) {
  return (
    whereNotBlockedBy(k("users"), "users.id", viewer)
      .leftJoin("images as user_images", "user_images.id", "users.image_id")
      // one condition covers all three: a substring of the first or the last name is a substring of
      // "first last" too. lower() on both sides, so PostgreSQL (case-sensitive LIKE) agrees.
      .whereRaw("lower(coalesce(users.first_name, '') || ' ' || coalesce(users.last_name, '')) like ? escape '\\'", [
        pattern,
      ])
      .orderByRaw("lower(coalesce(users.last_name, '')), lower(coalesce(users.first_name, '')), users.id")
      .limit(SEARCH_LIMIT)
  );
}

const hitColumns = ["users.id", "users.first_name", "users.last_name", ...photoColumns("user_images", "user_image")];
type HitColumns = Pick<UserRow, "id" | "first_name" | "last_name"> & PhotoColumns<"user_image">;
const matching = query<{ pattern: string; viewer: number }, HitColumns>((p, k) =>
  matchingUsers(k, p("pattern"), p("viewer")).select(hitColumns),
);
const matchingWithUsername = query<{ pattern: string; viewer: number }, HitColumns & Pick<UserRow, "username">>(
  (p, k) => matchingUsers(k, p("pattern"), p("viewer")).select([...hitColumns, "users.username"]),
);

function hitFromRow(row: HitColumns): SearchHit {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    photo: photoFromRow(row, "user_image"),
  };
}

/**
 * Users whose first name, last name or "first last" contains `query`, case-insensitively, at most
 * 20, ordered by last name, first name, id. null for a blank query (the caller's "please enter a
 * name" case). The caller is not left out: finding oneself is how one learns that a request to
 * oneself is refused. Users who blocked `viewerId` are left out.
 */
export async function searchUsers(query: string | null | undefined, viewerId = 0): Promise<SearchHit[] | null> {
  const q = normalizeSearchQuery(query);
  if (!q) return null;
  if (characters(q) > LONGEST_MATCHABLE) return [];
  const rows = await matching.all({ pattern: likeSubstring(q), viewer: viewerId });
  return rows.map(hitFromRow);
}

/**
 * The search page's hits for `viewerId` (the same users, in the same order, as searchUsers): each
 * with its username and where the searcher stands with them ("self", a friendship's state, or null
 * when a request may be sent). Two queries whatever the number of hits.
 */
export async function searchPeople(viewerId: number, query: string | null | undefined): Promise<PersonHit[] | null> {
  const q = normalizeSearchQuery(query);
  if (!q) return null;
  if (characters(q) > LONGEST_MATCHABLE) return [];
  const rows = await matchingWithUsername.all({ pattern: likeSubstring(q), viewer: viewerId });
  const relations = await relationsWith(
    viewerId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const hit = hitFromRow(row);
    const relation = hit.id === viewerId ? "self" : (relations.get(hit.id) ?? null);
    return { ...hit, username: row.username, relation };
  });
}
