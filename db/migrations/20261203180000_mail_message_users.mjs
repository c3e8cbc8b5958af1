// @ts-check
// Whose a queued or sent message is (docs/decisions/0025-mail-queue.md): the
// account it is addressed to, the account that sent it (an invitation) and the accounts whose
// moments or comments it carries (a digest). Deleting an account deletes every message that names
// it here, queued or sent (docs/spec.md "Delete my account"). Sent messages are purged after a
// while by the housekeeping job. Knex schema builder only (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("mail_message_users", (t) => {
    t.integer("mail_message_id").notNullable().references("id").inTable("mail_messages").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.primary(["mail_message_id", "user_id"]);
    t.index(["user_id"]);
  });
  await knex.schema.alterTable("mail_messages", (t) => {
    t.index(["status", "sent_at"], "mail_messages_sent");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("mail_messages", (t) => {
    t.dropIndex(["status", "sent_at"], "mail_messages_sent");
  });
  await knex.schema.dropTableIfExists("mail_message_users");
}
