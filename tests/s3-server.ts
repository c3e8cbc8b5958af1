// A real S3-compatible server for tests and local checks: s3rver, in-process, over HTTP on a free
// port of 127.0.0.1, keeping its objects in a temporary folder, with one bucket made at start.
// Used by tests/setup-s3.ts (the vitest "s3" project); no mocked SDK anywhere.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

/** s3rver's fixed account (it checks request signatures against it). */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export type RunningS3 = {
  endpoint: string;
  bucket: string;
  /** The settings that point the app at this server (server/env.mjs reads them). */
  env: Record<string, string>;
  stop(): Promise<void>;
};

export async function startS3(bucket = "sweet-moments-test"): Promise<RunningS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sm-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE: "s3",
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      S3_PREFIX: "photos",
    },
    async stop() {
      // connections the SDK still holds (a body a test never read) must not keep close() waiting
      server.httpServer?.closeAllConnections();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
