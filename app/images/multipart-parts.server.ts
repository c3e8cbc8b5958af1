import fs from "node:fs";
import fsp from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { photoUploadWait } from "~/lib/limits.server";
import { Transform } from "node:stream";
import { IMAGE_FIELD, MULTIPART_MESSAGES, type MultipartLimits, VIDEO_FIELD } from "./limits";
import { newTempUploadPath, uploadsTempDir } from "./temp-uploads.server";

// What busboy's events make of a multipart body's parts for parseMultipart
// (app/images/multipart.server.ts, docs/decisions/0050-multipart-with-busboy.md): text fields into
// `fields` (capped), each file part named `image` up to the last slot into a temp file, the rest
// read and thrown away, and every limit busboy reports as an error of the request.

/** One `image` or `video` file part being kept. `saving` settles when its bytes are on disk (or it was thrown away). */
export type Kept = {
  field: typeof IMAGE_FIELD | typeof VIDEO_FIELD;
  slot: number;
  path: string;
  filename: string;
  mimeType: string;
  size: number;
  tooBig: boolean;
  overLimit: boolean;
  saving: Promise<void>;
};

/** One parse in progress: the parser, what it found so far, and how it is going. */
export type Parse = {
  parser: busboy.Busboy;
  lim: MultipartLimits;
  maxFiles: number;
  /** The name of the file parts kept as photos: `image`, or (an archive's form) `archive`. */
  fileField: string;
  /** Most `video` parts kept (0: none; clips are then read and thrown away). */
  maxVideos: number;
  /** `video` file parts so far, empty ones counted. */
  videoParts: number;
  /** A clip with bytes came past the last clip slot. */
  tooManyVideos: boolean;
  uploader: number | undefined;
  fields: Record<string, string>;
  errors: Record<string, string[]>;
  kept: Kept[];
  /** `image` file parts so far, empty ones counted. */
  parts: number;
  /** A file with bytes came past the last slot: one photo too many. */
  tooMany: boolean;
  /** The request as a whole is refused (too many parts, too large, malformed): no file is kept. */
  fatal: boolean;
  /** Our own trouble (temp directory or disk): parsing stops, the body is still drained, and parseMultipart rejects with it (a 500, not the client's fault). */
  serverError: unknown;
  /** false once the parser is done for (failed, destroyed, over the body limit): the rest of the body is then read and thrown away. */
  feeding: boolean;
  parserError: unknown;
  /**
   * The uploader's hourly photo limit (app/lib/limits.server.ts): asked when the first photo
   * arrives, before a byte of it is saved; the photos kept are counted once the body is read, so a
   * refused upload is never decoded.
   */
  photoLimitWaitMs: number;
  /** The temp directory made and the photo limit asked, once, when the first file arrives. */
  ready: Promise<unknown> | null;
  /** Settles when the parser is done (rejects when it failed). */
  parsed: Promise<void>;
};

const UNSAFE_NAMES = new Set(["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"]);

export function addError(errors: Record<string, string[]>, key: string, message: string) {
  const list = (errors[key] ??= []);
  if (!list.includes(message)) list.push(message);
}

export function fail(p: Parse, message: string) {
  p.fatal = true;
  addError(p.errors, "message", message);
}

/**
 * A parse of a body of `contentType` with its handlers in place, or null when busboy cannot read
 * that type (multipart without a boundary).
 */
export function startParsing(
  contentType: string,
  lim: MultipartLimits,
  opts: { maxFiles?: number; maxVideos?: number; uploader?: number; fileField?: string },
): Parse | null {
  const maxVideos = lim.maxVideoBytes ? (opts.maxVideos ?? 0) : 0;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: {
        // busboy reports "limit" when a file reaches fileSize bytes, so allow one byte more: a
        // file of exactly maxFileBytes is fine, and a truncated stream means "too big".
        // (a clip's larger limit, when the form takes clips, is busboy's; a photo's is kept below)
        fileSize: Math.max(lim.maxFileBytes, maxVideos ? (lim.maxVideoBytes ?? 0) : 0) + 1,
        parts: lim.maxParts,
        fields: lim.maxParts,
        files: lim.maxParts,
        fieldSize: lim.maxFieldBytes,
        fieldNameSize: 200,
        headerPairs: 50,
      },
    });
  } catch {
    return null;
  }
  const p: Parse = {
    parser,
    lim,
    maxFiles: opts.maxFiles ?? 1,
    fileField: opts.fileField ?? IMAGE_FIELD,
    maxVideos,
    videoParts: 0,
    tooManyVideos: false,
    uploader: opts.uploader,
    fields: {},
    errors: {},
    kept: [],
    parts: 0,
    tooMany: false,
    fatal: false,
    serverError: null,
    feeding: true,
    parserError: null,
    photoLimitWaitMs: 0,
    ready: null,
    parsed: new Promise<void>((resolve, reject) => {
      parser.once("finish", resolve);
      parser.once("error", reject);
      parser.once("close", resolve);
    }),
  };
  p.parsed.catch(() => {});
  parser.on("field", (name, value, info) => onField(p, name, value, info));
  parser.on("file", (name, stream, info) => onFile(p, name, stream, info));
  parser.on("partsLimit", () => fail(p, MULTIPART_MESSAGES.tooManyParts));
  parser.on("filesLimit", () => fail(p, MULTIPART_MESSAGES.tooManyParts));
  parser.on("fieldsLimit", () => fail(p, MULTIPART_MESSAGES.tooManyParts));
  parser.once("error", (error) => {
    p.parserError = error;
    p.feeding = false;
  });
  return p;
}

function onField(p: Parse, name: string, value: string, info: busboy.FieldInfo) {
  if (name === p.fileField || name === IMAGE_FIELD || name === VIDEO_FIELD) return; // clients send "null" here when no file is chosen
  if (UNSAFE_NAMES.has(name)) return; // never real fields; would clash with Object.prototype
  if (info.valueTruncated) {
    addError(p.errors, name, MULTIPART_MESSAGES.fieldTooLong);
    return;
  }
  if (info.nameTruncated) return;
  if (!Object.hasOwn(p.fields, name)) p.fields[name] = value;
}

function onFile(p: Parse, name: string, stream: Readable, info: busboy.FileInfo) {
  if (name === VIDEO_FIELD) {
    const slot = ++p.videoParts;
    if (slot > p.maxVideos && p.maxVideos > 0) stream.once("data", () => (p.tooManyVideos = true));
    if (slot > p.maxVideos || p.fatal || p.serverError) stream.resume();
    else keep(p, VIDEO_FIELD, slot, stream, info);
    return;
  }
  const slot = name === p.fileField ? ++p.parts : 0;
  // past the last slot: a file with bytes there is one photo too many
  if (slot > p.maxFiles && p.maxFiles > 1) stream.once("data", () => (p.tooMany = true));
  if (name !== p.fileField || slot > p.maxFiles || p.fatal || p.serverError) {
    stream.resume(); // read and discard
    return;
  }
  keep(p, IMAGE_FIELD, slot, stream, info);
}

/** Starts saving a file part to its temp file. */
function keep(p: Parse, field: Kept["field"], slot: number, stream: Readable, info: busboy.FileInfo) {
  const entry: Kept = {
    field,
    slot,
    path: newTempUploadPath(),
    filename: info.filename ?? "",
    mimeType: info.mimeType ?? "",
    size: 0,
    tooBig: false,
    overLimit: false,
    saving: Promise.resolve(),
  };
  p.kept.push(entry);
  stream.on("limit", () => {
    entry.tooBig = true;
  });
  const { uploader } = p;
  p.ready ??= Promise.all([
    fsp.mkdir(uploadsTempDir(), { recursive: true, mode: 0o700 }),
    uploader === undefined ? 0 : photoUploadWait(uploader, 0).then((wait) => void (p.photoLimitWaitMs = wait)),
  ]);
  // The stream stays paused (backpressure reaches the parser) until the directory exists.
  entry.saving = save(p, entry, stream, p.ready);
  // Observed by `settle`; avoid an unhandled rejection in the meantime.
  entry.saving.catch(() => {});
}

/** Writes one file part to its temp file, once `ready`; rejects when either side failed. */
async function save(p: Parse, entry: Kept, stream: Readable, ready: Promise<unknown>): Promise<void> {
  // which side failed first: the incoming part (client) or our file (server)
  let firstFailure: "source" | "destination" | null = null;
  stream.once("error", () => (firstFailure ??= "source"));
  try {
    await ready;
    if (p.photoLimitWaitMs) {
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
    const max = entry.field === VIDEO_FIELD ? (p.lim.maxVideoBytes ?? 0) : p.lim.maxFileBytes;
    // `saving` settles only once our file is closed, and the file is removed only after that:
    // a file still being opened (the client went away just then) never appears after its removal
    const outClosed = new Promise<void>((resolve) => out.once("close", () => resolve()));
    out.once("error", () => (firstFailure ??= "destination"));
    try {
      await pipeline(stream, capped(max, entry), out);
    } finally {
      if (!out.closed) out.destroy();
      await outClosed;
    }
    entry.size = out.bytesWritten;
  } catch (error) {
    if (firstFailure !== "source") {
      p.serverError ??= error;
      p.feeding = false;
      // a destroyed file stream never ends, and busboy would wait for it forever
      p.parser.destroy();
    }
    stream.resume();
    throw error;
  }
}

/**
 * Passes a part's bytes on up to `max`, then marks it too big and drops the rest (still read, so the
 * parser goes on): busboy's own limit is the largest of a form's parts (a clip's), not a photo's.
 */
function capped(max: number, entry: Kept): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) entry.tooBig = true;
      done(null, entry.tooBig ? undefined : chunk);
    },
  });
}
