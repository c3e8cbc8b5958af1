// The backfills of existing moments: a database of its own, migrated up to just before
// db/migrations/20261129000000_moment_story.mjs, gets an old moment, then migrates to the latest.
// The old moment must get taken_on = its creation date (UTC, docs/decisions/0028), audience
// "everyone" and posted_by = the kid's owner (db/migrations/20261130000000_circles.mjs).
import { describe, expect, it } from "vitest";
import { idOf, insertRawUser, migrationDatabase } from "./support/migration-db";

const FIRST_BACKFILL = "20261129000000_moment_story.mjs";

const database = migrationDatabase("mig");
const nextMigration = database.nextMigration;

describe("migrating a database that already has moments", () => {
  it("gives an old moment taken_on = its creation date, audience everyone and posted_by = the kid's owner", async () => {
    const knex = database.knex();
    await database.migrateUpTo(FIRST_BACKFILL);
    const joinedAt = "2025-01-02T03:04:05.000Z";
    const ownerId = await insertRawUser(knex, "owner", { createdAt: joinedAt });
    await insertRawUser(knex, "someone", { createdAt: joinedAt }); // a second user: posted_by must be the owner, not any user
    const kidId = idOf(
      await knex("kids")
        .insert({
          user_id: ownerId,
          name: "Elsa",
          birth_date: "2023-04-05",
          relationship: "Mom",
          created_at: "2025-01-02T03:04:05.000Z",
        })
        .returning("id"),
    );
    // created late in the UTC day: taken_on is that UTC date (docs/decisions/0028-moment-dates-and-feed.md)
    const createdAt = "2025-06-30T23:30:00.000Z";
    const momentId = idOf(
      await knex("daily_logs")
        .insert({
          kid_id: kidId,
          title: "Old moment",
          content: "Before audiences.",
          created_at: createdAt,
          updated_at: createdAt,
        })
        .returning("id"),
    );

    await knex.migrate.latest();
    expect(await nextMigration()).toBeNull();
    const moment = await knex("daily_logs")
      .where("id", momentId)
      .first("taken_on", "audience", "posted_by", "milestone", "created_at");
    expect({ ...moment, posted_by: Number(moment.posted_by) }).toEqual({
      taken_on: "2025-06-30",
      audience: "everyone",
      posted_by: ownerId,
      milestone: null,
      created_at: createdAt,
    });
    const kid = await knex("kids").where("id", kidId).first("default_audience");
    expect(kid.default_audience).toBe("everyone");
  });
});

describe("migrating a database that already has relatives who joined by invitation", () => {
  // db/migrations/20261204140100_account_safety.mjs (docs/decisions/0039-account-safety.md): an
  // account without a password was made by the first invitation it answered; one that has used an
  // emailed link is closed to links made for it.
  const ACCOUNT_SAFETY = "20261204140100_account_safety.mjs";
  it("records which parent's invitation made each password-less account, closed where an emailed link was used", async () => {
    const knex = database.knex();
    await knex.migrate.latest();
    await knex.migrate.down({ name: ACCOUNT_SAFETY });
    const at = (n: number) => `2025-01-0${n}T00:00:00.000Z`;
    const user = (name: string, passwordHash: string) => insertRawUser(knex, name, { createdAt: at(1), passwordHash });
    const parent = await user("bf-parent", "x");
    const otherParent = await user("bf-parent2", "x");
    const [oma, opa, aunt, cousin] = [
      await user("bf-oma", ""),
      await user("bf-opa", ""),
      await user("bf-aunt", "x"),
      await user("bf-cousin", ""),
    ];
    let n = 0;
    const answered = async (inviter: number, by: number, day: number) => {
      n += 1;
      await knex("invitations").insert({
        inviter_id: inviter,
        token_hash: `bf${n}`.padEnd(64, "0"),
        created_at: at(day),
        expires_at: at(9),
        accepted_at: at(day),
        accepted_by: by,
      });
    };
    await answered(parent, oma, 2);
    await answered(parent, opa, 2);
    await answered(parent, aunt, 2);
    await answered(otherParent, cousin, 2); // made by the other parent's invitation…
    await answered(parent, cousin, 3); // …and accepted this one later
    await knex("sign_in_links").insert({
      user_id: opa,
      token_hash: "bf-link".padEnd(64, "0"),
      purpose: "sign-in",
      created_at: at(3),
      expires_at: at(4),
      used_at: at(3),
    });

    await knex.migrate.latest();
    const rows = await knex("invited_accounts")
      .whereIn("user_id", [oma, opa, aunt, cousin])
      .orderBy("user_id")
      .select("user_id", "inviter_id", "links_closed_at");
    expect(
      rows.map((r) => [Number(r.user_id), Number(r.inviter_id), r.links_closed_at === null ? "open" : "closed"]),
    ).toEqual([
      [oma, parent, "open"],
      [opa, parent, "closed"],
      [cousin, otherParent, "open"],
    ]);
  });
});

describe("migrating a database that already has friendships", () => {
  // db/migrations/20261205000000_friendship_pair_once.mjs: the ordered pair user_low/user_high
  // becomes generated from who asked whom; each side's circle stays with its side, and down() gives
  // back plain columns holding the same pair.
  const PAIR_ONCE = "20261205000000_friendship_pair_once.mjs";
  it("keeps each row, its ordered pair and each side's circle, and still allows one row per pair", async () => {
    const knex = database.knex();
    await knex.migrate.latest();
    await knex.migrate.down({ name: PAIR_ONCE });
    const at = "2025-01-01T00:00:00.000Z";
    const user = (name: string) => insertRawUser(knex, name, { createdAt: at });
    const [low, high] = [await user("fp-low"), await user("fp-high")];
    // asked by the higher id, the lower one files the other as Family
    await knex("friendships").insert({
      user_id: high,
      friend_id: low,
      status: "accepted",
      user_low: low,
      user_high: high,
      low_circle: "family",
      low_relationship: "cousin",
      created_at: at,
      updated_at: at,
    });
    const columns = ["user_id", "friend_id", "status", "user_low", "user_high", "low_circle", "low_relationship"];
    const expected = {
      user_id: high,
      friend_id: low,
      status: "accepted",
      user_low: low,
      user_high: high,
      low_circle: "family",
      low_relationship: "cousin",
    };
    const row = async () => {
      const r = await knex("friendships").where("user_id", high).first(columns);
      return {
        ...r,
        user_id: Number(r.user_id),
        friend_id: Number(r.friend_id),
        user_low: Number(r.user_low),
        user_high: Number(r.user_high),
      };
    };

    await knex.migrate.latest();
    expect(await row()).toEqual(expected);
    const other = { status: "pending", created_at: at, updated_at: at };
    await expect(knex("friendships").insert({ user_id: low, friend_id: high, ...other })).rejects.toThrow();
    await expect(knex("friendships").insert({ user_id: low, friend_id: low, ...other })).rejects.toThrow();

    await knex.migrate.down({ name: PAIR_ONCE });
    expect(await row()).toEqual(expected);
    await knex.migrate.latest();
    expect(await row()).toEqual(expected);
  });
});

describe("rolling back", () => {
  // Every migration's down() runs on both engines: a column's check constraint goes with the column
  // (SQLite rebuilds the table without it, PostgreSQL drops it with the column), so down() drops
  // columns and tables only. Runs after the test above, on the same migrated database.
  it("every migration rolls back to an empty schema and the whole set migrates up again", async () => {
    const knex = database.knex();
    await knex.migrate.latest();
    const total = ((await knex.migrate.list()) as [unknown[], unknown[]])[0].length;
    let rolledBack = 0;
    for (;;) {
      const [, files] = (await knex.migrate.down()) as [unknown, string[]];
      if (files.length === 0) break;
      rolledBack += files.length;
    }
    expect(rolledBack).toBe(total);
    expect(await knex.schema.hasTable("users")).toBe(false);
    await knex.migrate.latest();
    expect(await nextMigration()).toBeNull();
    expect(await knex.schema.hasColumn("invitations", "circle")).toBe(true);
  });
});
