// @ts-check
// An invitation presets how the inviter files the relative who answers it (docs/spec.md
// "Invitations"): a circle (default Friends, as for every new friendship) and an optional
// relationship label, copied onto the inviter's side of the friendship when it is accepted. Knex
// schema builder only (SQLite and PostgreSQL).

const CIRCLES = ["family", "friends"];
const RELATIONSHIPS = ["grandparent", "parents_sibling", "cousin", "friend", "caregiver", "other"];

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("invitations", (t) => {
    t.string("circle", 8).notNullable().defaultTo("friends").checkIn(CIRCLES, "invitations_circle");
    t.string("relationship", 16).nullable().checkIn(RELATIONSHIPS, "invitations_relationship");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("invitations", (t) => {
    t.dropColumns("circle", "relationship");
  });
}
