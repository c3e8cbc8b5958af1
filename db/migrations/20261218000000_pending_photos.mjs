// @ts-check
// Photos chosen in a moment's form that wait for their alt texts
// (docs/decisions/0067-one-photo-control.md). Knex schema builder only (SQLite and PostgreSQL).
// - pending_photos: an images row (kind "log", stored and processed like any moment photo) that no
//   moment lists yet, the parent who sent it (only they may see it or put it in a moment), the kid
//   it was sent for, and the day its EXIF says it was taken (the moment's date when it comes
//   first). A moment's add or update takes its rows (and deletes them) in the same transaction
//   that lists the photos; rows older than a day are swept with their images.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("pending_photos", (t) => {
    t.integer("image_id").primary().references("id").inTable("images").onDelete("CASCADE");
    t.integer("uploader_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.string("taken_on", 10).nullable();
    t.string("created_at", 24).notNullable();
    t.index(["uploader_id", "kid_id"], "pending_photos_uploader_kid");
    t.index(["created_at"], "pending_photos_created_at");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("pending_photos");
}
