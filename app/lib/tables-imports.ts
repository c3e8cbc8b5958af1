// The rows of "Move in" (migration 20261217000000_imports, docs/decisions/0066-imports.md), typed
// beside app/lib/tables.ts, and added to its `Tables` here, to keep that file under 400 lines.

/** An archive an account brought in ("Move in", docs/decisions/0066-imports.md). */
export interface ImportRow {
  id: number;
  user_id: number;
  kind: "export" | "takeout";
  /** Where it came from: the exporting account on its server, or the Takeout's album. */
  source: string;
  status: "running" | "finished";
  /** What it brought and skipped (JSON, app/imports/summary.ts). */
  summary: string | null;
  created_at: string;
  updated_at: string;
}

/** A kid or moment an import of an export created, by its id in the source ("kid:12", "moment:34"). */
export interface ImportItemRow {
  id: number;
  import_id: number;
  user_id: number;
  source: string;
  source_item: string;
  kid_id: number | null;
  daily_log_id: number | null;
  created_at: string;
}

declare module "./tables" {
  interface Tables {
    imports: ImportRow;
    import_items: ImportItemRow;
  }
}
