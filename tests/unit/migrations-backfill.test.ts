// The backfills of existing moments (issue #15.2, issue #17.2): a database of its own, migrated up to
// just before db/migrations/20261129000000_moment_story.mjs, gets an old moment, then migrates to
// the latest. The old moment must get taken_on = its creation date (UTC, docs/decisions/0028),
// audience "everyone" and posted_by = the kid's owner (db/migrations/20261130000000_circles.mjs).
import { describe, expect, it } from "vitest";
import { idOf, migrationDatabase } from "./support/migration-db";

const FIRST_BACKFILL = "20261129000000_moment_story.mjs";

const database = migrationDatabase("mig");
const nextMigration = database.nextMigration;

describe("migrating a database that already has moments", () => {
  it("gives an old moment taken_on = its creation date, audience everyone and posted_by = the kid's owner", async () => {
    const knex = database.knex();
    while ((await nextMigration()) !== FIRST_BACKFILL) {
      expect(await nextMigration(), `${FIRST_BACKFILL} is among the migrations`).not.toBeNull();
      await knex.migrate.up();
    }
    const person = (name: string) => ({
      username: name,
      username_normalized: name,
      email: `${name}@example.com`,
      email_normalized: `${name}@example.com`,
      password_hash: "x",
      created_at: "2025-01-02T03:04:05.000Z",
    });
    const ownerId = idOf(await knex("users").insert(person("owner")).returning("id"));
    await knex("users").insert(person("someone")); // a second user: posted_by must be the owner, not any user
    const kidId = idOf(
      await knex("kids")
        .insert({ user_id: ownerId, name: "Elsa", birth_date: "2023-04-05", relationship: "Mom", created_at: "2025-01-02T03:04:05.000Z" })
        .returning("id"),
    );
    // created late in the UTC day: taken_on is that UTC date (docs/decisions/0028-moment-dates-and-feed.md)
    const createdAt = "2025-06-30T23:30:00.000Z";
    const momentId = idOf(
      await knex("daily_logs").insert({ kid_id: kidId, title: "Old moment", content: "Before audiences.", created_at: createdAt, updated_at: createdAt }).returning("id"),
    );

    await knex.migrate.latest();
    expect(await nextMigration()).toBeNull();
    const moment = await knex("daily_logs").where("id", momentId).first("taken_on", "audience", "posted_by", "milestone", "created_at");
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
