import { query } from "~/lib/query.server";
import { whereNotBlockedBy } from "./access.server";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import type { Photo } from "~/images/photo";

// Friend search (docs/spec.md §5 "Friend search", docs/api.md GET /api/users/search): any signed-in user
// may find any user by name, to send a friend request. A hit carries only what the search page
// shows: id, names and picture (never an email, never kids).

export const SEARCH_LIMIT = 20;
/** First and last name are at most 30 characters each: "first last" is at most 61. */
const LONGEST_MATCHABLE = 61;

export type SearchHit = { id: number; first_name: string | null; last_name: string | null; photo: Photo | null };

/**
 * The query as it is matched: control characters dropped (no name holds one, and PostgreSQL refuses
 * a NUL in text), trimmed, inner whitespace collapsed, lower-cased; "" when blank.
 */
export function normalizeSearchQuery(query: string | null | undefined): string {
  // eslint-disable-next-line no-control-regex
  return (query ?? "").replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, "").trim().replace(/\s+/g, " ").toLowerCase();
}

/** LIKE pattern for a literal substring: `\`, `%` and `_` are escaped (used with ESCAPE '\'). */
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const matching = query<{ pattern: string; viewer: number }>((p, k) =>
  whereNotBlockedBy(k("users"), "users.id", p("viewer"))
    .leftJoin("images as user_images", "user_images.id", "users.image_id")
    // one condition covers all three: a substring of the first or the last name is a substring of
    // "first last" too. lower() on both sides, so PostgreSQL (case-sensitive LIKE) agrees.
    .whereRaw("lower(coalesce(users.first_name, '') || ' ' || coalesce(users.last_name, '')) like ? escape '\\'", [p("pattern")])
    .orderByRaw("lower(coalesce(users.last_name, '')), lower(coalesce(users.first_name, '')), users.id")
    .limit(SEARCH_LIMIT)
    .select(["users.id", "users.first_name", "users.last_name", ...photoColumns("user_images", "user_image")]),
);

/**
 * Users whose first name, last name or "first last" contains `query`, case-insensitively, at most
 * 20, ordered by last name, first name, id. null for a blank query (the caller's "please enter a
 * name" case). The caller is not left out: finding oneself is how one learns that a request to
 * oneself is refused. Users who blocked `viewerId` are left out.
 */
export async function searchUsers(query: string | null | undefined, viewerId = 0): Promise<SearchHit[] | null> {
  const q = normalizeSearchQuery(query);
  if (!q) return null;
  if (q.length > LONGEST_MATCHABLE) return [];
  // users who blocked the viewer are not found (docs/spec.md §7)
  const rows = await matching.all({ pattern: likeSubstring(q), viewer: viewerId });
  return rows.map((row) => ({
    id: Number(row.id),
    first_name: (row.first_name as string | null) ?? null,
    last_name: (row.last_name as string | null) ?? null,
    photo: photoFromRow(row, "user_image"),
  }));
}
