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
  // npm run backup / restore copy the SQLite file (PostgreSQL: pg_dump, see README)
  "tests/unit/backup-restore.sqlite.test.ts",
  // an outside connection holding SQLite's write lock (docs/decisions/0017-*)
  "tests/unit/processes.sqlite.test.ts",
  // the modes of the SQLite file, its WAL and SHM, backups and restores (docs/decisions/0042-*)
  "tests/unit/private-files.sqlite.test.ts",
  // npm run restore checks a damaged archive whole before touching the data folder
  "tests/unit/restore-damaged.sqlite.test.ts",
  // npm run dev and check:layers, once: neither reads the database the suite runs on
  "tests/unit/npm-scripts.sqlite.test.ts",
  // the benchmarks, once: each seeds and serves a SQLite database of its own
  "tests/unit/bench-scripts.sqlite.test.ts",
];
// ... and these test PostgreSQL itself (the app's role, 64-bit counts as numbers) or need a
// PostgreSQL server as their target (the move from SQLite + disk to PostgreSQL + S3)
const POSTGRES_ONLY = [
  "app/lib/db.server.postgres.test.ts",
  "tests/unit/move-to-postgres.test.ts",
  // dropping a test database past a backend of another role (needs the cluster's superuser)
  "tests/unit/pg-drop.test.ts",
];
const onPostgres = Boolean(process.env.TEST_DATABASE_URL?.trim());

/**
 * The test files that reach stored photos (write and then read, list, serve or delete them): they
 * run on both backends. tests/unit/photo-tests-on-s3.test.ts fails when one is missing here.
 */
export const PHOTO_TEST_FILES = [
  "app/images/photo-store.test.ts",
  "app/models/pending-photos.server.test.ts",
  "app/images/storage.test.ts",
  "app/routes/images.test.ts",
  "app/models/kids.server.test.ts",
  "app/models/moments.server.test.ts",
  "app/models/profile-pictures.server.test.ts",
  "app/routes/profile-picture.test.ts",
  "app/routes/api/daily-logs.test.ts",
  "app/routes/api/daily-logs-id.test.ts",
  "app/routes/api/kids.test.ts",
  "app/routes/api/profile-picture-api.test.ts",
  "tests/unit/access-matrix.test.ts",
  "app/models/drafts/drafts.server.test.ts",
  "app/routes/api/drafts-api.test.ts",
  "tests/unit/seed.test.ts",
  "app/models/account.server.test.ts",
  "app/models/export-zip.server.test.ts",
  "app/routes/api/users-current.test.ts",
  "app/models/maintenance.server.test.ts",
  "app/models/submissions.server.test.ts",
  "tests/unit/crash.test.ts",
  "app/mail/digest.server.test.ts",
  "app/models/moment-photos.server.test.ts",
  "app/video/clips.server.test.ts",
  "app/models/moment-clips.server.test.ts",
  "app/routes/moment-clips.test.ts",
  "app/imports/export-import.server.test.ts",
  "app/imports/archive.server.test.ts",
];

/**
 * Of those, the files that run on S3 again when the suite runs on PostgreSQL: where the photo
 * store's writes meet the database's transaction (a photo exists once its row is committed after
 * every object was written; the sweeper removes objects without a row, a crash in between leaves
 * only those). The other photo files test access, seeding, exports and clips through the same store
 * calls, which do not depend on the engine: S3 once, on SQLite, is enough for them
 * (docs/decisions/0069-ci-time.md).
 */
export const PHOTO_TEST_FILES_ON_BOTH_ENGINES = [
  "app/images/photo-store.test.ts",
  "app/images/storage.test.ts",
  "app/models/pending-photos.server.test.ts",
  "app/models/moment-photos.server.test.ts",
  "app/models/maintenance.server.test.ts",
  "app/models/drafts/drafts.server.test.ts",
  "app/models/moment-clips.server.test.ts",
  "app/video/clips.server.test.ts",
  "tests/unit/crash.test.ts",
];

// Two projects (docs/decisions/0015-photo-store.md):
// - disk: every test, photos on the local disk under a temp UPLOADS_DIR (the default backend);
// - s3: the tests that reach stored photos again, with STORAGE=s3 against a real S3-compatible
//   server started in-process for each test file (tests/setup-s3.ts, after tests/setup-db.ts); on
//   PostgreSQL only PHOTO_TEST_FILES_ON_BOTH_ENGINES.
export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  test: {
    exclude: [...configDefaults.exclude, ...(onPostgres ? SQLITE_ONLY : POSTGRES_ONLY)],
    globalSetup: ["./tests/global-setup-db.ts"],
    setupFiles: ["./tests/setup-db.ts"],
    environment: "node",
    pool: "forks",
    // one worker per core (vitest's default leaves one core idle: one worker on the 2-core CI
    // machine); measured in docs/decisions/0051-test-kit-and-a-faster-suite.md
    maxWorkers: "100%",
    testTimeout: 20000,
    hookTimeout: 30000,
    projects: [
      { extends: true, test: { name: "disk", include: ["app/**/*.test.{ts,tsx}", "tests/unit/**/*.test.{ts,tsx}"] } },
      {
        extends: true,
        test: {
          name: "s3",
          include: onPostgres ? PHOTO_TEST_FILES_ON_BOTH_ENGINES : PHOTO_TEST_FILES,
          setupFiles: ["./tests/setup-s3.ts"],
        },
      },
    ],
  },
});
