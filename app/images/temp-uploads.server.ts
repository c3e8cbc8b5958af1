import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { config } from "~/lib/config.server";

// Temporary upload files: where a photo waits between the request that brought it and the image
// module that stores it (app/images/multipart.server.ts writes them, app/images/storage.server.ts
// consumes them). Private files under <UPLOADS_DIR>/.tmp/.
//
// Temp files never outlive their request: every one is registered with the request's upload scope
// (`withUploadScope`, installed as a root middleware by app/web/uploads.server.ts), which removes
// whatever is left when the request ends, and `sweepTempUploads` (run on a timer by
// app/models/maintenance.server.ts) removes those of a crash.

/**
 * A file received from the client, saved to a private temporary file. Nothing about it is
 * trusted: `filename` and `mimeType` are what the client claimed and are for logs only; the image
 * module judges the content. Whoever receives an UploadedFile owns the temp file:
 * `storeImage` / `withNewImage` consume it (always remove it); anyone else must call `discard()`.
 */
export type UploadedFile = {
  /** Absolute path of the temporary file (under <UPLOADS_DIR>/.tmp/). */
  path: string;
  /** Bytes received (> 0: an empty part is "no file", or "not an image" when it has a file name). */
  size: number;
  /** The client's file name (basename only), informational. */
  filename: string;
  /** The client's declared content type, informational, never trusted. */
  mimeType: string;
  /** Removes the temporary file. Idempotent, never throws. */
  discard(): Promise<void>;
};

export function uploadsTempDir(): string {
  return path.join(config().uploadsDir, ".tmp");
}

/** The files of the request being handled (see withUploadScope). */
const uploadScope = new AsyncLocalStorage<Set<string>>();

/**
 * Runs `handle` (one request's handling): every temp upload file made meanwhile is removed when it
 * has finished, whatever happened (consumed files are gone already; removing is idempotent).
 */
export async function withUploadScope<T>(handle: () => Promise<T>): Promise<T> {
  const files = new Set<string>();
  try {
    return await uploadScope.run(files, handle);
  } finally {
    await Promise.all([...files].map(removeQuietly));
  }
}

/** The path of a new temp upload file, registered with the request's upload scope. */
export function newTempUploadPath(): string {
  const file = path.join(uploadsTempDir(), `${crypto.randomBytes(16).toString("hex")}.upload`);
  uploadScope.getStore()?.add(file);
  return file;
}

export async function removeQuietly(file: string): Promise<void> {
  try {
    await fsp.rm(file, { force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return; // its directory is not even there
    console.error(`[images] could not remove temporary file ${file}`, error);
  }
}

export function uploadedFile(filePath: string, size: number, filename: string, mimeType: string): UploadedFile {
  let discarded: Promise<void> | null = null;
  return {
    path: filePath,
    size,
    filename,
    mimeType,
    discard() {
      discarded ??= removeQuietly(filePath);
      return discarded;
    },
  };
}

/**
 * Saves bytes to a temporary upload file, for callers that have the image in memory already
 * (seed scripts, tests). The result is owned like any other UploadedFile.
 */
export async function uploadFromBuffer(
  bytes: Uint8Array,
  filename = "upload",
  mimeType = "application/octet-stream",
): Promise<UploadedFile> {
  await fsp.mkdir(uploadsTempDir(), { recursive: true, mode: 0o700 });
  const filePath = newTempUploadPath();
  await fsp.writeFile(filePath, bytes, { flag: "wx", mode: 0o600 });
  return uploadedFile(filePath, bytes.byteLength, filename, mimeType);
}

/** sha256 (hex) of an uploaded file's bytes, e.g. to tell a resent form from a new one. */
export async function fileDigest(file: Pick<UploadedFile, "path">): Promise<string> {
  const hash = crypto.createHash("sha256");
  await pipeline(fs.createReadStream(file.path), hash);
  return hash.digest("hex");
}

/** How old a temp upload must be before the sweep removes it: no request lives this long. */
export const TEMP_UPLOAD_MAX_AGE_MS = 10 * 60 * 1000;

/**
 * Removes temp upload files (`*.upload` under <UPLOADS_DIR>/.tmp/) last written more than
 * `olderThanMs` ago: the leftovers of a crash, or of a removal that failed. A file of a request in
 * progress is younger (the server ends a request after two minutes). Answers how many. Never throws.
 */
export async function sweepTempUploads(olderThanMs = TEMP_UPLOAD_MAX_AGE_MS): Promise<number> {
  const dir = uploadsTempDir();
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith(".upload")) continue;
    const file = path.join(dir, name);
    try {
      if ((await fsp.stat(file)).mtimeMs >= cutoff) continue;
      await fsp.rm(file, { force: true });
      removed++;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") console.error(`[images] could not sweep ${file}`, error);
    }
  }
  return removed;
}
