// The likes and comments of many moments at once, in a constant number of queries (two: one for
// the likes, one for the comments, whatever the number of moments). Pages call it from their loaders.
import type { Knex } from "knex";
import { inList, query, type ParamFn } from "~/lib/query.server";
import type { Photo } from "~/images/photo";
import type { User } from "./users.server";
import { whereCommentShown, whereMomentVisibleTo } from "./access.server";
import { commentColumns, commentFromRow, commentsQuery, type CommentColumns } from "./comments.server";
import type { LikeRow, UserRow } from "~/lib/tables";

// What the likes/comments block renders, and nothing more: every field is sent to the browser in
// the page's loader data, so the author's id and the creation instant stay out.
export type CommentView = {
  id: number;
  firstName: string | null;
  lastName: string | null;
  username: string;
  photo: Photo | null;
  comment: string;
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

export const emptySocial = (): MomentSocialData => ({
  likeCount: 0,
  likers: [],
  likedByMe: false,
  commentCount: 0,
  comments: [],
});

export type LoadSocialOptions = {
  /**
   * At most this many (the newest) comments per moment, for list pages; `commentCount` still
   * counts them all and the block links to the moment's page for the rest. Default: all.
   */
  commentsPerMoment?: number;
};

/** Rows of `likes`/`comments` of the moments `ids` that `viewer` may see (joined to their moment and kid). */
function ofVisibleMoments(qb: Knex.QueryBuilder, momentColumn: string, p: ParamFn<SocialParams>): Knex.QueryBuilder {
  return whereMomentVisibleTo(
    inList(qb, momentColumn, p("ids"))
      .join("daily_logs", "daily_logs.id", momentColumn)
      .join("kids", "kids.id", "daily_logs.kid_id"),
    p("viewer"),
  );
}

// The two queries, written once by knex (app/lib/query.server.ts). The moment ids are ONE
// parameter, so the SQL text, and the prepared statement, are the same for any number of moments.
type SocialParams = { ids: number[]; viewer: number };

const likesOf = query<SocialParams, Pick<LikeRow, "daily_log_id" | "user_id"> & Pick<UserRow, "username">>((p, k) =>
  ofVisibleMoments(k("likes").join("users", "users.id", "likes.user_id"), "likes.daily_log_id", p)
    .orderBy("likes.id", "asc")
    .select("likes.daily_log_id", "likes.user_id", "users.username"),
);

// comments of users the kid's owner blocked stay hidden unless the owner chose otherwise
const commentsBase = (p: ParamFn<SocialParams>, k: Knex) =>
  whereCommentShown(ofVisibleMoments(commentsQuery(k), "comments.daily_log_id", p));

const newestFirst = (table: string) => [
  { column: `${table}.created_at`, order: "desc" as const },
  { column: `${table}.id`, order: "desc" as const },
];

const commentsOf = query<SocialParams, CommentColumns>((p, k) =>
  commentsBase(p, k).orderBy(newestFirst("comments")).select(commentColumns),
);

// window functions (SQLite ≥ 3.25, PostgreSQL): the newest `cap` per moment, and the total
const newestCommentsOf = query<
  SocialParams & { cap: number },
  CommentColumns & { social_rn: number; social_total: number }
>((p, k) =>
  k
    .from(
      commentsBase(p, k)
        .select([
          ...commentColumns,
          k.raw(
            "row_number() over (partition by comments.daily_log_id order by comments.created_at desc, comments.id desc) as social_rn",
          ),
          k.raw("count(*) over (partition by comments.daily_log_id) as social_total"),
        ])
        .as("c"),
    )
    .where("c.social_rn", "<=", p("cap"))
    .orderBy(newestFirst("c"))
    .select("*"),
);

/**
 * Likes and comments for `momentIds` as `viewer` sees them. Callers have already checked access to
 * the moments; the queries apply the same rule again, so a moment the viewer may not see comes back
 * empty. Two queries for any number of moments (none for none).
 */
export async function loadSocial(
  viewer: Pick<User, "id">,
  momentIds: number[],
  opts: LoadSocialOptions = {},
): Promise<Record<number, MomentSocialData>> {
  const ids = [...new Set(momentIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
  const out: Record<number, MomentSocialData> = {};
  for (const id of momentIds) out[id] = emptySocial();
  if (!ids.length) return out;
  const params: SocialParams = { ids, viewer: viewer.id };

  const likeRows = await likesOf.all(params);
  for (const row of likeRows) {
    const s = out[row.daily_log_id];
    if (!s) continue;
    s.likeCount += 1;
    s.likers.push(row.username);
    if (row.user_id === viewer.id) s.likedByMe = true;
  }

  const cap = opts.commentsPerMoment;
  let commentRows: CommentColumns[];
  if (cap !== undefined && Number.isSafeInteger(cap) && cap >= 0) {
    const newest = await newestCommentsOf.all({ ...params, cap: Math.max(cap, 1) });
    for (const row of newest) {
      const s = out[row.daily_log_id];
      if (s) s.commentCount = row.social_total;
    }
    commentRows = newest;
    if (cap === 0) commentRows = [];
  } else {
    commentRows = await commentsOf.all(params);
    for (const row of commentRows) {
      const s = out[row.daily_log_id];
      if (s) s.commentCount += 1;
    }
  }

  for (const row of commentRows) {
    const s = out[row.daily_log_id];
    if (!s) continue;
    const c = commentFromRow(row);
    s.comments.push({
      id: c.id,
      firstName: c.user.first_name,
      lastName: c.user.last_name,
      username: c.user.username,
      // a 40-pixel avatar needs no blurred placeholder: keep the page's inlined data small
      photo: c.user.photo ? { ...c.user.photo, placeholder: "" } : null,
      comment: c.comment,
      mine: c.user_id === viewer.id,
      edited: c.updated_at !== c.created_at,
    });
  }
  return out;
}
