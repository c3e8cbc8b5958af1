import { configDefaults, defineConfig } from "vitest/config";
import path from "node:path";

// With TEST_DATABASE_URL (a PostgreSQL server, docs/decisions/0014-postgresql.md) the same suite
// runs on PostgreSQL, except these files, which test SQLite itself:
const SQLITE_ONLY = [
  // the second, read-only sqlite3 connection and its prepared statements (docs/decisions/0005-*)
  "app/lib/db-read.server.test.ts",
  // pragmas (foreign keys, WAL, busy timeout) and SQLite's query plan for the cursor index
  "app/lib/db.server.sqlite.test.ts",
  // SQLite's plan for a moments page through the model's own query shape
  "app/models/moments.server.sqlite.test.ts",
];
// ... and these test PostgreSQL itself (the app's role, 64-bit counts as numbers)
const POSTGRES_ONLY = ["app/lib/db.server.postgres.test.ts"];
const onPostgres = Boolean(process.env.TEST_DATABASE_URL?.trim());

export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  test: {
    include: ["app/**/*.test.{ts,tsx}", "tests/unit/**/*.test.{ts,tsx}"],
    exclude: [...configDefaults.exclude, ...(onPostgres ? SQLITE_ONLY : POSTGRES_ONLY)],
    globalSetup: ["./tests/global-setup-db.ts"],
    setupFiles: ["./tests/setup-db.ts"],
    environment: "node",
    pool: "forks",
    testTimeout: 20000,
    hookTimeout: 30000,
  },
});
