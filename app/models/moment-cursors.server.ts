import type { Knex } from "knex";
import type { ParamFn } from "~/lib/query.server";
import type { Moment } from "./moments.server";

// The cursors of moment lists (docs/decisions/0006-cursor-paging-of-moments.md,
// docs/decisions/0028-moment-dates-and-feed.md): the order, the cursor's text, the SQL condition.

/** Where a page of moments stops: the last one shown (newest date first, then creation, then id). */
export type Cursor = { takenOn: string; createdAt: string; id: number };
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Opaque to clients: base64url of "<taken_on>_<created_at>_<id>" (docs/decisions/0028-moment-dates-and-feed.md). */
export function encodeCursor(moment: Pick<Moment, "taken_on" | "created_at" | "id">): string {
  return Buffer.from(`${moment.taken_on}_${moment.created_at}_${moment.id}`, "utf8").toString("base64url");
}

/** The cursor, or null when it is not one of ours. */
export function decodeCursor(value: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(value)) return null;
  const text = Buffer.from(value, "base64url").toString("utf8");
  const m = /^([^_]+)_([^_]+)_([1-9][0-9]{0,15})$/.exec(text);
  if (!m || !ISO_DATE.test(m[1]!) || !ISO_INSTANT.test(m[2]!)) return null;
  const id = Number(m[3]);
  return Number.isSafeInteger(id) ? { takenOn: m[1]!, createdAt: m[2]!, id } : null;
}

/** Newest first: the moment's date, then creation, then id (the cursor indexes' order). */
export const MOMENT_ORDER = [
  { column: "daily_logs.taken_on", order: "desc" as const },
  { column: "daily_logs.created_at", order: "desc" as const },
  { column: "daily_logs.id", order: "desc" as const },
];

/** Moments older than a cursor in MOMENT_ORDER: a row-value comparison, one range of the index. */
export function olderThanCursor<P>(q: Knex.QueryBuilder, p: ParamFn<P & CursorParams>): Knex.QueryBuilder {
  return q.whereRaw("(daily_logs.taken_on, daily_logs.created_at, daily_logs.id) < (?, ?, ?)", [
    p("takenOn"),
    p("createdAt"),
    p("id"),
  ]);
}

export type CursorParams = { takenOn: string; createdAt: string; id: number };
