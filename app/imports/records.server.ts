import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { ImportItemRow, ImportRow } from "~/lib/tables-imports";
import { whereOwnedBy } from "~/models/access.server";
import { emptySummary, type ImportKind, type ImportSummary } from "./summary";

// The rows that remember imports (migration 20261217000000_imports, docs/decisions/0066-imports.md):
// one `imports` row per source an account brings in, and one `import_items` row per kid or moment
// an import of an export created, written in the same transaction as the kid or moment, so a
// crash between two moments loses nothing and repeats nothing: importing the archive again
// resumes where it stopped.

export type ImportRecord = {
  id: number;
  kind: ImportKind;
  status: ImportRow["status"];
  summary: ImportSummary;
  created_at: string;
  updated_at: string;
};

const importBySource = query<{ userId: number; source: string }, Pick<ImportRow, "id">>((p, k) =>
  k("imports")
    .where({ "imports.user_id": p("userId"), "imports.source": p("source") })
    .orderBy("imports.id", "desc")
    .first("imports.id"),
);

/** The import of `source` by `userId`: the one begun before (resumed, "running" again), or a new one. */
export async function startImport(userId: number, kind: ImportKind, source: string): Promise<number> {
  const now = nowIso();
  return writeTransaction(async (trx) => {
    const before = await importBySource.first({ userId, source }, { conn: trx });
    if (before) {
      await trx("imports").where("id", before.id).update({ status: "running", updated_at: now });
      return before.id;
    }
    return insertedId(
      await trx("imports")
        .insert({
          user_id: userId,
          kind,
          source,
          status: "running",
          summary: JSON.stringify(emptySummary(kind)),
          created_at: now,
          updated_at: now,
        })
        .returning("id"),
    );
  });
}

/** The import is over: what it brought and skipped. */
export async function finishImport(importId: number, summary: ImportSummary): Promise<void> {
  await writeTransaction((trx) =>
    trx("imports")
      .where("id", importId)
      .update({ status: "finished", summary: JSON.stringify(summary), updated_at: nowIso() }),
  );
}

type ItemRow = Pick<ImportItemRow, "source_item" | "kid_id" | "daily_log_id">;
const itemsOfSource = query<{ userId: number; source: string }, ItemRow>((p, k) =>
  k("import_items")
    .where({ "import_items.user_id": p("userId"), "import_items.source": p("source") })
    .select("import_items.source_item", "import_items.kid_id", "import_items.daily_log_id"),
);

/** What earlier imports of `source` created and is still there, by source item ("kid:12", "moment:34"). */
export async function importedItems(userId: number, source: string): Promise<Map<string, ItemRow>> {
  const rows = await itemsOfSource.all({ userId, source });
  return new Map(rows.map((r) => [r.source_item, r]));
}

/** Records, inside the transaction that created it, the kid or moment `item` of the source became. */
export async function recordItem(
  trx: Db,
  at: { importId: number; userId: number; source: string },
  item: string,
  target: { kidId?: number; momentId?: number },
): Promise<void> {
  await trx("import_items").insert({
    import_id: at.importId,
    user_id: at.userId,
    source: at.source,
    source_item: item,
    kid_id: target.kidId ?? null,
    daily_log_id: target.momentId ?? null,
    created_at: nowIso(),
  });
}

const importOf = query<
  { userId: number; id: number },
  Pick<ImportRow, "id" | "kind" | "status" | "summary" | "created_at" | "updated_at">
>((p, k) =>
  // one's own imports only (the access module's rule for one's own account data)
  whereOwnedBy(k("imports"), "imports.user_id", p("userId"))
    .where("imports.id", p("id"))
    .first(
      "imports.id",
      "imports.kind",
      "imports.status",
      "imports.summary",
      "imports.created_at",
      "imports.updated_at",
    ),
);

/** One of `userId`'s imports (someone else's is not there for them), or null. */
export async function getImport(userId: number, id: number): Promise<ImportRecord | null> {
  const row = await importOf.first({ userId, id });
  if (!row) return null;
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    summary: { ...emptySummary(row.kind), ...(row.summary ? (JSON.parse(row.summary) as Partial<ImportSummary>) : {}) },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const createdBy = query<{ userId: number; id: number }, ItemRow>((p, k) =>
  k("import_items")
    .where({ "import_items.import_id": p("id"), "import_items.user_id": p("userId") })
    .select("import_items.source_item", "import_items.kid_id", "import_items.daily_log_id"),
);

/** The kids and moments import `id` of `userId` created (and that are still there). */
export async function createdByImport(userId: number, id: number): Promise<{ kidIds: number[]; momentIds: number[] }> {
  const rows = await createdBy.all({ userId, id });
  return {
    kidIds: rows.flatMap((r) => (r.kid_id ? [r.kid_id] : [])),
    momentIds: rows.flatMap((r) => (r.daily_log_id ? [r.daily_log_id] : [])),
  };
}

/** Forgets import `id` (its items go by cascade). */
export async function forgetImport(userId: number, id: number): Promise<void> {
  await writeTransaction((trx) => trx("imports").where({ id, user_id: userId }).delete());
}
