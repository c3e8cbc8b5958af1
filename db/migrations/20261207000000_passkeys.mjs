// @ts-check
// Passkeys (docs/decisions/0055-passkeys.md): an account's WebAuthn credentials, and the challenges
// the server handed out for them. Knex schema builder only (SQLite and PostgreSQL).

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("passkeys", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    // the credential's id as the browser sends it (base64url); a passkey belongs to one account
    t.string("credential_id", 1400).notNullable().unique();
    // the COSE public key (base64url): what verifies each sign-in; never shown or exported
    t.text("public_key").notNullable();
    // the signature counter (an unsigned 32-bit number): a double holds every value exactly and
    // reads back as a number on both engines (PostgreSQL's bigint would read back as text)
    t.double("counter").notNullable().defaultTo(0);
    // comma-separated transports the authenticator named (internal, hybrid, usb, …) or ""
    t.string("transports", 200).notNullable().defaultTo("");
    t.string("name", 64).notNullable();
    t.string("created_at", 24).notNullable();
    t.string("last_used_at", 24).nullable();
    t.index(["user_id"]);
  });
  // One challenge per ceremony, used once. `id` is the sha256 of a random handle: for registration
  // the session's row id (the session that asked), for sign-in the handle in a signed cookie.
  await knex.schema.createTable("webauthn_challenges", (t) => {
    t.string("id", 64).primary();
    t.string("purpose", 16).notNullable();
    t.integer("user_id").nullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("challenge", 128).notNullable();
    t.string("expires_at", 24).notNullable();
    t.index(["expires_at"]);
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("webauthn_challenges");
  await knex.schema.dropTableIfExists("passkeys");
}
