// @ts-check
// Several photos per moment (docs/decisions/0030-several-photos-per-moment.md):
// - moment_photos: a moment's photos in order (position 0 first), each with its alt text. A row
//   goes with its moment (ON DELETE CASCADE) and with its images row (ON DELETE CASCADE); the
//   images rows themselves are deleted by the models with their files (app/images/storage.server.ts).
// - daily_logs.image_id stays: it points at the first photo (what the API's image_url and the
//   single-photo readers show), kept in step by app/models/moments.server.ts.
// - daily_logs.photo_count: how many photos the moment has, so that lists read the other photos
//   (one query per page) only when some moment on the page has more than one.
// Every existing moment photo becomes position 0 with the moment's title as its alt text.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("moment_photos", (t) => {
    t.increments("id").primary();
    t.integer("daily_log_id").notNullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.integer("image_id").notNullable().references("id").inTable("images").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.string("alt", 250).notNullable();
    t.index(["daily_log_id", "position"], "moment_photos_moment_position");
    t.index(["image_id"], "moment_photos_image_id");
  });
  await knex.schema.alterTable("daily_logs", (t) => {
    t.integer("photo_count").notNullable().defaultTo(0);
  });
  await knex.raw("insert into ?? (??, ??, ??, ??) select ??, ??, 0, ?? from ?? where ?? is not null", [
    "moment_photos",
    "daily_log_id",
    "image_id",
    "position",
    "alt",
    "id",
    "image_id",
    "title",
    "daily_logs",
    "image_id",
  ]);
  await knex("daily_logs").whereNotNull("image_id").update({ photo_count: 1 });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("daily_logs", (t) => t.dropColumn("photo_count"));
  await knex.schema.dropTableIfExists("moment_photos");
}
