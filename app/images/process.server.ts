import os from "node:os";
import fsp from "node:fs/promises";
import type { Metadata, OutputInfo, Sharp, SharpOptions } from "sharp";
import { IMAGE_MESSAGES, MAX_PIXELS, ORIGINAL_MAX_EDGE } from "./limits";
import { invalidField, type Refusal, type Result } from "~/models/refusal";
import { decodeHeic } from "./heic.server";
import { loadSharp } from "./sharp.server";

// Checks, cleaning and derivatives for every uploaded photo.
//
// - Accepted only if the *content* is JPEG, PNG, WebP, GIF (first frame), AVIF or HEIC (decoded by
//   libheif in WebAssembly, app/images/heic.server.ts, then the same steps): magic bytes
//   first (so SVG, PDF, HTML, TIFF … never reach a decoder), then sharp's own header parse.
// - Pixel count checked from the header before any decoding, and enforced again by libvips
//   (`limitInputPixels`), so a decompression bomb cannot exhaust memory.
// - `failOn: "error"`: truncated or corrupt pixel data is rejected, not half-decoded.
// - EXIF orientation applied, colours converted to sRGB, and every byte of metadata dropped (the
//   pixels go through a raw buffer, which carries none: no GPS, camera, dates, comments, ICC).
// - WebP derivatives at 160/320/640/1280 px wide, never upscaled, plus a ~16 px placeholder.
// - A moment's photo also keeps a full-size copy (`keepOriginal`): JPEG at the upright photo's own
//   pixel size, at most ORIGINAL_MAX_EDGE on its long side, from the same checked, upright, sRGB
//   decode and with no metadata at all (docs/decisions/0063-full-size-originals.md).
//
// Cost: the file is decoded once, straight to the largest derivative size (JPEG shrink-on-load
// does most of the work), and the smaller sizes are made from that small raw buffer. At most
// MAX_PARALLEL_JOBS photos are processed at once and each job runs its steps one after another,
// so uploads never occupy more than that many libuv threads (which sqlite3 and fs share).

/** Widths of the derivatives; smaller originals stop at their own width. */
export const DERIVATIVE_WIDTHS = [160, 320, 640, 1280] as const;
/** Very tall images are scaled so no derivative is taller than this (WebP's limit is 16383). */
export const MAX_DERIVATIVE_HEIGHT = 8192;
const PLACEHOLDER_WIDTH = 16;
const PLACEHOLDER_MAX_HEIGHT = 48;
/**
 * WebP settings. effort 2 (libwebp "method" 2) encodes 2–3× faster than the default 4 for files
 * within a few percent of the same size at the same quality; the 1280 px encode is the most
 * expensive step of the whole upload.
 */
const WEBP = { quality: 80, effort: 2 } as const;
const PLACEHOLDER_WEBP = { quality: 40, effort: 4 } as const;
const SHARP_TIMEOUT_SECONDS = 30;
/** JPEG for the full-size copy: every photo app opens it; quality 90 keeps it close to the camera's. */
const ORIGINAL_JPEG = { quality: 90 } as const;

export type AcceptedFormat = "jpeg" | "png" | "webp" | "gif" | "avif" | "heic";

/** One WebP file to write. */
export type Derivative = { width: number; height: number; data: Buffer };

export type ProcessedImage = {
  format: AcceptedFormat;
  /** The largest derivative's size (upright, after EXIF orientation). */
  width: number;
  height: number;
  /** Derivative widths, ascending; `derivatives` in the same order. */
  widths: number[];
  derivatives: Derivative[];
  /** Tiny blurred WebP as a `data:image/webp;base64,…` URI. */
  placeholder: string;
  /** The full-size JPEG, when asked for (`keepOriginal`). */
  original?: Derivative;
};

/** The processed photo, or why it is refused (invalid, its message for the `image` field). */
export type ProcessResult = Result<{ image: ProcessedImage }>;

/** The user's fault: refused with `message` for the `image` field. */
export function imageRefusal(message: string): Refusal {
  return invalidField("image", message);
}

// ---- sniffing -----------------------------------------------------------------------------

type Sniffed = AcceptedFormat | null;

const HEIC_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "mif2"]);
const AVIF_BRANDS = new Set(["avif", "avis"]);

/** What the first bytes say the file is. Only our five formats (and HEIC, to say so) count. */
export function sniffFormat(head: Uint8Array): Sniffed {
  const b = head;
  const ascii = (start: number, end: number) => String.fromCharCode(...b.subarray(start, end));
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 8 && ascii(0, 8) === "\x89PNG\r\n\x1a\n") return "png";
  if (b.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "gif";
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  if (b.length >= 16 && ascii(4, 8) === "ftyp") {
    const boxSize = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
    const end = Math.min(b.length, Math.max(boxSize, 16));
    const brands = [ascii(8, 12)];
    for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(i, i + 4));
    if (brands.some((x) => AVIF_BRANDS.has(x))) return "avif";
    if (brands.some((x) => HEIC_BRANDS.has(x))) return "heic";
  }
  return null;
}

async function readHead(filePath: string, bytes = 64): Promise<Uint8Array> {
  const fh = await fsp.open(filePath, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

// ---- a small job queue ---------------------------------------------------------------------

/**
 * How many photos are decoded and encoded at the same time (each holds one libuv thread while it
 * runs). A photo over BIG_IMAGE_PIXELS (a PNG cannot be decoded at reduced size the way a JPEG
 * can, so it needs more memory) runs alone.
 */
export const MAX_PARALLEL_JOBS = Math.max(1, Math.min(2, os.availableParallelism()));
const BIG_IMAGE_PIXELS = 24_000_000;
let inUse = 0;
const waiting: { weight: number; start: () => void }[] = [];

function release(weight: number) {
  inUse -= weight;
  // first come, first served: a big job at the head is not overtaken by small ones
  while (waiting.length && inUse + waiting[0]!.weight <= MAX_PARALLEL_JOBS) {
    const next = waiting.shift()!;
    inUse += next.weight;
    next.start();
  }
}

async function inQueue<T>(weight: number, fn: () => Promise<T>): Promise<T> {
  const w = Math.min(Math.max(1, weight), MAX_PARALLEL_JOBS);
  if (waiting.length === 0 && inUse + w <= MAX_PARALLEL_JOBS) inUse += w;
  else await new Promise<void>((start) => waiting.push({ weight: w, start }));
  try {
    return await fn();
  } finally {
    release(w);
  }
}

// ---- the checks -----------------------------------------------------------------------------

const inputOptions = {
  failOn: "error",
  limitInputPixels: MAX_PIXELS,
  sequentialRead: true,
} satisfies SharpOptions;

type Inspected = {
  format: AcceptedFormat;
  width: number;
  height: number;
  orientedWidth: number;
  orientedHeight: number;
};

/**
 * Header-only checks (no pixel decoding): real JPEG/PNG/WebP/GIF/AVIF content, at most
 * MAX_PIXELS. Refused (with the user-facing message) otherwise.
 */
async function inspect(filePath: string): Promise<Result<Inspected>> {
  const notAnImage = imageRefusal(IMAGE_MESSAGES.notAnImage);
  let head: Uint8Array;
  try {
    head = await readHead(filePath);
  } catch {
    return notAnImage;
  }
  const sniffed = sniffFormat(head);
  if (!sniffed) return notAnImage;

  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(filePath, { ...inputOptions, limitInputPixels: false }).metadata();
  } catch {
    return notAnImage;
  }
  const format = acceptedFormat(meta);
  if (!format || format !== sniffed) return notAnImage;
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (!(width > 0 && height > 0)) return notAnImage;
  if (width * height > MAX_PIXELS) return imageRefusal(IMAGE_MESSAGES.tooManyPixels);
  const swap = (meta.orientation ?? 1) >= 5;
  return {
    ok: true,
    format,
    width,
    height,
    orientedWidth: swap ? height : width,
    orientedHeight: swap ? width : height,
  };
}

function acceptedFormat(meta: Metadata): AcceptedFormat | null {
  switch (meta.format) {
    case "jpeg":
    case "png":
    case "webp":
    case "gif":
      return meta.format;
    case "heif":
      if (meta.compression === "av1") return "avif";
      // HEVC-coded HEIF (iPhones): sharp reads the header; the pixels are decoded by
      // app/images/heic.server.ts (docs/decisions/0029-heic-photos.md)
      if (meta.compression === "hevc") return "heic";
      return null;
    default:
      return null;
  }
}

/**
 * Quick check of an upload without decoding its pixels: null when it looks acceptable, or the
 * refusal. Lets a form report an image problem together with its other field errors;
 * `processImage` still has the last word (it also catches corrupt pixel data).
 */
export async function checkImage(filePath: string): Promise<Refusal | null> {
  const inspected = await inspect(filePath);
  return inspected.ok ? null : inspected;
}

/** Derivative widths for an upright image `width` × `height` px: never upscaled, never too tall. */
export function derivativeWidths(width: number, height: number): number[] {
  const byHeight = Math.floor((width * MAX_DERIVATIVE_HEIGHT) / height);
  const largest = Math.max(1, Math.min(width, DERIVATIVE_WIDTHS[DERIVATIVE_WIDTHS.length - 1]!, byHeight));
  return [...DERIVATIVE_WIDTHS.filter((w) => w < largest), largest];
}

/**
 * Checks, cleans and resizes one uploaded file (see the top of this module). Does not touch the
 * file. Refused (invalid, with the user-facing message for the `image` field) for anything that is
 * not an acceptable photo; rejects only for server trouble.
 */
export async function processImage(filePath: string, opts: { keepOriginal?: boolean } = {}): Promise<ProcessResult> {
  const info = await inspect(filePath); // header only: cheap, outside the queue
  if (!info.ok) return info;
  const weight = info.width * info.height > BIG_IMAGE_PIXELS ? MAX_PARALLEL_JOBS : 1;
  return inQueue(weight, () => processNow(filePath, info, opts.keepOriginal ?? false));
}

/** The sharp input of a photo: the file, or (HEIC) its pixels decoded by libheif, already upright. */
async function sourceOf(
  filePath: string,
  info: Inspected,
): Promise<{ input: () => Sharp; width: number; height: number } | null> {
  const sharp = await loadSharp();
  if (info.format !== "heic") {
    const input = () => sharp(filePath, { ...inputOptions, autoOrient: true });
    return { input, width: info.orientedWidth, height: info.orientedHeight };
  }
  const raw = await decodeHeic(filePath);
  if (!raw || raw.width * raw.height > MAX_PIXELS) return null;
  const input = () =>
    sharp(raw.data, {
      raw: { width: raw.width, height: raw.height, channels: raw.channels },
      limitInputPixels: MAX_PIXELS,
    }).removeAlpha();
  return { input, width: raw.width, height: raw.height };
}

/**
 * The full-size copy: a second decode of the same input (upright, sRGB, checked as the first), at
 * its own size up to ORIGINAL_MAX_EDGE, transparency on white, JPEG. sharp writes no metadata unless
 * asked to (no EXIF, GPS, XMP, IPTC or ICC); the tests read the bytes to prove it.
 */
async function fullSize(input: Sharp): Promise<Derivative> {
  const out = await input
    .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
    .resize({ width: ORIGINAL_MAX_EDGE, height: ORIGINAL_MAX_EDGE, fit: "inside", withoutEnlargement: true })
    .flatten({ background: "#ffffff" })
    .toColourspace("srgb")
    .jpeg(ORIGINAL_JPEG)
    .toBuffer({ resolveWithObject: true });
  return { width: out.info.width, height: out.info.height, data: out.data };
}

async function processNow(filePath: string, info: Inspected, keepOriginal: boolean): Promise<ProcessResult> {
  const sharp = await loadSharp();
  const source = await sourceOf(filePath, info);
  if (!source) return imageRefusal(IMAGE_MESSAGES.notAnImage);
  const widths = derivativeWidths(source.width, source.height);
  const largest = widths[widths.length - 1]!;

  // Decode once, upright, in sRGB, 8 bits per channel, already at the largest derivative's width.
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    let pipeline = source.input().timeout({ seconds: SHARP_TIMEOUT_SECONDS });
    if (largest < source.width) pipeline = pipeline.resize({ width: largest });
    decoded = await pipeline.toColourspace("srgb").raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
  } catch (error) {
    if (isTimeout(error)) throw error;
    // corrupt or truncated pixel data, or a header that lied about its size
    return imageRefusal(IMAGE_MESSAGES.notAnImage);
  }
  const raw = {
    raw: { width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels },
  } as const;
  const fromRaw = () => sharp(decoded.data, raw).timeout({ seconds: SHARP_TIMEOUT_SECONDS });

  const derivatives: Derivative[] = [];
  for (const width of [...widths].reverse()) {
    const pipeline = width === decoded.info.width ? fromRaw() : fromRaw().resize({ width });
    const out = await pipeline.webp(WEBP).toBuffer({ resolveWithObject: true });
    derivatives.unshift({ width: out.info.width, height: out.info.height, data: out.data });
  }
  const tiny = await fromRaw()
    .resize({ width: PLACEHOLDER_WIDTH, height: PLACEHOLDER_MAX_HEIGHT, fit: "inside", withoutEnlargement: true })
    .webp(PLACEHOLDER_WEBP)
    .toBuffer();

  const top = derivatives[derivatives.length - 1]!;
  const image: ProcessedImage = {
    format: info.format,
    width: top.width,
    height: top.height,
    widths: derivatives.map((d) => d.width),
    derivatives,
    placeholder: `data:image/webp;base64,${tiny.toString("base64")}`,
  };
  // after the derivatives: pixel data that does not decode was refused before this costly step
  if (keepOriginal) {
    try {
      image.original = await fullSize(source.input());
    } catch (error) {
      if (isTimeout(error)) throw error;
      return imageRefusal(IMAGE_MESSAGES.notAnImage); // pixel data that only the full decode reaches
    }
  }
  return { ok: true, image };
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout/i.test(error.message);
}
