// db/migrations/20261204141500_co_parenting_follows_friendship.mjs on a database that has data
// (docs/decisions/0041-co-parenting-follows-the-friendship.md): migrated up to just before it, a
// database gets a co-parent who is still a friend of the kid's owner, one who was unfriended (their
// role left behind by the old Remove Friend) and a pending invitation to an unfriended user, a
// notification and a comment; after it, only the friend's role remains, and every other row stays.
import { describe, expect, it } from "vitest";
import { idOf, insertRawUser, migrationDatabase } from "./support/migration-db";

const MIGRATION = "20261204141500_co_parenting_follows_friendship.mjs";

const database = migrationDatabase("cop");

describe("the migration that makes co-parenting follow the friendship", () => {
  it("ends the co-parent roles and invitations left without a friendship, and keeps every other row", async () => {
    const knex = database.knex();
    await database.migrateUpTo(MIGRATION);
    const at = "2025-01-02T03:04:05.000Z";
    const user = (name: string) => insertRawUser(knex, name, { createdAt: at });
    const [owner, friend, former, invited] = [
      await user("owner"),
      await user("friend"),
      await user("former"),
      await user("invited"),
    ];
    // the ordered pair, sent either way
    await knex("friendships").insert({
      user_id: friend,
      friend_id: owner,
      status: "accepted",
      user_low: Math.min(owner, friend),
      user_high: Math.max(owner, friend),
      created_at: at,
      updated_at: at,
    });
    await knex("friendships").insert({
      user_id: owner,
      friend_id: invited,
      status: "pending",
      user_low: Math.min(owner, invited),
      user_high: Math.max(owner, invited),
      created_at: at,
      updated_at: at,
    });
    const kid = idOf(
      await knex("kids")
        .insert({ user_id: owner, name: "Elsa", birth_date: "2023-04-05", relationship: "Mom", created_at: at })
        .returning("id"),
    );
    for (const [who, status] of [
      [friend, "accepted"],
      [former, "accepted"],
      [invited, "pending"],
    ] as const) {
      await knex("co_parents").insert({ kid_id: kid, user_id: who, status, created_at: at });
    }
    const moment = idOf(
      await knex("daily_logs")
        .insert({ kid_id: kid, title: "Old", content: "Text", taken_on: "2025-01-02", created_at: at, updated_at: at })
        .returning("id"),
    );
    await knex("comments").insert({
      daily_log_id: moment,
      user_id: friend,
      comment: "Lovely",
      created_at: at,
      updated_at: at,
    });
    await knex("notifications").insert({
      user_id: owner,
      kind: "comment",
      actor_id: friend,
      moment_id: moment,
      created_at: at,
    });

    await knex.migrate.up();

    expect((await knex("co_parents").where("kid_id", kid).select("user_id")).map((r) => Number(r.user_id))).toEqual([
      friend,
    ]);
    expect(await knex("comments").where("daily_log_id", moment).first("comment", "hidden")).toMatchObject({
      comment: "Lovely",
    });
    expect(Boolean((await knex("comments").where("daily_log_id", moment).first("hidden")).hidden)).toBe(false);
    expect(Boolean((await knex("kids").where("id", kid).first("shown_to_friends")).shown_to_friends)).toBe(true);
    expect(await knex("notifications").where("user_id", owner).select("kind", "moment_id")).toEqual([
      { kind: "comment", moment_id: moment },
    ]);
    // the new kind is allowed now, and an unknown one still is not
    await knex("notifications").insert({ user_id: owner, kind: "kid-handed-over", actor_id: owner, created_at: at });
    await expect(
      knex("notifications").insert({ user_id: owner, kind: "nonsense", actor_id: owner, created_at: at }),
    ).rejects.toThrow();
  });
});
