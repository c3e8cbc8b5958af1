// @ts-check
// Full-size copies of moment photos (docs/decisions/0063-full-size-originals.md): the size of the
// `original.jpg` stored under the photo's key, or null when there is none (a photo stored before
// full-size copies were kept, a kid's photo, a profile picture). Knex schema builder only (SQLite
// and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("images", (t) => {
    t.integer("original_width").nullable();
    t.integer("original_height").nullable();
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("images", (t) => {
    t.dropColumn("original_height");
    t.dropColumn("original_width");
  });
}
