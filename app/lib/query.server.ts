import type { Knex } from "knex";
import { db, onPostgres, type Db } from "./db.server";
import { readAll } from "./db-read.server";

// THE query layer (docs/decisions/0011-one-query-path.md). Every read of app/models and app/images
// is written ONCE, with knex, as a `query(...)`, and runs through here:
//
//   const kidById = query<{ kidId: number }, Pick<KidRow, "id" | "name">>((p, k) =>
//     k("kids").where("kids.id", p("kidId")).first("id", "name"));
//   await kidById.first({ kidId });                 // the read connection, a reused prepared statement
//   await kidById.first({ kidId }, { conn: trx });  // inside a write transaction: sees its rows
//
// knex writes the SQL once per query shape (on first use, with markers where the parameters go),
// so a request never compiles a builder again; it only binds the values. Without `conn` the SQL
// runs on the read connection (app/lib/db-read.server.ts: query_only, one prepared statement per
// SQL text, reused); with `conn` (a transaction) it runs as that same SQL text on the transaction.
// Either way knex's "query" event fires, so tests that count a page's queries count every one.
//
// Writes (insert, update, delete) and the reads that are part of a write transaction's own logic
// use knex on db() or on the transaction, as before: there is one writer.
//
// What is SQLite-specific sits here and in db-read.server.ts, nowhere in the models: the read
// connection itself (PostgreSQL: named statements on knex's pool instead), lists bound as ONE
// parameter (`inList`), the bound LIMIT (`limitParam`), and the result shape of knex.raw.
//
// A query states the row it answers, `R`, written from the table types of app/lib/tables.ts
// (`Pick<KidRow, "id" | "name">`, `{ owner: UserRow["username"] }` for an alias): a column renamed
// there is a type error wherever a query still reads it (docs/decisions/0046-typed-rows.md). What
// differs between the engines is settled before a row gets here (db/knexfile.mjs), so a row's
// fields are used as they are, never cast. A query that states no row answers `unknown` rows.

type Built = Knex.QueryBuilder | Knex.Raw;

/** Where a query takes a value at run time: `p("kidId")` inside a query's builder. */
export type ParamFn<P> = (name: keyof P & string) => string;

export type RunOptions = {
  /** Run inside this transaction (reads that must see its uncommitted rows). Default: the read connection. */
  conn?: Db;
};

export type Query<P, R = unknown> = {
  /** The SQL text (compiled on first use). */
  readonly sql: string;
  /** The bindings for `params`, in the SQL's order (a list becomes one JSON text). */
  bindings(params: P): unknown[];
  all(params: P, opts?: RunOptions): Promise<R[]>;
  first(params: P, opts?: RunOptions): Promise<R | undefined>;
};

const MARKER = "\u0000sm-param:";

type Slot = { name: string } | { value: unknown };
type Compiled = { native: string; portable: string; slots: Slot[] };

/**
 * A read query written once by knex. `build` receives `p(name)`, to use wherever a value changes
 * from call to call, and the knex instance to build with; other values (e.g. `.first()`'s limit 1,
 * status "accepted") stay as compiled. A list of values is one parameter: write the condition with
 * `inList`. The builder must not depend on anything but its parameters.
 */
export function query<P extends Record<string, unknown> = Record<never, never>, R = unknown>(
  build: (p: ParamFn<P>, k: Knex) => Built,
): Query<P, R> {
  let compiled: Compiled | null = null;
  const compile = (): Compiled => {
    if (compiled) return compiled;
    const sql = build((name) => MARKER + name, db()).toSQL();
    const native = sql.toNative();
    const slots = sql.bindings.map(
      (b): Slot => (typeof b === "string" && b.startsWith(MARKER) ? { name: b.slice(MARKER.length) } : { value: b }),
    );
    if (native.sql.includes(MARKER)) throw new Error("query: a parameter ended up inside the SQL text");
    compiled = { native: native.sql, portable: sql.sql, slots };
    return compiled;
  };
  const bindings = (params: P) =>
    compile().slots.map((slot) => {
      if (!("name" in slot)) return slot.value;
      if (!(slot.name in params)) throw new Error(`query: missing parameter ${slot.name}`);
      const value = params[slot.name];
      // a list is ONE parameter: a PostgreSQL array, or a JSON text for SQLite's json_each (see inList)
      return Array.isArray(value) && !onPostgres() ? JSON.stringify(value) : value;
    });
  const all = async (params: P, opts: RunOptions = {}): Promise<R[]> => {
    const c = compile();
    const values = bindings(params);
    if (!opts.conn) return readAll<R>(c.native, values);
    return rowsOf<R>(await opts.conn.raw(c.portable, values as Knex.RawBinding[]));
  };
  return {
    get sql() {
      return compile().native;
    },
    bindings,
    all,
    first: async (params: P, opts?: RunOptions) => (await all(params, opts))[0],
  };
}

/** knex.raw answers the rows themselves on SQLite, `{ rows }` on PostgreSQL. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] } | null)?.rows ?? []) as T[];
}

/**
 * `column in (the list)`, the list being ONE parameter, so the SQL text is the same for any length:
 * `= any($1)` with an array on PostgreSQL (the column gives the array its type), a JSON text read
 * with json_each on SQLite.
 */
export function inList(qb: Knex.QueryBuilder, column: string, list: string): Knex.QueryBuilder {
  if (onPostgres()) return qb.whereRaw("?? = any(?)", [column, list]);
  return qb.whereRaw("?? in (select value from json_each(?))", [column, list]);
}

/** "No limit" for `limitParam`: a bound no list reaches (SQLite refuses LIMIT NULL, PostgreSQL a negative LIMIT). */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** `builder` with a LIMIT taken from a parameter (knex's .limit() only takes numbers). */
export function limitParam(k: Knex, builder: Knex.QueryBuilder, limit: string): Knex.Raw {
  const { sql, bindings } = builder.toSQL();
  return k.raw(`${sql} limit ?`, [...bindings, limit]);
}
