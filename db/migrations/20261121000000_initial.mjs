// @ts-check
// The whole schema. Written with the knex schema builder only, so it also runs on PostgreSQL.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  // Every stored photo. Files live under UPLOADS_DIR/<key>/<width>.webp; `key` is random and
  // unguessable, and a replaced photo gets a new key (so a new URL). `owner_id` is the user whose
  // privacy rule applies: kind "user" (profile picture) is visible to any signed-in user, kinds
  // "kid" and "log" to the owner and the owner's accepted friends.
  await knex.schema.createTable("images", (t) => {
    t.increments("id").primary();
    t.string("key", 64).notNullable().unique();
    t.string("kind", 8).notNullable().checkIn(["user", "kid", "log"]);
    // no foreign key here: users.image_id points at images, and a cycle would not build on PostgreSQL
    t.integer("owner_id").notNullable();
    t.integer("width").notNullable();
    t.integer("height").notNullable();
    t.string("widths", 64).notNullable(); // comma-separated derivative widths, e.g. "160,320,640,1280"
    t.text("placeholder").notNullable(); // tiny blurred image as a data: URI
    t.string("created_at", 24).notNullable();
    t.index(["owner_id"]);
  });

  await knex.schema.createTable("users", (t) => {
    t.increments("id").primary();
    t.string("username", 30).notNullable();
    t.string("username_normalized", 30).notNullable().unique();
    t.string("email", 254).notNullable();
    t.string("email_normalized", 254).notNullable().unique();
    t.string("first_name", 30).nullable();
    t.string("last_name", 30).nullable();
    t.string("password_hash", 255).notNullable();
    t.integer("image_id").nullable().references("id").inTable("images").onDelete("SET NULL");
    t.boolean("is_demo").notNullable().defaultTo(false);
    t.string("created_at", 24).notNullable();
    t.index(["first_name"]);
    t.index(["last_name"]);
  });

  await knex.schema.createTable("sessions", (t) => {
    // sha256 of the random token in the cookie: a leaked database holds no usable session.
    t.string("id", 64).primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.string("expires_at", 24).notNullable();
    t.index(["user_id"]);
    t.index(["expires_at"]);
  });

  await knex.schema.createTable("kids", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("name", 50).notNullable();
    t.string("birth_date", 10).notNullable(); // YYYY-MM-DD
    t.string("relationship", 10).notNullable().checkIn(["Mom", "Dad", "Grandpa", "Grandma", "Other"]);
    t.integer("image_id").nullable().references("id").inTable("images").onDelete("SET NULL");
    t.string("created_at", 24).notNullable();
    t.index(["user_id", "id"]);
  });

  await knex.schema.createTable("daily_logs", (t) => {
    t.increments("id").primary();
    t.integer("kid_id").notNullable().references("id").inTable("kids").onDelete("CASCADE");
    t.string("title", 50).notNullable();
    t.text("content").notNullable();
    t.integer("image_id").nullable().references("id").inTable("images").onDelete("SET NULL");
    t.string("created_at", 24).notNullable(); // ISO 8601 UTC, sorts as text
    t.string("updated_at", 24).notNullable();
    // the cursor index: a kid's moments newest first, ties broken by id
    t.index(["kid_id", "created_at", "id"], "daily_logs_kid_cursor");
  });

  await knex.schema.createTable("likes", (t) => {
    t.increments("id").primary();
    t.integer("daily_log_id").notNullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.unique(["daily_log_id", "user_id"]);
    t.index(["user_id"]);
  });

  await knex.schema.createTable("comments", (t) => {
    t.increments("id").primary();
    t.integer("daily_log_id").notNullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.text("comment").notNullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.index(["daily_log_id", "created_at", "id"], "comments_log_newest");
    t.index(["user_id"]);
  });

  await knex.schema.createTable("friendships", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE"); // sender
    t.integer("friend_id").notNullable().references("id").inTable("users").onDelete("CASCADE"); // receiver
    t.string("status", 8).notNullable().defaultTo("pending").checkIn(["pending", "accepted", "denied"]);
    // the pair, ordered: one friendship per two users in either direction, enforced by the database
    t.integer("user_low").notNullable();
    t.integer("user_high").notNullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.unique(["user_low", "user_high"]);
    t.index(["friend_id", "status"]);
    t.index(["user_id", "status"]);
    t.check("?? < ??", ["user_low", "user_high"], "friendships_no_self");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  for (const table of ["friendships", "comments", "likes", "daily_logs", "kids", "sessions", "users", "images"]) {
    await knex.schema.dropTableIfExists(table);
  }
}
