// @ts-check
// What each person is told, and how (docs/decisions/0062-new-moments-and-notification-choices.md):
// - `email_preferences.moments`, `.comments`, `.replies`: per kind of news (a new moment they may
//   see, a comment on their moment, a reply where they commented) "off", "digest" (in the daily or
//   weekly digest, `digest` its frequency) or "now" (a mail right away).
// - Existing accounts: a row that chose a digest keeps it for all three kinds (an invited relative's
//   untouched weekly default becomes daily, the new default); a row that chose none (or
//   unsubscribed) gets every kind off; an account without a row (it never chose: no mail
//   at all until now) gets the new defaults: new moments and replies in a daily digest at 8,
//   comments on their moments right away. Demo accounts get no row.
// - A notification kind "moment": a new moment, to everyone who may see it.
// Knex schema builder and plain queries only (SQLite and PostgreSQL).

import { currentNotificationKinds, setNotificationKinds } from "../notification-kinds.mjs";

const DELIVERIES = ["off", "digest", "now"];

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("email_preferences", (t) => {
    for (const column of ["moments", "comments", "replies"])
      t.string(column, 6).notNullable().defaultTo("off").checkIn(DELIVERIES, `email_preferences_${column}_check`);
  });
  // a digest chosen: all three in it; none chosen (or unsubscribed): all off (the default above)
  await knex("email_preferences")
    .whereIn("digest", ["daily", "weekly"])
    .update({ moments: "digest", comments: "digest", replies: "digest" });
  await knex("email_preferences").where("digest", "none").update({ digest: "daily" });
  // the weekly digest an invited relative got on joining and never changed (saved within a minute of
  // the account, never since) was our default, not their choice: daily now, like a new relative's
  const joined = await knex("email_preferences")
    .join("invited_accounts", "invited_accounts.user_id", "email_preferences.user_id")
    .join("users", "users.id", "email_preferences.user_id")
    .where({ "email_preferences.digest": "weekly", "email_preferences.hour": 8 })
    .select("email_preferences.user_id", "email_preferences.updated_at", "users.created_at");
  const untouched = joined
    .filter((r) => Date.parse(r.updated_at) - Date.parse(r.created_at) < 60_000)
    .map((r) => r.user_id);
  if (untouched.length) await knex("email_preferences").whereIn("user_id", untouched).update({ digest: "daily" });
  // never chose: the new defaults, due at once (the scheduler finds nothing new and moves the
  // next digest to 8:00 in TIME_ZONE, which a migration does not know)
  const now = new Date().toISOString();
  await knex
    .into(
      knex.raw("?? (??, ??, ??, ??, ??, ??, ??, ??, ??)", [
        "email_preferences",
        "user_id",
        "digest",
        "hour",
        "next_digest_at",
        "last_digest_at",
        "updated_at",
        "moments",
        "comments",
        "replies",
      ]),
    )
    .insert(
      knex("users")
        .where("users.is_demo", false)
        .whereNotExists((q) =>
          q.select(knex.raw("1")).from("email_preferences as e").where("e.user_id", knex.ref("users.id")),
        )
        .select(
          "users.id",
          knex.raw("?", ["daily"]),
          knex.raw("?", [8]),
          knex.raw("?", [now]),
          knex.raw("?", [now]),
          knex.raw("?", [now]),
          knex.raw("?", ["digest"]),
          knex.raw("?", ["now"]),
          knex.raw("?", ["digest"]),
        ),
    );
  const kinds = await currentNotificationKinds(knex);
  if (!kinds.includes("moment")) await setNotificationKinds(knex, [...kinds, "moment"]);
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex("notifications").where("kind", "moment").delete();
  await setNotificationKinds(
    knex,
    (await currentNotificationKinds(knex)).filter((k) => k !== "moment"),
  );
  // a row with every kind off was "none"; the rows added for accounts that had none stay (a daily digest)
  await knex("email_preferences").where({ moments: "off", comments: "off", replies: "off" }).update({ digest: "none" });
  // PostgreSQL drops the named checks first; knex makes the SQLite table again without the columns
  if (knex.client.config.client === "pg")
    await knex.schema.alterTable("email_preferences", (t) => {
      t.dropChecks(["moments", "comments", "replies"].map((c) => `email_preferences_${c}_check`));
    });
  await knex.schema.alterTable("email_preferences", (t) => {
    for (const column of ["moments", "comments", "replies"]) t.dropColumn(column);
  });
}
