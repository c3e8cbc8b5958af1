// The likes and comments of many moments at once, in a constant number of queries (two: one for
// the likes, one for the comments, whatever the number of moments). Pages call it from their loaders.
import type { Knex } from "knex";
import { db } from "~/lib/db.server";
import { readQuery, type ParamFn } from "~/lib/db-read.server";
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
function visibleTo(qb: Knex.QueryBuilder, logColumn: string, viewerId: number | string): Knex.QueryBuilder {
  return whereVisibleTo(
    qb.join("daily_logs", "daily_logs.id", logColumn).join("kids", "kids.id", "daily_logs.kid_id"),
    "kids.user_id",
    viewerId,
  );
}

// The two queries, written once by knex and run as prepared statements on the read connection.
// The moment ids are ONE parameter (a JSON array read with json_each), so the SQL text, and the
// prepared statement, are the same for any number of moments.
type SocialParams = { ids: number[]; viewer: number };

/** `column in (the ids)`, for a readQuery whose `ids` parameter is the list. */
function inIds(qb: Knex.QueryBuilder, column: string, p: ParamFn<SocialParams>): Knex.QueryBuilder {
  return qb.whereRaw("?? in (select value from json_each(?))", [column, p("ids")]);
}

const likesRead = readQuery<SocialParams>((p) =>
  visibleTo(inIds(db()("likes").join("users", "users.id", "likes.user_id"), "likes.daily_log_id", p), "likes.daily_log_id", p("viewer"))
    .orderBy("likes.id", "asc")
    .select("likes.daily_log_id", "likes.user_id", "users.username"),
);

const commentsBase = (p: ParamFn<SocialParams>) =>
  visibleTo(inIds(commentsQuery(db()), "comments.daily_log_id", p), "comments.daily_log_id", p("viewer"));

const newestFirst = (table: string) => [
  { column: `${table}.created_at`, order: "desc" as const },
  { column: `${table}.id`, order: "desc" as const },
];

const commentsRead = readQuery<SocialParams>((p) => commentsBase(p).orderBy(newestFirst("comments")).select(commentColumns));

// window functions (SQLite ≥ 3.25, PostgreSQL): the newest `cap` per moment, and the total
const newestCommentsRead = readQuery<SocialParams & { cap: number }>((p) =>
  db()
    .from(
      commentsBase(p)
        .select([
          ...commentColumns,
          db().raw(
            "row_number() over (partition by comments.daily_log_id order by comments.created_at desc, comments.id desc) as social_rn",
          ),
          db().raw("count(*) over (partition by comments.daily_log_id) as social_total"),
        ])
        .as("c"),
    )
    .where("c.social_rn", "<=", p("cap"))
    .orderBy(newestFirst("c"))
    .select("*"),
);

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
  const params: SocialParams = { ids, viewer: viewer.id };

  const likeRows = await likesRead.all<{ daily_log_id: number; user_id: number; username: string }>(params);
  for (const row of likeRows) {
    const s = out[Number(row.daily_log_id)];
    if (!s) continue;
    s.likeCount += 1;
    s.likers.push(String(row.username));
    if (Number(row.user_id) === viewer.id) s.likedByMe = true;
  }

  const cap = opts.commentsPerMoment;
  let commentRows: Record<string, unknown>[];
  if (cap !== undefined && Number.isSafeInteger(cap) && cap >= 0) {
    commentRows = await newestCommentsRead.all({ ...params, cap: Math.max(cap, 1) });
    for (const row of commentRows) {
      const s = out[Number(row.daily_log_id)];
      if (s) s.commentCount = Number(row.social_total);
    }
    if (cap === 0) commentRows = [];
  } else {
    commentRows = await commentsRead.all(params);
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
