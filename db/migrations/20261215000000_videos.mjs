// @ts-check
// Clips in moments (docs/decisions/0064-video-clips.md). Knex schema builder only (SQLite and
// PostgreSQL).
// - videos: a moment's clips in order, each with its required description, its state while it is
//   prepared in the background (processing → ready, or failed with the reason its owner is told),
//   the store keys of its uploaded source (until prepared) and of its renditions, its poster (an
//   images row of kind "poster", so it has the photo's sizes and placeholder) and its captions.
//   `claimed_until`: the lease of the process preparing it; past it, another process takes it over
//   (a crash), up to a few attempts.
// - daily_logs.video_count: how many clips a moment has, so lists read clips only when a moment on
//   the page has some (as photo_count does for photos).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("videos", (t) => {
    t.increments("id").primary();
    t.integer("daily_log_id").notNullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.string("description", 250).notNullable();
    t.string("status", 12).notNullable().defaultTo("processing");
    t.string("failure", 250).nullable();
    // the renditions' key in the store (small.mp4, large.mp4); the source's key until prepared
    t.string("key", 64).notNullable().unique();
    t.string("source_key", 64).nullable();
    t.integer("width").nullable();
    t.integer("height").nullable();
    t.integer("duration_ms").nullable();
    t.integer("small_bytes").nullable();
    t.integer("large_bytes").nullable();
    t.integer("poster_image_id").nullable().references("id").inTable("images").onDelete("SET NULL");
    // WebVTT, written from the parent's timed lines
    t.text("captions").nullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.string("claimed_until", 24).nullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.index(["daily_log_id", "position"], "videos_moment_position");
    t.index(["status", "claimed_until"], "videos_status_claimed");
    t.index(["poster_image_id"], "videos_poster_image_id");
  });
  await knex.schema.alterTable("daily_logs", (t) => {
    t.integer("video_count").notNullable().defaultTo(0);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("daily_logs", (t) => t.dropColumn("video_count"));
  await knex.schema.dropTableIfExists("videos");
}
