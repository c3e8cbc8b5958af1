// @ts-check
// The passkey that started a session (docs/decisions/0055-passkeys.md): removing a passkey ends the
// sessions it started, but the one removing it. Knex schema builder only (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  // no foreign key (like link_by): the sessions of a removed passkey are deleted with it, in the
  // same transaction, and every session ends with its account anyway
  await knex.schema.alterTable("sessions", (t) => {
    t.integer("passkey_id").nullable();
    t.index(["passkey_id"]);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("sessions", (t) => {
    t.dropIndex(["passkey_id"]);
    t.dropColumn("passkey_id");
  });
}
