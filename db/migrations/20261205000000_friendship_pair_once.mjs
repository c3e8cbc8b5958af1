// @ts-check
// The friendship pair is stored once: user_id (who asked) and friend_id (who was asked) are the
// facts, and the ordered pair user_low/user_high becomes generated columns the database computes
// from them (least/greatest on PostgreSQL, the scalar min/max on SQLite). Before, both shapes were
// written by every insert with nothing tying them, so a row could say one pair in one shape and
// another in the other. The names, the UNIQUE (user_low, user_high) index and the
// (user_high, status) index stay, so the access module's acceptedBetween and acceptedFriendIds
// keep their index lookups and one friendship per two users in either direction stays the
// database's rule; the self-friendship check moves to the facts (user_id <> friend_id).
// Nothing may write the generated columns: an insert that tries fails on both engines.
// SQLite cannot turn a column into a generated one, so its table is made again (raw SQL: the knex
// schema builder has no generated columns) and the rows copied; PostgreSQL drops the two columns
// and adds them back generated (STORED, the only kind before PostgreSQL 18). Existing rows take
// their pair from user_id/friend_id, which every write has always set to the same pair.

const CIRCLES = ["family", "friends"];
const RELATIONSHIPS = ["grandparent", "parents_sibling", "cousin", "friend", "caregiver", "other"];
const STORED = ["id", "user_id", "friend_id", "status", "created_at", "updated_at"];
const LABELS = ["low_circle", "high_circle", "low_relationship", "high_relationship"];
const INDEXES = [
  { columns: ["friend_id", "status"], name: "friendships_friend_id_status_index" },
  { columns: ["user_id", "status"], name: "friendships_user_id_status_index" },
  { columns: ["user_high", "status"], name: "friendships_user_high_status" },
];
const UNIQUE = "friendships_user_low_user_high_unique";

/** @param {import("knex").Knex} knex */
const isPg = (knex) => knex.client.config.client === "pg";

/** @param {import("knex").Knex} knex */
async function dropIndexes(knex) {
  await knex.schema.alterTable("friendships", (t) => {
    t.dropUnique(["user_low", "user_high"], UNIQUE);
    for (const { columns, name } of INDEXES) t.dropIndex(columns, name);
  });
}

/** @param {import("knex").Knex} knex */
async function addIndexes(knex) {
  await knex.schema.alterTable("friendships", (t) => {
    t.unique(["user_low", "user_high"], { indexName: UNIQUE });
    for (const { columns, name } of INDEXES) t.index(columns, name);
  });
}

/** @param {import("knex").Knex} knex @param {string[]} columns */
async function copyRows(knex, columns) {
  await knex
    .into(knex.raw(`?? (${columns.map(() => "??").join(", ")})`, ["friendships", ...columns]))
    .insert(knex("friendships_before").select(columns));
  await knex.schema.dropTable("friendships_before");
}

const inList = (/** @type {string[]} */ values) => values.map((v) => `'${v}'`).join(",");

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  if (isPg(knex)) {
    await knex.raw("alter table friendships drop constraint friendships_no_self");
    await knex.raw("alter table friendships drop column user_low, drop column user_high");
    await knex.raw(
      `alter table friendships
         add column user_low integer generated always as (least(user_id, friend_id)) stored,
         add column user_high integer generated always as (greatest(user_id, friend_id)) stored,
         add constraint friendships_no_self check (user_id <> friend_id)`,
    );
    await knex.schema.alterTable("friendships", (t) => {
      t.unique(["user_low", "user_high"], { indexName: UNIQUE });
      t.index(["user_high", "status"], "friendships_user_high_status");
    });
    return;
  }
  // index names are global in SQLite: the old table's go first
  await dropIndexes(knex);
  await knex.schema.renameTable("friendships", "friendships_before");
  await knex.raw(
    `create table friendships (
       id integer not null primary key autoincrement,
       user_id integer not null references users(id) on delete cascade,
       friend_id integer not null references users(id) on delete cascade,
       status varchar(8) not null default 'pending' check (status in ('pending','accepted','denied')),
       user_low integer generated always as (min(user_id, friend_id)) virtual,
       user_high integer generated always as (max(user_id, friend_id)) virtual,
       created_at varchar(24) not null,
       updated_at varchar(24) not null,
       low_circle varchar(8) not null default 'friends' constraint friendships_low_circle check (low_circle in (${inList(CIRCLES)})),
       high_circle varchar(8) not null default 'friends' constraint friendships_high_circle check (high_circle in (${inList(CIRCLES)})),
       low_relationship varchar(16) null constraint friendships_low_relationship check (low_relationship in (${inList(RELATIONSHIPS)})),
       high_relationship varchar(16) null constraint friendships_high_relationship check (high_relationship in (${inList(RELATIONSHIPS)})),
       constraint friendships_no_self check (user_id <> friend_id)
     )`,
  );
  await copyRows(knex, [...STORED, ...LABELS]);
  await addIndexes(knex);
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  if (isPg(knex)) {
    // the generated columns become plain ones that keep their values; the unique and the
    // (user_high, status) indexes stay
    await knex.raw("alter table friendships drop constraint friendships_no_self");
    await knex.raw(
      `alter table friendships
         alter column user_low drop expression, alter column user_low set not null,
         alter column user_high drop expression, alter column user_high set not null,
         add constraint friendships_no_self check (user_low < user_high)`,
    );
    return;
  }
  await dropIndexes(knex);
  await knex.schema.renameTable("friendships", "friendships_before");
  // the table as the initial and circles migrations made it
  await knex.schema.createTable("friendships", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.integer("friend_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("status", 8).notNullable().defaultTo("pending").checkIn(["pending", "accepted", "denied"]);
    t.integer("user_low").notNullable();
    t.integer("user_high").notNullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.string("low_circle", 8).notNullable().defaultTo("friends").checkIn(CIRCLES, "friendships_low_circle");
    t.string("high_circle", 8).notNullable().defaultTo("friends").checkIn(CIRCLES, "friendships_high_circle");
    t.string("low_relationship", 16).nullable().checkIn(RELATIONSHIPS, "friendships_low_relationship");
    t.string("high_relationship", 16).nullable().checkIn(RELATIONSHIPS, "friendships_high_relationship");
    t.check("?? < ??", ["user_low", "user_high"], "friendships_no_self");
  });
  await copyRows(knex, [...STORED, "user_low", "user_high", ...LABELS]);
  await addIndexes(knex);
}
