import { query } from "~/lib/query.server";

// One row of the viewer's relations as they stand: friendships (accepted or not, circles: a
// circle change stamps updated_at), co-parent roles and blocks, either side. Part of every
// conditional page's ETag (app/web/conditional.server.ts), so an unfriend, a circle or audience
// change, a co-parent role or a block gives the page a new tag even where the rows on it stay.
const STAMP_COLUMNS = [
  "friendships",
  "friendships_at",
  "co_parents",
  "co_parents_max",
  "blocks",
  "blocks_max",
] as const;

/** Counts, and the newest id or updated_at (null when there is none). */
const accessStampQuery = query<{ viewer: number }, Record<(typeof STAMP_COLUMNS)[number], number | string | null>>(
  (p, k) =>
    k
      .queryBuilder()
      .select(
        k.raw(
          "(select count(*) from friendships where friendships.user_low = ? or friendships.user_high = ?) as friendships",
          [p("viewer"), p("viewer")],
        ),
        k.raw(
          "(select max(friendships.updated_at) from friendships where friendships.user_low = ? or friendships.user_high = ?) as friendships_at",
          [p("viewer"), p("viewer")],
        ),
        k.raw(
          "(select count(*) from co_parents where co_parents.user_id = ? and co_parents.status = 'accepted') as co_parents",
          [p("viewer")],
        ),
        k.raw("(select max(co_parents.id) from co_parents where co_parents.user_id = ?) as co_parents_max", [
          p("viewer"),
        ]),
        k.raw("(select count(*) from blocks where blocks.blocker_id = ? or blocks.blocked_id = ?) as blocks", [
          p("viewer"),
          p("viewer"),
        ]),
        k.raw(
          "(select max(blocks.id) from blocks where blocks.blocker_id = ? or blocks.blocked_id = ?) as blocks_max",
          [p("viewer"), p("viewer")],
        ),
      ),
);

/** `viewerId`'s access state as one comparable list (one indexed query): changes whenever a relation of theirs does. */
export async function accessStamp(viewerId: number): Promise<string[]> {
  const row = await accessStampQuery.first({ viewer: viewerId });
  return STAMP_COLUMNS.map((c) => String(row?.[c] ?? ""));
}
