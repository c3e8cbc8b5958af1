import type { Readable } from "node:stream";

// The contract of the photo store (app/images/photo-store.server.ts chooses the backend): what
// every backend does, and the checks they share. See docs/decisions/0015-photo-store.md.

/** Shape of a key (also what the image route accepts; older keys may only be longer). */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;
/** Shape of a file name under a key: `160.webp`; never a path, never hidden. */
export const NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/**
 * One file to store under a key: bytes in memory (a photo's derivatives), or a file on the local
 * disk, streamed (a clip's renditions, too large to hold in memory).
 */
export type PhotoFile = { name: string; data: Uint8Array } | { name: string; file: string };

/** The type a stored file is served with, from its name. */
export function contentTypeOf(name: string): string {
  if (name.endsWith(".mp4")) return "video/mp4";
  if (name.endsWith(".vtt")) return "text/vtt; charset=utf-8";
  return "image/webp";
}

/** Bytes `start`..`end` inclusive, as in HTTP's `Range: bytes=start-end`; no `end`: to the last byte. */
export type ByteRange = { start: number; end?: number };

/** A stored file opened for reading. Whoever receives it must consume or destroy `stream`. */
export type OpenedPhotoFile = {
  stream: Readable;
  /** Bytes in `stream` (the range's length when a range was asked for). */
  size: number;
  /** Bytes in the whole file. */
  totalSize: number;
};

/** A key found in the store, with the time its newest file was written (for the sweeper's age rule). */
export type StoredKey = { key: string; modifiedAt: Date };

export interface PhotoStore {
  readonly kind: "disk" | "s3";
  /**
   * Stores all these files under a new key, or none of them: when any write fails, what was
   * written is removed again and the error is rethrown. Malformed key or names reject before
   * anything is written.
   */
  putAll(key: string, files: readonly PhotoFile[]): Promise<void>;
  /**
   * Opens one file for streaming; null when it is not there (or the key or name is malformed).
   * A range must start inside the file (check `stat` first), otherwise this rejects with a
   * RangeError; its end is clamped to the last byte.
   */
  open(key: string, name: string, range?: ByteRange): Promise<OpenedPhotoFile | null>;
  /** The size of one file without reading it; null when it is not there. */
  stat(key: string, name: string): Promise<{ size: number } | null>;
  /** The names of the files under a key, sorted; [] when there are none. */
  list(key: string): Promise<string[]>;
  /** Removes every file under a key (nothing there is fine). Malformed keys are refused (rejects). */
  deleteAll(key: string): Promise<void>;
  /** Every key that has files, each once (for the sweeper). */
  listKeys(): AsyncIterable<StoredKey>;
  /** Releases connections (tests, shutdown). The store is unusable afterwards. */
  close(): Promise<void>;
}

/** Refuses anything that is not a key (so never a path outside the store). */
export function assertKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`malformed photo key ${JSON.stringify(key)}`);
}

/** Refuses a put of anything but a key and plain file names, before anything is written. */
export function assertPut(key: string, files: readonly PhotoFile[]): void {
  assertKey(key);
  for (const f of files)
    if (!NAME_PATTERN.test(f.name)) throw new Error(`malformed photo file name ${JSON.stringify(f.name)}`);
}

export function isKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function isName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** Checks a range against a file of `totalSize` bytes: the inclusive [start, end] to read. */
export function clampRange(range: ByteRange, totalSize: number): { start: number; end: number } {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0 || start >= totalSize) {
    throw new RangeError(`range start ${start} is outside a file of ${totalSize} bytes`);
  }
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new RangeError(`range end ${end} is before its start ${start}`);
  return { start, end: Math.min(end ?? totalSize - 1, totalSize - 1) };
}
