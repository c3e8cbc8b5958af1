import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import busboy from "busboy";
import { config } from "~/lib/config.server";
import {
  IMAGE_FIELD,
  IMAGE_MESSAGES,
  MULTIPART_MESSAGES,
  photoLimitMessage,
  UPLOAD_LIMITS,
  type MultipartLimits,
} from "./limits";
import { photoUploadWait } from "~/lib/limits.server";
import { isBodyTooLarge } from "~/lib/request-state";

// Streaming multipart/form-data parsing for the forms that carry a photo (profile picture, kid,
// moment). The body is never held in memory: text fields are small and capped, and the one file
// part named `image` streams straight to a temporary file under <UPLOADS_DIR>/.tmp/. Everything a
// client can get wrong (too big, too many parts, malformed body, wrong content type) becomes an
// entry in `errors`, never an exception, so a route answers 400 and never 500 for bad input.
// Only our own trouble (the temp directory cannot be written) rejects.
//
// Temp files never outlive their request: every one is also registered with the request's upload
// scope (`withUploadScope`, installed as a root middleware by app/web/uploads.server.ts), which
// removes whatever is left when the request ends, and `sweepTempUploads` (run on a timer by
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

/** One kept file part named `image`: the file and its slot (1-based: the n-th `image` part, empty ones counted). */
export type SlotFile = { file: UploadedFile; slot: number };

export type MultipartResult = {
  /** Text fields; the first value wins when a name repeats. A text part named `image` is ignored. */
  fields: Record<string, string>;
  /** The first kept `image` file, or null when none (or an empty one) was sent or it was refused. */
  file: UploadedFile | null;
  /** Every kept `image` file in order (at most `maxFiles`; `file` is the first). */
  files: SlotFile[];
  /**
   * Problems, by field: `image` (file too big), a text field's name (value too long), and
   * `message` for the request as a whole (not multipart, malformed, too large, too many parts).
   * Empty when all is well. When `file` is non-null there is no `image` error.
   */
  errors: Record<string, string[]>;
  /**
   * 0, or (the uploader is past the hourly photo limit) the milliseconds until they may upload
   * again: then no file is kept and `errors.message` says so (answered 429).
   */
  photoLimitWaitMs: number;
};

export function uploadsTempDir(): string {
  return path.join(config().uploadsDir, ".tmp");
}

function tempFileName(): string {
  return `${crypto.randomBytes(16).toString("hex")}.upload`;
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

function inScope(file: string): string {
  uploadScope.getStore()?.add(file);
  return file;
}

async function removeQuietly(file: string): Promise<void> {
  try {
    await fsp.rm(file, { force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return; // its directory is not even there
    console.error(`[images] could not remove temporary file ${file}`, error);
  }
}

function uploadedFile(filePath: string, size: number, filename: string, mimeType: string): UploadedFile {
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
  const dir = uploadsTempDir();
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const filePath = inScope(path.join(dir, tempFileName()));
  await fsp.writeFile(filePath, bytes, { flag: "wx", mode: 0o600 });
  return uploadedFile(filePath, bytes.byteLength, filename, mimeType);
}

const UNSAFE_NAMES = new Set(["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"]);

function addError(errors: Record<string, string[]>, key: string, message: string) {
  const list = (errors[key] ??= []);
  if (!list.includes(message)) list.push(message);
}

/**
 * Reads a multipart/form-data request as a stream: text fields into memory (capped), the first
 * file part named `image` into a temporary file, other file parts discarded unread.
 *
 * Never throws for anything the client sent (see `MultipartResult.errors`); rejects only for
 * server trouble (the temp directory cannot be written), after draining the body and removing
 * the partial file. Typical use:
 *
 * ```ts
 * const { fields, file, errors } = await parseMultipart(request);
 * try {
 *   // validate fields; merge `errors` into the field errors; then
 *   // withNewImage(file, …) (which consumes `file`) …
 * } finally {
 *   await file?.discard(); // harmless after withNewImage
 * }
 * ```
 */
/** The field an error of slot `slot`'s file is reported on: `image` for the first, `image_<n>` after. */
export function slotErrorField(slot: number): string {
  return slot === 1 ? IMAGE_FIELD : `${IMAGE_FIELD}_${slot}`;
}

export async function parseMultipart(
  request: Request,
  limits: Partial<MultipartLimits> = {},
  opts: { maxFiles?: number; uploader?: number } = {},
): Promise<MultipartResult> {
  const lim: MultipartLimits = { ...UPLOAD_LIMITS, ...limits };
  const maxFiles = opts.maxFiles ?? 1;
  const { uploader } = opts;
  // the uploader's hourly photo limit (app/lib/limits.server.ts): asked when the first photo
  // arrives, before a byte of it is saved; the photos kept are counted once the body is read, so a
  // refused upload is never decoded
  let photoLimitWaitMs = 0;
  const files: SlotFile[] = [];
  const fields: Record<string, string> = {};
  const errors: Record<string, string[]> = {};

  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !request.body) {
    await drain(request.body, lim.maxDrainBytes);
    addError(errors, "message", MULTIPART_MESSAGES.notMultipart);
    return { fields, file: null, files, errors, photoLimitWaitMs };
  }

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: {
        // busboy reports "limit" when a file reaches fileSize bytes, so allow one byte more: a
        // file of exactly maxFileBytes is fine, and a truncated stream means "too big".
        fileSize: lim.maxFileBytes + 1,
        parts: lim.maxParts,
        fields: lim.maxParts,
        files: lim.maxParts,
        fieldSize: lim.maxFieldBytes,
        fieldNameSize: 200,
        headerPairs: 50,
      },
    });
  } catch {
    // e.g. multipart without a boundary
    await drain(request.body, lim.maxDrainBytes);
    addError(errors, "message", MULTIPART_MESSAGES.malformed);
    return { fields, file: null, files, errors, photoLimitWaitMs };
  }

  let fatal = false;
  const fail = (message: string) => {
    fatal = true;
    addError(errors, "message", message);
  };
  // Our own trouble (temp directory or disk): parsing stops, the body is still drained, and
  // parseMultipart rejects with it at the end (a 500, not the client's fault).
  let serverError: unknown = null;
  // false once the parser is done for (failed, destroyed, over the body limit): the rest of the
  // body is then read and thrown away.
  let feeding = true;
  let parserError: unknown = null;

  // The one file we keep. `saving` settles when its bytes are on disk (or it was thrown away).
  type Kept = {
    slot: number;
    path: string;
    filename: string;
    mimeType: string;
    size: number;
    tooBig: boolean;
    overLimit: boolean;
    saving: Promise<void>;
  };
  const state: { kept: Kept[]; parts: number; tooMany: boolean } = { kept: [], parts: 0, tooMany: false };
  let tempDirReady: Promise<string | undefined> | null = null;

  parser.on("field", (name, value, info) => {
    if (name === IMAGE_FIELD) return; // clients send "null" here when no file is chosen
    if (UNSAFE_NAMES.has(name)) return; // never real fields; would clash with Object.prototype
    if (info.valueTruncated) {
      addError(errors, name, MULTIPART_MESSAGES.fieldTooLong);
      return;
    }
    if (info.nameTruncated) return;
    if (!Object.hasOwn(fields, name)) fields[name] = value;
  });

  parser.on("file", (name, stream: Readable, info) => {
    const slot = name === IMAGE_FIELD ? ++state.parts : 0;
    if (slot > maxFiles && maxFiles > 1) {
      // past the last slot: a file with bytes there is one photo too many
      stream.once("data", () => (state.tooMany = true));
    }
    if (name !== IMAGE_FIELD || slot > maxFiles || fatal || serverError) {
      stream.resume(); // read and discard
      return;
    }
    const entry: Kept = {
      slot,
      path: inScope(path.join(uploadsTempDir(), tempFileName())),
      filename: info.filename ?? "",
      mimeType: info.mimeType ?? "",
      size: 0,
      tooBig: false,
      overLimit: false,
      saving: Promise.resolve(),
    };
    state.kept.push(entry);
    stream.on("limit", () => {
      entry.tooBig = true;
    });
    tempDirReady ??= Promise.all([
      fsp.mkdir(uploadsTempDir(), { recursive: true, mode: 0o700 }),
      uploader === undefined ? 0 : photoUploadWait(uploader, 0).then((wait) => void (photoLimitWaitMs = wait)),
    ]).then(([made]) => made);
    const dirReady = tempDirReady;
    // The stream stays paused (backpressure reaches the parser) until the directory exists.
    entry.saving = (async () => {
      // which side failed first: the incoming part (client) or our file (server)
      let firstFailure: "source" | "destination" | null = null;
      stream.once("error", () => (firstFailure ??= "source"));
      try {
        await dirReady;
        if (photoLimitWaitMs) {
          // past the hourly limit: read and thrown away, never saved (its size only tells whether
          // a photo came at all: browsers send an empty part for a file input left empty)
          entry.overLimit = true;
          stream.on("data", (chunk: Buffer) => (entry.size += chunk.length));
          stream.resume();
          return;
        }
        if (stream.destroyed || stream.errored) {
          // the part broke (the client went away) while the directory was being made: no file at all
          firstFailure ??= "source";
          throw stream.errored ?? new Error("upload part ended early");
        }
        const out = fs.createWriteStream(entry.path, { flags: "wx", mode: 0o600 });
        // `saving` settles only once our file is closed, and the file is removed only after that:
        // a file still being opened (the client went away just then) never appears after its removal
        const outClosed = new Promise<void>((resolve) => out.once("close", () => resolve()));
        out.once("error", () => (firstFailure ??= "destination"));
        try {
          await pipeline(stream, out);
        } finally {
          if (!out.closed) out.destroy();
          await outClosed;
        }
        entry.size = out.bytesWritten;
      } catch (error) {
        if (firstFailure !== "source") {
          serverError ??= error;
          feeding = false;
          // a destroyed file stream never ends, and busboy would wait for it forever
          parser.destroy();
        }
        stream.resume();
        throw error;
      }
    })();
    // Observed below; avoid an unhandled rejection in the meantime.
    entry.saving.catch(() => {});
  });

  parser.on("partsLimit", () => fail(MULTIPART_MESSAGES.tooManyParts));
  parser.on("filesLimit", () => fail(MULTIPART_MESSAGES.tooManyParts));
  parser.on("fieldsLimit", () => fail(MULTIPART_MESSAGES.tooManyParts));

  const parsed = new Promise<void>((resolve, reject) => {
    parser.once("finish", resolve);
    parser.once("error", reject);
    parser.once("close", resolve);
  });
  parsed.catch(() => {});
  parser.once("error", (error) => {
    parserError = error;
    feeding = false;
  });

  // Feed the parser by hand so we can count bytes, stop parsing past maxBodyBytes and keep
  // draining after a failure.
  let received = 0;
  const stopAtLimit = () => {
    feeding = false;
    if (!errors[IMAGE_FIELD]) fail(MULTIPART_MESSAGES.bodyTooBig);
    parser.destroy();
  };
  const reader = request.body.getReader();
  let readFailed = false;
  // the server stopped the body at its limit (server/index.mjs): as if past maxBodyBytes here
  let cutByServer = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > lim.maxDrainBytes) {
        await reader.cancel().catch(() => {});
        break;
      }
      if (!feeding || parser.destroyed) continue;
      if (received > lim.maxBodyBytes) {
        stopAtLimit();
        continue;
      }
      if (!parser.write(value)) {
        // 'drain', or the parser ended/failed (then 'drain' never comes)
        await Promise.race([once(parser, "drain").catch(() => {}), parsed.catch(() => {})]);
      }
    }
  } catch (error) {
    if (isBodyTooLarge(error)) cutByServer = true;
    else readFailed = true; // the client went away or the body stream broke
  } finally {
    reader.releaseLock();
  }

  if (cutByServer && feeding && !parser.destroyed) {
    stopAtLimit();
  } else if (readFailed) {
    fail(MULTIPART_MESSAGES.malformed);
    parser.destroy();
  } else if (feeding && !parser.destroyed) {
    parser.end();
  }

  try {
    await parsed;
  } catch {
    parserError ??= new Error("multipart parse failed");
  }
  if (parserError && !fatal && !serverError && !errors[IMAGE_FIELD]) fail(MULTIPART_MESSAGES.malformed);

  for (const entry of state.kept) {
    const key = slotErrorField(entry.slot);
    let saved = true;
    try {
      await entry.saving;
    } catch {
      saved = false;
    }
    if (entry.overLimit) continue;
    if (entry.tooBig) {
      addError(errors, key, MULTIPART_MESSAGES.imageTooBig);
      await removeQuietly(entry.path);
    } else if (!saved || fatal || serverError) {
      if (!saved && !fatal && !serverError) fail(MULTIPART_MESSAGES.malformed);
      await removeQuietly(entry.path);
    } else if (entry.size === 0) {
      await removeQuietly(entry.path);
      // browsers send an empty part without a file name when no file was chosen; an empty file
      // that was chosen is no image
      if (entry.filename) addError(errors, key, IMAGE_MESSAGES.notAnImage);
    } else {
      files.push({ file: uploadedFile(entry.path, entry.size, entry.filename, entry.mimeType), slot: entry.slot });
    }
  }
  if (state.tooMany) addError(errors, IMAGE_FIELD, MULTIPART_MESSAGES.tooManyPhotos);
  if (serverError) {
    await Promise.all(files.map((f) => f.file.discard()));
    throw serverError;
  }
  // at the limit but no photo came (only empty file inputs): nothing to refuse
  if (photoLimitWaitMs && !state.kept.some((e) => e.overLimit && e.size > 0)) photoLimitWaitMs = 0;
  if (uploader !== undefined && !photoLimitWaitMs && files.length)
    photoLimitWaitMs = await photoUploadWait(uploader, files.length);
  if (photoLimitWaitMs) {
    await Promise.all(files.map((f) => f.file.discard()));
    files.length = 0;
    addError(errors, "message", photoLimitMessage(config().photoUploadsPerHour, photoLimitWaitMs));
  }
  const file = files[0]?.file ?? null;
  return { fields, file, files, errors, photoLimitWaitMs };
}

/** Reads and discards a body (up to `max` bytes), so the client sees our answer. */
async function drain(body: ReadableStream<Uint8Array> | null, max: number): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > max) {
        await reader.cancel().catch(() => {});
        return;
      }
    }
  } catch {
    // nothing to do
  } finally {
    reader.releaseLock();
  }
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
