// @ts-check
// Imports: "Move in" from an export of another Sweet Moments server or from a Google Takeout album
// (docs/decisions/0066-imports.md). Knex schema builder only (SQLite and PostgreSQL).
// - imports: one per archive an account brings in (kind "export" or "takeout"), with `source`
//   naming where it came from (the exporting account on its server; the Takeout's album), its
//   state ("running" until the last item is in, then "finished") and what it brought and skipped
//   (`summary`, JSON). A second import of the same source by the same account resumes the first.
// - import_items: what an import of an export created, by its id in the source (`source_item`:
//   "kid:12", "moment:34"), so that importing the same archive again creates nothing twice. The
//   row follows its kid or moment (cascades): a kid deleted since is imported again.

/** @param {import("knex").Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("imports", (t) => {
    t.increments("id").primary();
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("kind", 12).notNullable();
    t.string("source", 200).notNullable();
    t.string("status", 12).notNullable().defaultTo("running");
    t.text("summary").nullable();
    t.string("created_at", 24).notNullable();
    t.string("updated_at", 24).notNullable();
    t.index(["user_id", "source"], "imports_user_source");
  });
  await knex.schema.createTable("import_items", (t) => {
    t.increments("id").primary();
    t.integer("import_id").notNullable().references("id").inTable("imports").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.string("source", 200).notNullable();
    t.string("source_item", 40).notNullable();
    t.integer("kid_id").nullable().references("id").inTable("kids").onDelete("CASCADE");
    t.integer("daily_log_id").nullable().references("id").inTable("daily_logs").onDelete("CASCADE");
    t.string("created_at", 24).notNullable();
    t.unique(["user_id", "source", "source_item"], { indexName: "import_items_once" });
    t.index(["import_id"], "import_items_import");
    t.index(["kid_id"], "import_items_kid");
    t.index(["daily_log_id"], "import_items_moment");
  });
}

/** @param {import("knex").Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("import_items");
  await knex.schema.dropTableIfExists("imports");
}
