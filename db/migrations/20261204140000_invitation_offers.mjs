// @ts-check
// An invitation answered with the address of an existing account makes no friendship by itself
// (docs/decisions/0040-invitation-answers-and-blocks.md): it is offered to that account, which
// accepts or declines it signed in. `offered_to`: the account it waits for (its deletion leaves
// the invitation used, offered to nobody); `declined_at`: when that account declined it. Knex
// schema builder only (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("invitations", (t) => {
    t.integer("offered_to").nullable().references("id").inTable("users").onDelete("SET NULL");
    t.string("declined_at", 24).nullable();
    t.index(["offered_to"], "invitations_offered_to");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("invitations", (t) => {
    t.dropIndex(["offered_to"], "invitations_offered_to");
  });
  await knex.schema.alterTable("invitations", (t) => {
    t.dropForeign(["offered_to"]);
  });
  await knex.schema.alterTable("invitations", (t) => {
    t.dropColumns("offered_to", "declined_at");
  });
}
