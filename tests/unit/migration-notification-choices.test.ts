// db/migrations/20261210000000_notification_choices.mjs on a database that has data
// (docs/decisions/0062-new-moments-and-notification-choices.md): migrated up to just before it, a
// database gets accounts with a daily digest, a weekly one, none, no row at all, a demo account,
// two invited relatives with the old weekly default (one changed it since), and a notification; after it, each has the per-kind choices the decision gives it, the
// notification stays, and a new moment's notification ("moment") can be written.
import { describe, expect, it } from "vitest";
import { idOf, insertRawUser, migrationDatabase } from "./support/migration-db";

const MIGRATION = "20261210000000_notification_choices.mjs";

const database = migrationDatabase("notif");

describe("the migration that adds per-kind notification choices", () => {
  it("gives existing accounts sensible choices and allows the notification of a new moment", async () => {
    const knex = database.knex();
    await database.migrateUpTo(MIGRATION);
    const at = "2025-01-02T03:04:05.000Z";
    const user = (name: string) => insertRawUser(knex, name, { createdAt: at });
    const [daily, weekly, none, never, demo, invited, chose] = [
      await user("daily"),
      await user("weekly"),
      await user("none"),
      await user("never"),
      await user("demo"),
      await user("invited"),
      await user("chose"),
    ];
    // two invited relatives with the old default, a weekly digest at 8: one never changed it, the
    // other saved it again a day later (a choice)
    for (const [id, updated] of [
      [invited, at],
      [chose, "2025-01-03T03:04:05.000Z"],
    ] as const) {
      await knex("invited_accounts").insert({ user_id: id, inviter_id: daily, links_closed_at: null });
      await knex("email_preferences").insert({
        user_id: id,
        digest: "weekly",
        hour: 8,
        next_digest_at: at,
        last_digest_at: at,
        updated_at: updated,
      });
    }
    await knex("users").where("id", demo).update({ is_demo: true });
    for (const [id, digest, hour] of [
      [daily, "daily", 7],
      [weekly, "weekly", 18],
      [none, "none", 8],
    ] as const)
      await knex("email_preferences").insert({
        user_id: id,
        digest,
        hour,
        next_digest_at: digest === "none" ? null : at,
        last_digest_at: at,
        updated_at: at,
      });
    const kid = idOf(
      await knex("kids")
        .insert({ user_id: daily, name: "Elsa", birth_date: "2023-04-05", relationship: "Mom", created_at: at })
        .returning("id"),
    );
    const moment = idOf(
      await knex("daily_logs")
        .insert({ kid_id: kid, title: "Old", content: "Text", taken_on: "2025-01-02", created_at: at, updated_at: at })
        .returning("id"),
    );
    await knex("notifications").insert({
      user_id: daily,
      kind: "like",
      actor_id: weekly,
      moment_id: moment,
      created_at: at,
    });

    await knex.migrate.up();

    const rows = await knex("email_preferences")
      .orderBy("user_id")
      .select("user_id", "digest", "hour", "moments", "comments", "replies");
    expect(rows.map((r) => ({ ...r, user_id: Number(r.user_id), hour: Number(r.hour) }))).toEqual([
      { user_id: daily, digest: "daily", hour: 7, moments: "digest", comments: "digest", replies: "digest" },
      { user_id: weekly, digest: "weekly", hour: 18, moments: "digest", comments: "digest", replies: "digest" },
      { user_id: none, digest: "daily", hour: 8, moments: "off", comments: "off", replies: "off" },
      { user_id: never, digest: "daily", hour: 8, moments: "digest", comments: "now", replies: "digest" },
      { user_id: invited, digest: "daily", hour: 8, moments: "digest", comments: "digest", replies: "digest" },
      { user_id: chose, digest: "weekly", hour: 8, moments: "digest", comments: "digest", replies: "digest" },
    ]);
    // the new row is due at once: the scheduler finds nothing new and sets the next 8:00 itself
    expect(
      (await knex("email_preferences").where("user_id", never).first("next_digest_at")).next_digest_at,
    ).not.toBeNull();
    expect((await knex("notifications").select("kind")).map((r) => r.kind)).toEqual(["like"]);
    await knex("notifications").insert({
      user_id: weekly,
      kind: "moment",
      actor_id: daily,
      moment_id: moment,
      created_at: at,
    });
    await expect(
      knex("notifications").insert({
        user_id: weekly,
        kind: "bogus",
        actor_id: daily,
        moment_id: moment,
        created_at: at,
      }),
    ).rejects.toThrow();
    await expect(knex("email_preferences").where("user_id", daily).update({ moments: "hourly" })).rejects.toThrow();

    // and back: the kind goes with its rows, "all off" is "none" again
    await knex.migrate.down();
    expect((await knex("notifications").select("kind")).map((r) => r.kind)).toEqual(["like"]);
    expect((await knex("email_preferences").where("user_id", none).first("digest")).digest).toBe("none");
  });
});
