// @ts-check
// Account safety (docs/decisions/0039-account-safety.md): the undo links of email changes, and what
// decides whether a parent may still make sign-in links for a relative. Knex schema builder only
// (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  // An email change mails the old address a link that undoes it (valid 7 days). Only the token's
  // sha256 is stored, as for sign-in links.
  await knex.schema.createTable("email_changes", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("old_email", 254).notNullable();
    t.string("new_email", 254).notNullable();
    t.string("token_hash", 64).notNullable().unique();
    t.string("created_at", 24).notNullable();
    t.string("expires_at", 24).notNullable();
    t.string("used_at", 24).nullable();
    t.index(["user_id"]);
  });
  // An account made by joining through an invitation, and by whose: only that parent may make
  // sign-in links for it, and only until `links_closed_at` (a password, a proven mailbox, or the
  // relative's own choice). A table of its own: no column of users changes (on SQLite that would
  // copy the table all other tables point at).
  await knex.schema.createTable("invited_accounts", (t) => {
    t.integer("user_id").primary().references("id").inTable("users").onDelete("CASCADE");
    t.integer("inviter_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("links_closed_at", 24).nullable();
    t.index(["inviter_id"]);
  });
  // A session started by a sign-in link a parent made: the parent's id (no foreign key: sessions
  // end with either account anyway). When the relative secures the account, these sessions end.
  await knex.schema.alterTable("sessions", (t) => {
    t.integer("link_by").nullable();
  });
  // Accounts already made by an invitation: those without a password were all made by joining
  // (sign-up asks for one), and the invitation that made one is the first it answered.
  const joined = await knex("invitations")
    .join("users", "users.id", "invitations.accepted_by")
    .where("users.password_hash", "")
    .orderBy([{ column: "invitations.accepted_at" }, { column: "invitations.id" }])
    .select("invitations.accepted_by", "invitations.inviter_id");
  const usedEmailedLink = new Set(
    (await knex("sign_in_links").whereNot("purpose", "friend").whereNotNull("used_at").distinct("user_id")).map(
      (r) => r.user_id,
    ),
  );
  const now = new Date().toISOString();
  const made = new Map();
  for (const row of joined) {
    // ids are integers on both engines: used as they come
    const userId = row.accepted_by;
    // an account that has used an emailed link has proven its mailbox: no more links made for it
    if (!made.has(userId))
      made.set(userId, {
        user_id: userId,
        inviter_id: row.inviter_id,
        links_closed_at: usedEmailedLink.has(userId) ? now : null,
      });
  }
  for (const row of made.values()) await knex("invited_accounts").insert(row);
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("sessions", (t) => {
    t.dropColumn("link_by");
  });
  await knex.schema.dropTableIfExists("invited_accounts");
  await knex.schema.dropTableIfExists("email_changes");
}
