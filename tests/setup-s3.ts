// Vitest setup of the "s3" project (vitest.config.ts), run after tests/setup-db.ts for each test
// file: starts a real S3-compatible server (s3rver, in-process, HTTP on a free port) and points
// the app's photo store at it with the operator's settings (STORAGE=s3, S3_BUCKET, …).
import { afterAll } from "vitest";
import { resetEnvCache } from "../server/env.mjs";
import { closePhotoStore } from "../app/images/photo-store.server";
import { startS3 } from "./s3-server";

const s3 = await startS3();
Object.assign(process.env, s3.env);
resetEnvCache();

afterAll(async () => {
  await closePhotoStore();
  await s3.stop();
});
