// @ts-check
// Mail queue, invitations and sign-in links (docs/decisions/0025-mail-queue.md,
// docs/decisions/0026-invitations-and-sign-in-links.md). Knex schema builder only (SQLite and
// PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  // Messages to send. A sender claims one row at a time with a compare-and-set UPDATE (status
  // queued → sending, a fresh claim token, a lease); a claim whose lease ran out (the sender died)
  // is claimed again. Rows are kept after sending (status sent) and never deleted by the sender.
  await knex.schema.createTable("mail_messages", (t) => {
    t.increments("id").primary();
    // the Message-ID header, fixed at enqueue: every attempt of one row sends the same one, so a
    // repeat after a crash between "accepted by the server" and "marked sent" is recognisable
    t.string("message_id", 190).notNullable().unique();
    t.string("kind", 20).notNullable();
    t.string("to_address", 254).notNullable();
    t.string("subject", 250).notNullable();
    t.text("text_body").notNullable();
    t.text("html_body").nullable();
    t.text("headers_json").nullable(); // extra headers, a JSON object
    t.text("attachments_json").nullable(); // inline attachments: [{cid, filename, contentType, base64}]
    t.string("status", 8).notNullable().defaultTo("queued").checkIn(["queued", "sending", "sent"]);
    t.integer("attempts").notNullable().defaultTo(0);
    t.string("next_attempt_at", 24).notNullable();
    t.string("claim_token", 64).nullable();
    t.string("claimed_until", 24).nullable();
    t.text("last_error").nullable();
    t.string("created_at", 24).notNullable();
    t.string("sent_at", 24).nullable();
    t.index(["status", "next_attempt_at"], "mail_messages_due");
  });

  // Invitation links. Only the sha256 of the token is stored; the link is shown once.
  await knex.schema.createTable("invitations", (t) => {
    t.increments("id").primary();
    t.integer("inviter_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("token_hash", 64).notNullable().unique();
    t.string("note", 500).nullable();
    t.string("email", 254).nullable();
    t.string("created_at", 24).notNullable();
    t.string("expires_at", 24).notNullable();
    t.string("accepted_at", 24).nullable();
    t.integer("accepted_by").nullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("revoked_at", 24).nullable();
    t.index(["inviter_id", "created_at"]);
    t.index(["accepted_by"]);
  });

  // Single-use sign-in links: emailed (15 minutes) or made by a parent for a friend they invited.
  await knex.schema.createTable("sign_in_links", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("token_hash", 64).notNullable().unique();
    t.string("purpose", 8).notNullable().checkIn(["sign-in", "reset", "friend"]);
    t.integer("created_by").nullable().references("id").inTable("users").onDelete("CASCADE");
    // an invitation answered with the address of an existing account: using the link accepts it
    t.integer("invitation_id").nullable().references("id").inTable("invitations").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.string("expires_at", 24).notNullable();
    t.string("used_at", 24).nullable();
    t.index(["user_id"]);
    t.index(["created_by"]);
  });

  // In-app notifications (docs/decisions/0027-*): one row per event and recipient; `moment_id` ties
  // likes, comments and replies to their moment (the list asks the access module whether the reader
  // may still see it, and a deleted moment takes its notifications along).
  await knex.schema.createTable("notifications", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("kind", 20)
      .notNullable()
      .checkIn(["friend-request", "friend-accepted", "invite-accepted", "like", "comment", "reply"]);
    t.integer("actor_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("moment_id").nullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.string("read_at", 24).nullable();
    t.index(["user_id", "read_at"]);
    t.index(["user_id", "id"]);
    t.index(["moment_id"]);
    t.index(["actor_id"]);
  });

  // Email digests (docs/decisions/0027-*): one row per user who chose one (no row: none). The
  // scheduler claims a due digest by moving next_digest_at on with a compare-and-set UPDATE;
  // last_digest_at is where the next digest's news start, moved only when a digest was queued.
  await knex.schema.createTable("email_preferences", (t) => {
    t.integer("user_id").primary().references("id").inTable("users").onDelete("CASCADE");
    t.string("digest", 8).notNullable().checkIn(["none", "daily", "weekly"]);
    t.integer("hour").notNullable().defaultTo(8);
    t.string("next_digest_at", 24).nullable();
    t.string("last_digest_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.index(["digest", "next_digest_at"]);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  for (const table of ["email_preferences", "notifications", "sign_in_links", "invitations", "mail_messages"])
    await knex.schema.dropTableIfExists(table);
}
