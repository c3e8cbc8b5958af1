// @ts-check
// What the settings page shows of each session (docs/spec.md, Settings): the browser it was started
// from (the User-Agent header, cut to 255 characters), when it was last seen (written at most once
// every few minutes per session, so a request costs no write), and a public handle: the row's id is
// the hash of the cookie's token and never leaves the server; pages and the API name a session by
// its handle instead.
import crypto from "node:crypto";

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("sessions", (t) => {
    t.string("user_agent", 255).nullable();
    t.string("last_seen_at", 24).nullable();
    t.string("handle", 32).nullable();
  });
  const rows = await knex("sessions").select("id", "created_at");
  for (const row of rows) {
    await knex("sessions")
      .where("id", row.id)
      .update({ handle: crypto.randomBytes(12).toString("base64url"), last_seen_at: row.created_at });
  }
  await knex.schema.alterTable("sessions", (t) => t.unique(["handle"], { indexName: "sessions_handle" }));
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("sessions", (t) => t.dropUnique(["handle"], "sessions_handle"));
  await knex.schema.alterTable("sessions", (t) => {
    t.dropColumn("user_agent");
    t.dropColumn("last_seen_at");
    t.dropColumn("handle");
  });
}
