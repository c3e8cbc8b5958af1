// A real S3-compatible server for tests and local checks: s3rver, in-process, over HTTP on a free
// port of 127.0.0.1, keeping its objects in a temporary folder, with one bucket made at start.
// Used by tests/setup-s3.ts (the vitest "s3" project); no mocked SDK anywhere.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver, { type S3rverObject, type S3rverStore } from "s3rver";

/** s3rver's fixed account (it checks request signatures against it). */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export type RunningS3 = {
  endpoint: string;
  bucket: string;
  /** The settings that point the app at this server (server/env.mjs reads them). */
  env: Record<string, string>;
  /** The server's own store, for the tests of the server itself. */
  store: S3rverStore;
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
  writeObjectsWhole(server.store);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    store: server.store,
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

/**
 * s3rver 3.7.1 answers a PUT once the body has been read, before its file stream has written it
 * (lib/stores/filesystem.js resolves on the hashing stream's "finish", or right after
 * `writeStream.end(buffer)`): a GET right after, on a busy machine, could see a shorter file, and its
 * size and ranges were those of the part written so far. Real S3 answers a PUT only once the object
 * is stored; this store's putObject does the same: the file is written whole, then its metadata.
 */
function writeObjectsWhole(store: S3rverStore): void {
  store.putObject = async (object: S3rverObject) => {
    const file = store.getResourcePath(object.bucket, object.key, "object");
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const hash = crypto.createHash("md5");
    let size = 0;
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(source, count, fs.createWriteStream(file));
    const md5 = hash.digest("hex");
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size, md5 };
  };
}
