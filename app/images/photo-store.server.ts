import { config, type Config } from "~/lib/config.server";
import type { PhotoStore } from "./photo-store-contract.server";
import { DiskPhotoStore } from "./photo-store-disk.server";
import { S3PhotoStore } from "./photo-store-s3.server";

export { KEY_PATTERN } from "./photo-store-contract.server";
export type { PhotoFile, PhotoStore } from "./photo-store-contract.server";

// Where the bytes of photos live: ONE interface, two backends (docs/decisions/0015-photo-store.md).
//
// A photo is a key (random, app/images/storage.server.ts) with a few files under it, one per
// derivative (`<width>.webp`). The store knows nothing of database rows, users or access: the
// images row is the commit point (a photo exists for the app once its row has committed), the
// image route (app/routes/images.ts) decides who may read, and the sweeper (sweepUploads) removes
// keys that no row refers to. Everything that stores, reads or deletes photo bytes goes through
// `photoStore()`; nothing else touches UPLOADS_DIR for photos (raw upload temp files from the
// multipart parser stay on the local disk under <UPLOADS_DIR>/.tmp/ whatever the backend).
//
// - disk (default): <UPLOADS_DIR>/<key>/<name>, written under <UPLOADS_DIR>/.tmp/ and moved into
//   place with one directory rename (photo-store-disk.server.ts).
// - s3 (STORAGE=s3): objects `<S3_PREFIX><key>/<name>` in S3_BUCKET, streamed back through the
//   image route, never handed to a browser as a public or presigned URL (photo-store-s3.server.ts).

/** The store the configuration chose; made once per configuration (tests may change it). */
export function photoStore(): PhotoStore {
  const current = config();
  if (!holder.store || holder.config !== current) {
    const previous = holder.store;
    holder.store = createPhotoStore(current);
    holder.config = current;
    void previous?.close();
  }
  return holder.store;
}

/** Closes the current store's connections (end of a test file, shutdown). */
export async function closePhotoStore(): Promise<void> {
  const store = holder.store;
  holder.store = null;
  holder.config = null;
  await store?.close();
}

const holder = ((
  globalThis as { __sweetPhotoStore?: { store: PhotoStore | null; config: Config | null } }
).__sweetPhotoStore ??= {
  store: null,
  config: null,
});

/**
 * A store for these settings, outside the app's own (tests/e2e helpers that seed a running
 * server's photos). The app itself uses photoStore().
 */
export function createPhotoStore(cfg: Pick<Config, "uploadsDir" | "storage">): PhotoStore {
  const { storage } = cfg;
  switch (storage.kind) {
    case "disk":
      return new DiskPhotoStore(cfg.uploadsDir);
    case "s3":
      return new S3PhotoStore(storage);
  }
}
