import type { Knex } from "knex";
import { limitParam, NO_LIMIT, query, type ParamFn } from "~/lib/query.server";
import { whereMomentVisibleTo } from "./access.server";
import { viewKid, type Kid } from "./kids.server";
import { MOMENT_ORDER, olderThanCursor, type Cursor, type CursorParams } from "./moment-cursors.server";
import {
  momentColumns,
  momentFromRow,
  momentsQuery,
  pageOf,
  withAllPhotos,
  type Moment,
  type MomentColumns,
} from "./moments.server";
import type { Result } from "./refusal";

// A kid's story (docs/decisions/0028-*): the milestones in date order and the timeline by age and
// month. Each answer asks the kid's guard first (viewKid), then filters the moments again with the
// access module's whereMomentVisibleTo (so a per-moment rule applies here too).

/** A kid's moments (joined to the kid, as whereMomentVisibleTo needs) as `viewer` may see them. */
function kidMoments(k: Knex, kidId: string, viewer: string): Knex.QueryBuilder {
  return whereMomentVisibleTo(
    momentsQuery(k).join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.kid_id", kidId),
    viewer,
  );
}

const OLDEST_FIRST = MOMENT_ORDER.map((o) => ({ ...o, order: "asc" as const }));

const milestonesOf = query<{ kidId: number; viewer: number }, MomentColumns>((p, k) =>
  kidMoments(k, p("kidId"), p("viewer"))
    .whereNotNull("daily_logs.milestone")
    .orderBy(OLDEST_FIRST)
    .select(momentColumns),
);

/** A kid's milestones, oldest first (the order of a life), as `viewerId` may see them. */
export async function listMilestones(
  viewerId: number,
  kidId: number,
): Promise<Result<{ kid: Kid; isOwner: boolean; isParent: boolean; moments: Moment[] }>> {
  const view = await viewKid(viewerId, kidId);
  if (!view.ok) return view;
  const rows = await milestonesOf.all({ kidId, viewer: viewerId });
  return {
    ok: true,
    kid: view.kid,
    isOwner: view.isOwner,
    isParent: view.isParent,
    moments: await withAllPhotos(rows.map(momentFromRow)),
  };
}

const monthsOf = query<{ kidId: number; viewer: number }, { month: string; n: number }>((p, k) =>
  kidMoments(k, p("kidId"), p("viewer"))
    .select(k.raw("substr(daily_logs.taken_on, 1, 7) as month"))
    .count({ n: "*" })
    .groupByRaw("substr(daily_logs.taken_on, 1, 7)")
    .orderBy("month", "asc"),
);

/** The calendar months ("YYYY-MM") that have moments `viewerId` may see, oldest first, with how many. */
export async function timelineMonths(
  viewerId: number,
  kidId: number,
): Promise<Result<{ kid: Kid; isOwner: boolean; isParent: boolean; months: { month: string; count: number }[] }>> {
  const view = await viewKid(viewerId, kidId);
  if (!view.ok) return view;
  const rows = await monthsOf.all({ kidId, viewer: viewerId });
  return {
    ok: true,
    kid: view.kid,
    isOwner: view.isOwner,
    isParent: view.isParent,
    months: rows.map((r) => ({ month: r.month, count: r.n })),
  };
}

type PeriodParams = { kidId: number; viewer: number; from: string; to: string; limit: number } & CursorParams;

function periodSql(p: ParamFn<PeriodParams>, k: Knex, afterCursor: boolean) {
  const q = kidMoments(k, p("kidId"), p("viewer"))
    .where("daily_logs.taken_on", ">=", p("from"))
    .where("daily_logs.taken_on", "<", p("to"))
    .orderBy(MOMENT_ORDER)
    .select(momentColumns);
  if (afterCursor) olderThanCursor(q, p);
  return limitParam(k, q, p("limit"));
}
const periodFirst = query<Omit<PeriodParams, keyof CursorParams>, MomentColumns>((p, k) =>
  periodSql(p as ParamFn<PeriodParams>, k, false),
);
const periodAfter = query<PeriodParams, MomentColumns>((p, k) => periodSql(p, k, true));

/**
 * One page of a kid's moments dated in [from, to) ("YYYY-MM-DD"), newest first with the kid
 * pages' cursor. The kid's guard runs in the caller (timelineMonths answers the kid).
 */
export async function momentsInPeriod(
  viewerId: number,
  kidId: number,
  period: { from: string; to: string },
  opts: { limit?: number; before?: Cursor | null } = {},
): Promise<{ moments: Moment[]; next: string | null }> {
  const limit = opts.limit ? opts.limit + 1 : NO_LIMIT;
  const base = { kidId, viewer: viewerId, ...period, limit };
  const rows = opts.before ? await periodAfter.all({ ...base, ...opts.before }) : await periodFirst.all(base);
  const page = pageOf(rows, opts.limit);
  await withAllPhotos(page.moments);
  return page;
}
