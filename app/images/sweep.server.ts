import fsp from "node:fs/promises";
import path from "node:path";
import type { ImageRow } from "~/lib/tables";
import { inList, query } from "~/lib/query.server";
import { photoStore } from "./photo-store.server";
import { uploadsTempDir } from "./temp-uploads.server";

// The housekeeping of stored files (docs/decisions/0015-photo-store.md): what a crash between writing
// files and committing their row leaves behind, on either backend, and old temp files.

const knownKeys = query<{ keys: string[] }, Pick<ImageRow, "key">>((p, k) =>
  inList(k("images"), "images.key", p("keys")).select("images.key"),
);
// a clip's renditions and its source until it is prepared (docs/decisions/0064-video-clips.md)
const knownClipKeys = query<{ keys: string[] }, Pick<ImageRow, "key">>((p, k) =>
  inList(k("videos"), "videos.key", p("keys")).select("videos.key"),
);
const knownClipSources = query<{ keys: string[] }, Pick<ImageRow, "key">>((p, k) =>
  inList(k("videos"), "videos.source_key", p("keys")).select("videos.source_key as key"),
);

/**
 * Maintenance (at server start): removes, when older than `olderThanMs`,
 * - temporary files under <UPLOADS_DIR>/.tmp/ (raw uploads, the disk store's partial folders;
 *   these stay on the local disk whatever the backend), and
 * - photos in the store that no images row refers to (left by a crash between writing the files
 *   and committing the row), on either backend.
 * A negative age counts everything as old. Returns how many entries were removed. Never throws.
 */
export async function sweepUploads(olderThanMs = 60 * 60 * 1000): Promise<number> {
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  try {
    const tmp = uploadsTempDir();
    for (const name of await fsp.readdir(tmp).catch(() => [] as string[])) {
      const p = path.join(tmp, name);
      const old = await fsp.stat(p).then(
        (s) => s.mtimeMs < cutoff,
        () => false,
      );
      if (old) {
        await fsp.rm(p, { recursive: true, force: true });
        removed++;
      }
    }

    const store = photoStore();
    const sweep = async (batch: string[]) => {
      const rows = await Promise.all([knownKeys, knownClipKeys, knownClipSources].map((q) => q.all({ keys: batch })));
      const known = new Set(rows.flat().map((r) => r.key));
      for (const key of batch) {
        if (known.has(key)) continue;
        await store.deleteAll(key);
        removed++;
      }
    };
    let batch: string[] = [];
    for await (const { key, modifiedAt } of store.listKeys()) {
      if (modifiedAt.getTime() >= cutoff) continue; // young: its row may be about to commit
      batch.push(key);
      if (batch.length === 500) {
        await sweep(batch);
        batch = [];
      }
    }
    if (batch.length) await sweep(batch);
  } catch (error) {
    console.error("[images] sweeping uploads failed", error);
  }
  return removed;
}
