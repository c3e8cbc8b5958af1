import { once } from "node:events";
import { config } from "~/lib/config.server";
import { photoUploadWait } from "~/lib/limits.server";
import { isBodyTooLarge } from "~/lib/request-state";
import {
  IMAGE_FIELD,
  IMAGE_MESSAGES,
  MULTIPART_MESSAGES,
  type MultipartLimits,
  photoLimitMessage,
  UPLOAD_LIMITS,
  VIDEO_FIELD,
} from "./limits";
import { VIDEO_MESSAGES } from "~/video/limits";
import { addError, fail, type Kept, type Parse, startParsing } from "./multipart-parts.server";
import { removeQuietly, type UploadedFile, uploadedFile } from "./temp-uploads.server";

// Streaming multipart/form-data parsing for the forms that carry a photo (profile picture, kid,
// moment), with busboy (docs/decisions/0050-multipart-with-busboy.md). The body is never held in
// memory: text fields are small and capped, and each file part named `image` streams straight to a
// temporary file (multipart-parts.server.ts handles the parts, temp-uploads.server.ts the files). Everything a client can get wrong (too big, too many
// parts, malformed body, wrong content type) becomes an entry in `errors`, never an exception, so a
// route answers 400 and never 500 for bad input. Only our own trouble (the temp directory cannot be
// written) rejects.

// The temp files' side, for the modules that have always imported it from here.
export {
  fileDigest,
  sweepTempUploads,
  TEMP_UPLOAD_MAX_AGE_MS,
  type UploadedFile,
  uploadFromBuffer,
  uploadsTempDir,
  withUploadScope,
} from "./temp-uploads.server";

/** One kept file part named `image`: the file and its slot (1-based: the n-th `image` part, empty ones counted). */
export type SlotFile = { file: UploadedFile; slot: number };

export type MultipartResult = {
  /** Text fields; the first value wins when a name repeats. A text part named `image` is ignored. */
  fields: Record<string, string>;
  /** The first kept `image` file, or null when none (or an empty one) was sent or it was refused. */
  file: UploadedFile | null;
  /** Every kept `image` file in order (at most `maxFiles`; `file` is the first). */
  files: SlotFile[];
  /** Every kept `video` file in order (at most `maxVideos`, only when the limits take clips). */
  videos: SlotFile[];
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

/** The field an error of slot `slot`'s file is reported on: `image` for the first, `image_<n>` after (`video`, `video_<n>` for clips). */
export function slotErrorField(slot: number, field: string = IMAGE_FIELD): string {
  return slot === 1 ? field : `${field}_${slot}`;
}

/**
 * Reads a multipart/form-data request as a stream: text fields into memory (capped), the file parts
 * named `image` (up to `maxFiles`) into temporary files, other file parts discarded unread.
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
export async function parseMultipart(
  request: Request,
  limits: Partial<MultipartLimits> = {},
  opts: { maxFiles?: number; maxVideos?: number; uploader?: number; fileField?: string } = {},
): Promise<MultipartResult> {
  const lim: MultipartLimits = { ...UPLOAD_LIMITS, ...limits };
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !request.body) {
    return refused(request.body, lim, MULTIPART_MESSAGES.notMultipart);
  }
  const p = startParsing(contentType, lim, opts);
  // e.g. multipart without a boundary
  if (!p) return refused(request.body, lim, MULTIPART_MESSAGES.malformed);
  await feed(request.body, p);
  await p.parsed.catch(() => (p.parserError ??= new Error("multipart parse failed")));
  if (p.parserError && !p.fatal && !p.serverError && !p.errors[IMAGE_FIELD]) fail(p, MULTIPART_MESSAGES.malformed);

  const settled = await settle(p);
  const files = settled.filter((f) => f.field === IMAGE_FIELD).map(({ file, slot }) => ({ file, slot }));
  const videos = settled.filter((f) => f.field === VIDEO_FIELD).map(({ file, slot }) => ({ file, slot }));
  if (p.tooMany) addError(p.errors, IMAGE_FIELD, MULTIPART_MESSAGES.tooManyPhotos);
  if (p.tooManyVideos) addError(p.errors, VIDEO_FIELD, MULTIPART_MESSAGES.tooManyVideos);
  if (p.serverError) {
    await Promise.all(settled.map((f) => f.file.discard()));
    throw p.serverError;
  }
  const photoLimitWaitMs = await photoLimitWait(p, files, videos);
  return { fields: p.fields, file: files[0]?.file ?? null, files, videos, errors: p.errors, photoLimitWaitMs };
}

async function refused(
  body: ReadableStream<Uint8Array> | null,
  lim: MultipartLimits,
  message: string,
): Promise<MultipartResult> {
  await drain(body, lim.maxDrainBytes);
  return { fields: {}, file: null, files: [], videos: [], errors: { message: [message] }, photoLimitWaitMs: 0 };
}

/**
 * Feeds the body to the parser by hand, to stop parsing past maxBodyBytes and keep reading (and
 * throwing away) after a failure, up to maxDrainBytes, so the client sees our answer.
 */
async function feed(body: ReadableStream<Uint8Array>, p: Parse): Promise<void> {
  const { parser, lim } = p;
  const stopAtLimit = () => {
    p.feeding = false;
    if (!p.errors[IMAGE_FIELD]) fail(p, MULTIPART_MESSAGES.bodyTooBig);
    parser.destroy();
  };
  try {
    await readUpTo(body, lim.maxDrainBytes, (chunk, received) => {
      if (!p.feeding || parser.destroyed) return;
      if (received > lim.maxBodyBytes) {
        stopAtLimit();
        return;
      }
      // 'drain', or the parser ended/failed (then 'drain' never comes)
      if (!parser.write(chunk)) return Promise.race([once(parser, "drain").catch(() => {}), p.parsed.catch(() => {})]);
    });
  } catch (error) {
    // the server stopped the body at its limit (server/index.mjs): as if past maxBodyBytes here
    if (isBodyTooLarge(error)) {
      if (p.feeding && !parser.destroyed) stopAtLimit();
      return;
    }
    // the client went away or the body stream broke
    fail(p, MULTIPART_MESSAGES.malformed);
    parser.destroy();
    return;
  }
  if (p.feeding && !parser.destroyed) parser.end();
}

/**
 * Reads `body` to its end or to `max` bytes (then cancels it), handing each chunk and the bytes so
 * far to `onChunk` (awaited when it answers a promise). Rejects when the body breaks.
 */
async function readUpTo(
  body: ReadableStream<Uint8Array>,
  max: number,
  onChunk: (chunk: Uint8Array, received: number) => Promise<unknown> | undefined,
): Promise<void> {
  const reader = body.getReader();
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      received += value.byteLength;
      if (received > max) {
        await reader.cancel().catch(() => {});
        return;
      }
      const pending = onChunk(value, received);
      if (pending) await pending;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Reads and discards a body (up to `max` bytes), so the client sees our answer. */
async function drain(body: ReadableStream<Uint8Array> | null, max: number): Promise<void> {
  if (body) await readUpTo(body, max, () => undefined).catch(() => {});
}

/** The kept parts once the body is read: the saved files, the others removed (with their error). */
async function settle(p: Parse): Promise<(SlotFile & { field: Kept["field"] })[]> {
  const files: (SlotFile & { field: Kept["field"] })[] = [];
  for (const entry of p.kept) {
    const key = slotErrorField(entry.slot, entry.field);
    const isVideo = entry.field === VIDEO_FIELD;
    const saved = await entry.saving.then(
      () => true,
      () => false,
    );
    if (entry.overLimit) continue;
    if (entry.tooBig) {
      const mb = Math.round((p.lim.maxVideoBytes ?? 0) / (1024 * 1024));
      addError(p.errors, key, isVideo ? VIDEO_MESSAGES.tooBig(mb) : MULTIPART_MESSAGES.imageTooBig);
      await removeQuietly(entry.path);
    } else if (!saved || p.fatal || p.serverError) {
      if (!saved && !p.fatal && !p.serverError) fail(p, MULTIPART_MESSAGES.malformed);
      await removeQuietly(entry.path);
    } else if (entry.size === 0) {
      await removeQuietly(entry.path);
      // browsers send an empty part without a file name when no file was chosen; an empty file
      // that was chosen is no image
      if (entry.filename) addError(p.errors, key, isVideo ? VIDEO_MESSAGES.notAVideo : IMAGE_MESSAGES.notAnImage);
    } else {
      const file = uploadedFile(entry.path, entry.size, entry.filename, entry.mimeType);
      files.push({ file, slot: entry.slot, field: entry.field });
    }
  }
  return files;
}

/**
 * 0, or the wait past the uploader's hourly limit (photos and clips count alike): then every file is
 * dropped and `errors.message` says so.
 */
async function photoLimitWait(p: Parse, files: SlotFile[], videos: SlotFile[]): Promise<number> {
  let wait = p.photoLimitWaitMs;
  // at the limit but no photo came (only empty file inputs): nothing to refuse
  if (wait && !p.kept.some((e) => e.overLimit && e.size > 0)) wait = 0;
  const count = files.length + videos.length;
  if (p.uploader !== undefined && !wait && count) wait = await photoUploadWait(p.uploader, count);
  if (wait) {
    await Promise.all([...files, ...videos].map((f) => f.file.discard()));
    files.length = 0;
    videos.length = 0;
    addError(p.errors, "message", photoLimitMessage(config().photoUploadsPerHour, wait));
  }
  return wait;
}
