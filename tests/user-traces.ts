// What is left of a user anywhere in the database, found generically: every table, every column
// that references users (by foreign key, or by a name that says it holds a user's id, like
// images.owner_id and friendships.user_low), and every text column that holds the user's email or
// username. Tables that later work adds (invitations, notifications, co-parents) are covered
// without changing this file. SQLite and PostgreSQL alike.
import { db, onPostgres } from "../app/lib/db.server";

type Column = { table: string; column: string; type: string };

/** Column names that hold a user's id even without a foreign key. */
const USER_ID_NAME =
  /(^|_)(user|owner|author|friend|sender|receiver|recipient|inviter|invitee|parent|co_parent|member|actor)(_id)?$|^user_(low|high)$/;

async function schema(): Promise<{ columns: Column[]; userRefs: Column[] }> {
  const k = db();
  if (onPostgres()) {
    const cols = await k.raw(
      `select table_name as "table", column_name as "column", data_type as "type" from information_schema.columns
       where table_schema = current_schema() and table_name not like 'knex_migrations%'`,
    );
    const fks = await k.raw(
      `select kcu.table_name as "table", kcu.column_name as "column" from information_schema.table_constraints tc
       join information_schema.key_column_usage kcu on kcu.constraint_name = tc.constraint_name and kcu.table_schema = tc.table_schema
       join information_schema.constraint_column_usage ccu on ccu.constraint_name = tc.constraint_name and ccu.table_schema = tc.table_schema
       where tc.constraint_type = 'FOREIGN KEY' and ccu.table_name = 'users' and tc.table_schema = current_schema()`,
    );
    const columns: Column[] = cols.rows;
    const refs = new Set(fks.rows.map((r: Column) => `${r.table}.${r.column}`));
    return { columns, userRefs: columns.filter((c) => refs.has(`${c.table}.${c.column}`) || isUserIdName(c)) };
  }
  const tables: { name: string }[] = await k.raw(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'knex_migrations%'",
  );
  const columns: Column[] = [];
  const userRefs: Column[] = [];
  for (const { name } of tables) {
    // table_xinfo, not table_info: the friendship's ordered pair is generated columns, which
    // table_info leaves out
    const info: { name: string; type: string }[] = await k.raw(`pragma table_xinfo("${name}")`);
    const fks: { table: string; from: string }[] = await k.raw(`pragma foreign_key_list("${name}")`);
    const fkCols = new Set(fks.filter((f) => f.table === "users").map((f) => f.from));
    for (const c of info) {
      const col = { table: name, column: c.name, type: c.type.toLowerCase() };
      columns.push(col);
      if (fkCols.has(c.name) || isUserIdName(col)) userRefs.push(col);
    }
  }
  return { columns, userRefs };
}

function isUserIdName(c: Column): boolean {
  return (c.table === "users" && c.column === "id") || USER_ID_NAME.test(c.column);
}

const isText = (c: Column) => /char|text|clob/.test(c.type);

/** Every place the user is still found: `table.column` with the number of rows. [] when none. */
export async function userTraces(user: { id: number; email: string; username: string }): Promise<string[]> {
  const { columns, userRefs } = await schema();
  if (!userRefs.some((c) => c.table === "users")) throw new Error("the users table was not found");
  const k = db();
  const out: string[] = [];
  for (const c of userRefs) {
    if (isText(c)) continue;
    const row = await k(c.table).where(c.column, user.id).count({ n: "*" }).first();
    if (Number(row?.n ?? 0) > 0) out.push(`${c.table}.${c.column} = ${user.id}: ${row?.n} rows`);
  }
  const needles = [user.email.toLowerCase(), user.username.toLowerCase()];
  for (const c of columns.filter(isText)) {
    for (const needle of needles) {
      const row = await k(c.table)
        .whereRaw(`lower(??) like ?`, [c.column, `%${needle}%`])
        .count({ n: "*" })
        .first();
      if (Number(row?.n ?? 0) > 0) out.push(`${c.table}.${c.column} holds "${needle}": ${row?.n} rows`);
    }
  }
  return out;
}

/** The columns checked (to prove the check sees the schema). */
export async function userReferenceColumns(): Promise<string[]> {
  return (await schema()).userRefs.map((c) => `${c.table}.${c.column}`).sort();
}
