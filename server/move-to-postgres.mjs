// @ts-check
// `npm run move-to-postgres`: copies this installation (DATABASE_FILE, photos in UPLOADS_DIR) into
// an empty PostgreSQL database (DATABASE_URL) and, with STORAGE=s3, an S3 bucket (S3_*). README
// "Scaling out"; docs/decisions/0022-move-to-postgres.md.
// The move is TypeScript that uses the app's photo store: loaded through Vite's module runner.
const { runnerImport } = await import("vite");
const { module } = await runnerImport("/db/move/cli.server.ts", {
  configFile: false,
  root: new URL("..", import.meta.url).pathname,
  resolve: { alias: { "~": new URL("../app", import.meta.url).pathname } },
  logLevel: "error",
});
process.exit(await /** @type {any} */ (module).run());
