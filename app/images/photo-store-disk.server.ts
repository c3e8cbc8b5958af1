import fsp from "node:fs/promises";
import path from "node:path";
import { assertKey, assertPut, clampRange, isKey, isName } from "./photo-store-contract.server";
import type { ByteRange, OpenedPhotoFile, PhotoFile, PhotoStore, StoredKey } from "./photo-store-contract.server";

// The disk backend of the photo store (the default; docs/decisions/0015-photo-store.md).
//
// Files: <root>/<key>/<name>. They are written under <root>/.tmp/<key>.partial/, each synced, and
// moved into place with one directory rename, so a photo's files appear all at once or not at
// all; a crash before the rename leaves only a partial folder under .tmp/, which the sweeper
// removes. The root (UPLOADS_DIR) is never under public/.

async function writeDurably(filePath: string, from: PhotoFile): Promise<void> {
  if ("file" in from) {
    // a large file is copied by the kernel, never read into memory
    await fsp.copyFile(from.file, filePath, fsp.constants.COPYFILE_EXCL);
    await fsp.chmod(filePath, 0o600);
  }
  const fh = await fsp.open(filePath, "data" in from ? "wx" : "r+", 0o600);
  try {
    if ("data" in from) await fh.writeFile(from.data);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await fsp.open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // not supported everywhere; the rename itself is what matters
  }
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

export class DiskPhotoStore implements PhotoStore {
  readonly kind = "disk";

  constructor(private readonly root: string) {}

  private file(key: string, name: string): string | null {
    return isKey(key) && isName(name) ? path.join(this.root, key, name) : null;
  }

  async putAll(key: string, files: readonly PhotoFile[]): Promise<void> {
    assertPut(key, files);
    let partial: string | null = path.join(this.root, ".tmp", `${key}.partial`);
    try {
      await fsp.mkdir(partial, { recursive: true, mode: 0o700 });
      for (const f of files) await writeDurably(path.join(partial, f.name), f);
      await syncDir(partial);
      await fsp.rename(partial, path.join(this.root, key));
      partial = null;
      await syncDir(this.root);
    } finally {
      if (partial) await fsp.rm(partial, { recursive: true, force: true }).catch(() => {});
    }
  }

  async open(key: string, name: string, range?: ByteRange): Promise<OpenedPhotoFile | null> {
    const filePath = this.file(key, name);
    if (!filePath) return null;
    // open first, then stat the open file: no window in which it could change between the two
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(filePath, "r");
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
    try {
      const totalSize = (await handle.stat()).size;
      const span = range ? clampRange(range, totalSize) : null;
      const stream = handle.createReadStream({ autoClose: true, ...(span ?? {}) });
      return { stream, size: span ? span.end - span.start + 1 : totalSize, totalSize };
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  }

  async stat(key: string, name: string): Promise<{ size: number } | null> {
    const filePath = this.file(key, name);
    if (!filePath) return null;
    try {
      const stat = await fsp.stat(filePath);
      return stat.isFile() ? { size: stat.size } : null;
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async list(key: string): Promise<string[]> {
    if (!isKey(key)) return [];
    try {
      const entries = await fsp.readdir(path.join(this.root, key), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
    } catch (error) {
      if (missing(error)) return [];
      throw error;
    }
  }

  async deleteAll(key: string): Promise<void> {
    assertKey(key);
    await fsp.rm(path.join(this.root, key), { recursive: true, force: true });
  }

  async *listKeys(): AsyncIterable<StoredKey> {
    let entries: string[];
    try {
      entries = await fsp.readdir(this.root);
    } catch (error) {
      if (missing(error)) return;
      throw error;
    }
    for (const key of entries.sort()) {
      if (!isKey(key)) continue; // .tmp and anything else that is not a photo
      try {
        const stat = await fsp.stat(path.join(this.root, key));
        if (stat.isDirectory()) yield { key, modifiedAt: stat.mtime };
      } catch (error) {
        if (!missing(error)) throw error; // removed meanwhile: not a leftover any more
      }
    }
  }

  async close(): Promise<void> {}
}
