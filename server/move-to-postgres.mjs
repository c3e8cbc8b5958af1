// @ts-check
// `npm run move-to-postgres`: copies this installation (DATABASE_FILE, photos in UPLOADS_DIR) into
// an empty PostgreSQL database (DATABASE_URL) and, with STORAGE=s3, an S3 bucket (S3_*). README
// "Scaling out"; docs/decisions/0022-move-to-postgres.md.
import { runTypeScript } from "./run-typescript.mjs";

process.exit(await runTypeScript("/db/move/main.server.ts"));
