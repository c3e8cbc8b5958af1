// @ts-check
// "On this day" in the feed (app/models/feed.server.ts onThisDay) asks, for each kid the viewer may
// see, for the moments whose date has today's month and day. An index on that "MM-DD" (the very
// expression the query compares; both SQLite and PostgreSQL index an expression in parentheses),
// then the kid, answers it from the index instead of reading every moment of every visible kid: on
// the bench's data (a 5,000-moment kid and 50 friends' kids) 1.4-1.6 ms per feed view before, 0.1-0.2
// ms after, with or without table statistics. The expression comes first on purpose: an index that
// starts with kid_id was taken by SQLite for the feed's own page too (kid_id=? alone), which then
// sorted every visible moment (0.6 -> 11-16 ms). docs/decisions/0028-moment-dates-and-feed.md.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.raw("create index daily_logs_month_day_kid on daily_logs ((substr(taken_on, 6, 5)), kid_id)");
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.raw("drop index daily_logs_month_day_kid");
}
