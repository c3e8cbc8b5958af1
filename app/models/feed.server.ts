import type { Knex } from "knex";
import type { FeedVisitRow, KidRow, MomentRow } from "~/lib/tables";
import { nowIso, writeTransaction } from "~/lib/db.server";
import { inList, limitParam, query, type ParamFn } from "~/lib/query.server";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import { visibleKidIds, whereMomentVisibleTo } from "./access.server";
import { MOMENT_ORDER, olderThanCursor, type Cursor, type CursorParams } from "./moment-cursors.server";
import {
  momentColumns,
  momentFromRow,
  momentsQuery,
  withAllPhotos,
  pageOf,
  type Moment,
  type MomentColumns,
} from "./moments.server";

// The home feed (docs/spec.md "Feed", docs/decisions/0028-moment-dates-and-feed.md):
// every moment the viewer may see, of their own kids and of every kid visible to them across
// families, newest first in the kid pages' order (taken_on, created_at, id) with the same cursor.
// Who may see a moment is the access module's `whereMomentVisibleTo`, never a condition of ours.
// A page is one query whatever the number of families; "on this day" is one more, the last visit
// one read and one write.

export type FeedKid = { id: number; name: string; birth_date: string; user_id: number; photo: Photo | null };
export type FeedMoment = Moment & { kid: FeedKid };
export type FeedPage = { moments: FeedMoment[]; next: string | null };

const feedColumns = [
  ...momentColumns,
  "kids.name as kid_name",
  "kids.birth_date as kid_birth_date",
  "kids.user_id as kid_user_id",
  ...photoColumns("kid_images", "kid_image"),
];

/**
 * Rows of `daily_logs` joined with their kid, filtered by the access rule for `viewer`. The extra
 * `kid_id in (the visible kids)` changes nothing in what is seen (a visible moment's kid is visible)
 * but makes the plan start from the viewer's few kids and read each one's range of the kid index,
 * with or without table statistics, instead of scanning every moment
 * (docs/decisions/0028-moment-dates-and-feed.md).
 */
function visibleMomentRows(
  k: Knex,
  viewer: string,
  narrow?: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Knex.QueryBuilder {
  const q = k("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .whereIn("daily_logs.kid_id", visibleKidIds(k, viewer));
  // cheap conditions on the moment's own columns (`narrow`) come before the audience rule, so the
  // rule's subqueries run only for the rows they leave
  return whereMomentVisibleTo(narrow ? narrow(q) : q, viewer);
}

/** The full rows (moment, photo, kid, kid's picture) of the moments whose ids `ids` selects, newest first. */
function feedRowsOf(k: Knex, ids: Knex.QueryBuilder | Knex.Raw): Knex.QueryBuilder {
  return momentsQuery(k)
    .join("kids", "kids.id", "daily_logs.kid_id")
    .leftJoin("images as kid_images", "kid_images.id", "kids.image_id")
    .whereIn("daily_logs.id", ids as Knex.QueryBuilder) // a raw subquery (limitParam) is one too
    .orderBy(MOMENT_ORDER)
    .select(feedColumns);
}

/** The row `feedColumns` select. */
type FeedColumns = MomentColumns & {
  kid_name: KidRow["name"];
  kid_birth_date: KidRow["birth_date"];
  kid_user_id: KidRow["user_id"];
} & PhotoColumns<"kid_image">;

function feedMomentFromRow(row: FeedColumns): FeedMoment {
  return {
    ...momentFromRow(row),
    kid: {
      id: row.kid_id,
      name: row.kid_name,
      birth_date: row.kid_birth_date,
      user_id: row.kid_user_id,
      photo: photoFromRow(row, "kid_image"),
    },
  };
}

type FeedParams = { viewer: number; limit: number } & CursorParams;

// The page is chosen on the narrow index columns first (sorting thousands of ids is cheap, sorting
// thousands of full rows with their photos is not), then only its rows are read in full.
function feedSql(p: ParamFn<FeedParams>, k: Knex, afterCursor: boolean) {
  const ids = visibleMomentRows(k, p("viewer")).orderBy(MOMENT_ORDER).select("daily_logs.id");
  if (afterCursor) olderThanCursor(ids, p);
  return feedRowsOf(k, limitParam(k, ids, p("limit")));
}
const feedFirst = query<{ viewer: number; limit: number }, FeedColumns>((p, k) =>
  feedSql(p as ParamFn<FeedParams>, k, false),
);
const feedAfter = query<FeedParams, FeedColumns>((p, k) => feedSql(p, k, true));

/** One page of `viewerId`'s feed (at most `limit` moments older than `before`), one query. */
export async function listFeed(viewerId: number, opts: { limit: number; before?: Cursor | null }): Promise<FeedPage> {
  const limit = opts.limit + 1;
  const rows = opts.before
    ? await feedAfter.all({ viewer: viewerId, limit, ...opts.before })
    : await feedFirst.all({ viewer: viewerId, limit });
  const { next } = pageOf(rows, opts.limit);
  return { moments: await withAllPhotos(rows.slice(0, opts.limit).map(feedMomentFromRow)), next };
}

// ---- the newest moment of each of some kids ----

export type KidLatest = Pick<MomentRow, "id" | "kid_id" | "title" | "taken_on">;

const latestOfKids = query<{ viewer: number; kidIds: number[] }, KidLatest>((p, k) => {
  const order = MOMENT_ORDER.map((o) => `${o.column} ${o.order}`).join(", ");
  const ranked = visibleMomentRows(k, p("viewer"), (q) => inList(q, "daily_logs.kid_id", p("kidIds"))).select(
    "daily_logs.id",
    "daily_logs.kid_id",
    "daily_logs.title",
    "daily_logs.taken_on",
    k.raw(`row_number() over (partition by daily_logs.kid_id order by ${order}) as rank_in_kid`),
  );
  return k
    .from(ranked.as("ranked"))
    .where("ranked.rank_in_kid", 1)
    .select("ranked.id", "ranked.kid_id", "ranked.title", "ranked.taken_on");
});

/**
 * The newest moment `viewerId` may see of each of `kidIds` (My Kids' cards of a relative's
 * grandchildren), by kid id; a kid with none visible is absent. One query.
 */
export async function latestMomentOfEach(viewerId: number, kidIds: number[]): Promise<Map<number, KidLatest>> {
  if (!kidIds.length) return new Map();
  const rows = await latestOfKids.all({ viewer: viewerId, kidIds: [...new Set(kidIds)] });
  return new Map(rows.map((r) => [r.kid_id, r]));
}

// ---- on this day ----

const ON_THIS_DAY_MAX = 10;

const onThisDayQuery = query<{ viewer: number; monthDay: string; today: string; limit: number }, FeedColumns>(
  (p, k) => {
    // "MM-DD" of the moment's date: substr works alike on SQLite and PostgreSQL
    const ids = visibleMomentRows(k, p("viewer"), (q) =>
      q
        .whereRaw("substr(daily_logs.taken_on, 6, 5) = ?", [p("monthDay")])
        .where("daily_logs.taken_on", "<", p("today")),
    )
      .orderBy(MOMENT_ORDER)
      .select("daily_logs.id");
    return feedRowsOf(k, limitParam(k, ids, p("limit")));
  },
);

/** The feed's queries, for the query-plan test (app/models/moments.server.sqlite.test.ts). */
export const feedQueries = { first: feedFirst, after: feedAfter, onThisDay: onThisDayQuery };

/**
 * `viewerId`'s visible moments from the same calendar day as `today` ("YYYY-MM-DD") in earlier
 * years, newest first, with how many years ago. One query. 29 February shows only on 29 February.
 */
export async function onThisDay(viewerId: number, today: string): Promise<(FeedMoment & { yearsAgo: number })[]> {
  const rows = await onThisDayQuery.all({
    viewer: viewerId,
    monthDay: today.slice(5, 10),
    today,
    limit: ON_THIS_DAY_MAX,
  });
  const moments = await withAllPhotos(rows.map(feedMomentFromRow));
  return moments.map((moment) => ({
    ...moment,
    yearsAgo: Number(today.slice(0, 4)) - Number(moment.taken_on.slice(0, 4)),
  }));
}

// ---- the last visit ----

/**
 * Opening the feed again within this time (a like, a comment, the next page) is the same visit:
 * what counts as new does not move.
 */
export const VISIT_GAP_MS = 30 * 60 * 1000;
const REWRITE_AFTER_MS = 60 * 1000;

const lastVisit = query<{ userId: number }, Pick<FeedVisitRow, "seen_at" | "since">>((p, k) =>
  k("feed_visits").where("feed_visits.user_id", p("userId")).first("feed_visits.seen_at", "feed_visits.since"),
);

/**
 * Records that `userId` opens the feed at `now`; answers the instant "New since your last visit"
 * counts from (null on a first visit: nothing is marked). One read, and a write unless the last
 * one was less than a minute ago, or `record` is false (a visit another site sent: only read).
 */
export async function recordFeedVisit(userId: number, now = nowIso(), { record = true } = {}): Promise<string | null> {
  const row = await lastVisit.first({ userId });
  const sameVisit = row && Date.parse(now) - Date.parse(row.seen_at) < VISIT_GAP_MS;
  const since = !row ? null : sameVisit ? row.since : row.seen_at;
  // a reload within a minute changes nothing worth a write (one writer: keep the feed a read)
  if (!record || (row && sameVisit && Date.parse(now) - Date.parse(row.seen_at) < REWRITE_AFTER_MS)) return since;
  await writeTransaction((trx) =>
    trx("feed_visits")
      .insert({ user_id: userId, seen_at: now, since })
      .onConflict("user_id")
      .merge(["seen_at", "since"]),
  );
  return since;
}
