// @ts-check
// Draft moments (docs/decisions/0065-drafts.md). Knex schema builder only (SQLite and PostgreSQL).
// - drafts: a moment not yet published, seen by its author alone: the kid it is for, its day
//   (`taken_on`), title, text, audience (null: the kid's default when published) and milestone.
//   `updated_at` moves with every change; a draft untouched for DRAFT_DAYS is swept with its photos.
// - draft_photos: its photos in order, each an images row (kind "log", owned by the author until
//   published) with its alt text and the name of the file it came from. The images row is deleted
//   with the draft by the code that deletes it (the files after the commit), never by a cascade.
// - draft_refusals: the files the author's last "Add photos" for a kid did not take, and why, as the
//   review page lists them until the next add, a dismissal or DRAFT_DAYS.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("drafts", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.string("taken_on", 10).notNullable();
    t.string("title", 50).notNullable();
    t.text("content").notNullable().defaultTo("");
    t.string("audience", 12).nullable();
    t.string("milestone", 40).nullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.index(["user_id", "kid_id", "taken_on"], "drafts_author_kid_day");
    t.index(["kid_id"], "drafts_kid");
    t.index(["updated_at"], "drafts_updated");
  });
  await knex.schema.createTable("draft_photos", (t) => {
    t.increments("id").primary();
    t.integer("draft_id").notNullable().references("id").inTable("drafts").onDelete("CASCADE");
    t.integer("image_id").notNullable().unique().references("id").inTable("images").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.string("alt", 250).notNullable().defaultTo("");
    t.string("name", 255).notNullable().defaultTo("");
    t.index(["draft_id", "position"], "draft_photos_draft_position");
  });
  await knex.schema.createTable("draft_refusals", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.string("name", 255).notNullable();
    t.string("reason", 250).notNullable();
    t.string("created_at", 24).notNullable();
    t.index(["user_id", "kid_id"], "draft_refusals_author_kid");
    t.index(["kid_id"], "draft_refusals_kid");
    t.index(["created_at"], "draft_refusals_created");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("draft_refusals");
  await knex.schema.dropTableIfExists("draft_photos");
  await knex.schema.dropTableIfExists("drafts");
}
