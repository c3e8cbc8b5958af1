// @ts-check
// Knex configuration, shared by the app (app/lib/db.server.ts), the CLI scripts and the tests.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * SQLite pragmas applied to every pooled connection: foreign keys enforced, WAL so readers never
 * wait for the writer, a busy timeout instead of SQLITE_BUSY errors, and NORMAL sync (safe with WAL).
 * @param {string} filename
 * @returns {import("knex").Knex.Config}
 */
export function knexConfig(filename) {
  return {
    client: "sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      /** @param {any} conn @param {(err: Error | null, conn: any) => void} done */
      afterCreate(conn, done) {
        conn.serialize(() => {
          conn.run("PRAGMA foreign_keys = ON");
          conn.run("PRAGMA journal_mode = WAL");
          conn.run("PRAGMA synchronous = NORMAL");
          conn.run("PRAGMA busy_timeout = 5000");
          conn.run("PRAGMA cache_size = -16000", (/** @type {Error | null} */ err) => done(err, conn));
        });
      },
    },
    migrations: { directory: migrationsDir, loadExtensions: [".mjs"], tableName: "knex_migrations" },
  };
}

// For the knex CLI: `npx knex --knexfile db/knexfile.mjs migrate:latest`
export default knexConfig(path.resolve(process.env.DATABASE_FILE || "data/sweet-moments.sqlite"));
