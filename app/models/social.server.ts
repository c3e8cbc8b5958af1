// The likes and comments of many moments at once, in a constant number of queries (two: one for
// the likes, one for the comments, whatever the number of moments). Pages call it from their loaders.
import type { Knex } from "knex";
import { db } from "~/lib/db.server";
import type { Photo } from "~/images/photo";
import type { User } from "./users.server";
import { whereVisibleTo } from "./access.server";
import { commentColumns, commentFromRow, commentsQuery } from "./comments.server";

export type { SocialRefusal } from "./likes.server";

export type CommentView = {
  id: number;
  userId: number;
  firstName: string | null;
  lastName: string | null;
  username: string;
  photo: Photo | null;
  comment: string;
  createdAt: string;
  mine: boolean;
  /** Changed after it was written (it keeps its place in the list). */
  edited: boolean;
};

export type MomentSocialData = {
  likeCount: number;
  /** Usernames of the likers, first like first. */
  likers: string[];
  likedByMe: boolean;
  /** All comments of the moment, even when `comments` holds only the newest few. */
  commentCount: number;
  /** Newest first. */
  comments: CommentView[];
};

export const emptySocial = (): MomentSocialData => ({ likeCount: 0, likers: [], likedByMe: false, commentCount: 0, comments: [] });

export type LoadSocialOptions = {
  /**
   * At most this many (the newest) comments per moment, for list pages; `commentCount` still
   * counts them all and the block links to the moment's page for the rest. Default: all.
   */
  commentsPerMoment?: number;
};

/** Rows of `likes`/`comments` (joined to their moment as `daily_logs`) that `viewerId` may see. */
function visibleTo(qb: Knex.QueryBuilder, logColumn: string, viewerId: number): Knex.QueryBuilder {
  return whereVisibleTo(
    qb.join("daily_logs", "daily_logs.id", logColumn).join("kids", "kids.id", "daily_logs.kid_id"),
    "kids.user_id",
    viewerId,
  );
}

/**
 * Likes and comments for `logIds` as `viewer` sees them. Callers have already checked access to
 * the moments; the queries apply the same rule again, so a moment the viewer may not see comes back
 * empty. Two queries for any number of moments (none for none).
 */
export async function loadSocial(
  viewer: Pick<User, "id">,
  logIds: number[],
  opts: LoadSocialOptions = {},
): Promise<Record<number, MomentSocialData>> {
  const ids = [...new Set(logIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
  const out: Record<number, MomentSocialData> = {};
  for (const id of logIds) out[id] = emptySocial();
  if (!ids.length) return out;

  const likeRows: { daily_log_id: number; user_id: number; username: string }[] = await visibleTo(
    db()("likes").join("users", "users.id", "likes.user_id").whereIn("likes.daily_log_id", ids),
    "likes.daily_log_id",
    viewer.id,
  )
    .orderBy("likes.id", "asc")
    .select("likes.daily_log_id", "likes.user_id", "users.username");

  for (const row of likeRows) {
    const s = out[Number(row.daily_log_id)];
    if (!s) continue;
    s.likeCount += 1;
    s.likers.push(String(row.username));
    if (Number(row.user_id) === viewer.id) s.likedByMe = true;
  }

  const base = visibleTo(commentsQuery().whereIn("comments.daily_log_id", ids), "comments.daily_log_id", viewer.id);
  const cap = opts.commentsPerMoment;
  let commentRows: Record<string, unknown>[];
  if (cap !== undefined && Number.isSafeInteger(cap) && cap >= 0) {
    // window functions (SQLite ≥ 3.25, PostgreSQL): the newest `cap` per moment, and the total
    const inner = base.select([
      ...commentColumns,
      db().raw(
        "row_number() over (partition by comments.daily_log_id order by comments.created_at desc, comments.id desc) as social_rn",
      ),
      db().raw("count(*) over (partition by comments.daily_log_id) as social_total"),
    ]);
    commentRows = await db()
      .from(inner.as("c"))
      .where("c.social_rn", "<=", Math.max(cap, 1))
      .orderBy([
        { column: "c.created_at", order: "desc" },
        { column: "c.id", order: "desc" },
      ])
      .select("*");
    for (const row of commentRows) {
      const s = out[Number(row.daily_log_id)];
      if (s) s.commentCount = Number(row.social_total);
    }
    if (cap === 0) commentRows = [];
  } else {
    commentRows = await base
      .orderBy([
        { column: "comments.created_at", order: "desc" },
        { column: "comments.id", order: "desc" },
      ])
      .select(commentColumns);
    for (const row of commentRows) {
      const s = out[Number(row.daily_log_id)];
      if (s) s.commentCount += 1;
    }
  }

  for (const row of commentRows) {
    const s = out[Number(row.daily_log_id)];
    if (!s) continue;
    const c = commentFromRow(row);
    s.comments.push({
      id: c.id,
      userId: c.user_id,
      firstName: c.user.first_name,
      lastName: c.user.last_name,
      username: c.user.username,
      // a 40-pixel avatar needs no blurred placeholder: keep the page's inlined data small
      photo: c.user.photo ? { ...c.user.photo, placeholder: "" } : null,
      comment: c.comment,
      createdAt: c.created_at,
      mine: c.user_id === viewer.id,
      edited: c.updated_at !== c.created_at,
    });
  }
  return out;
}
