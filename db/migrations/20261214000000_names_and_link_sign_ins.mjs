// @ts-check
// Real names and the sign-in that stands in for a password (docs/decisions/0061-real-names-and-long-passwords.md).
// - First and last names are up to 50 characters (they were 30). PostgreSQL enforces a varchar's
//   length, so its columns widen; SQLite never enforces it, and remaking its users table (which
//   every other table references) to change a declared length would buy nothing.
// - A session remembers whether it was started by a sign-in link (`signed_in_by` = "link"): in
//   the minutes after an emailed link, the settings page and /api set a password or change the
//   email without the current one, which the person following "Forgot your password?" does not
//   know. Sessions from before say nothing (null): they were not.

/** @param {import("knex").Knex} knex */
const isPg = (knex) => knex.client.config.client === "pg";

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  if (isPg(knex))
    await knex.raw(
      "alter table users alter column first_name type varchar(50), alter column last_name type varchar(50)",
    );
  await knex.schema.alterTable("sessions", (t) => {
    t.string("signed_in_by", 16).nullable();
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("sessions", (t) => {
    t.dropColumn("signed_in_by");
  });
  // names longer than 30 characters would not fit back: they are cut
  if (isPg(knex)) {
    await knex.raw("update users set first_name = left(first_name, 30), last_name = left(last_name, 30)");
    await knex.raw(
      "alter table users alter column first_name type varchar(30), alter column last_name type varchar(30)",
    );
  }
}
