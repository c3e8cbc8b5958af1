// Test support only (imported by test files, never by the app): real images made with sharp, and a
// look at what is stored, through the photo store (so the same test runs on the disk and the S3
// backend: vitest.config.ts) plus the local temp folder of raw uploads.
import fs from "node:fs";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import sharp from "sharp";
import { config } from "~/lib/config.server";
import { db } from "~/lib/db.server";
import { uploadsTempDir } from "./multipart.server";
import { KEY_PATTERN, photoStore } from "./photo-store.server";

export type Format = "jpeg" | "png" | "webp" | "gif" | "avif";

/** A width × height image: left half `left`, right half `right` (so orientation can be checked). */
export async function makeImage(
  format: Format,
  width: number,
  height: number,
  opts: { left?: [number, number, number]; right?: [number, number, number]; alpha?: boolean } = {},
): Promise<Buffer> {
  const left = opts.left ?? [220, 40, 40];
  const right = opts.right ?? [40, 40, 220];
  const channels = opts.alpha ? 4 : 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = x < width / 2 ? left : right;
      const i = (y * width + x) * channels;
      raw[i] = c[0];
      raw[i + 1] = c[1];
      raw[i + 2] = c[2];
      if (channels === 4) raw[i + 3] = 255;
    }
  }
  const img = sharp(raw, { raw: { width, height, channels } });
  switch (format) {
    case "jpeg":
      return img.jpeg({ quality: 90 }).toBuffer();
    case "png":
      return img.png().toBuffer();
    case "webp":
      return img.webp().toBuffer();
    case "gif":
      return img.gif().toBuffer();
    case "avif":
      return img.avif({ effort: 0 }).toBuffer();
  }
}

/** A two-frame animated GIF: first frame red, second green. */
export async function makeAnimatedGif(width: number, height: number): Promise<Buffer> {
  const red = await sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  const green = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 255, b: 0 } } })
    .png()
    .toBuffer();
  return sharp([red, green], { join: { animated: true } })
    .gif({ delay: [100, 100] })
    .toBuffer();
}

/**
 * The local files under UPLOADS_DIR that are not stored photos, relative paths, sorted: the raw
 * upload temp files and the disk store's partial folders (`.tmp/…`), on either backend.
 */
export function listUploads(): string[] {
  const root = config().uploadsDir;
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (dir === root && entry.isDirectory() && KEY_PATTERN.test(entry.name)) continue; // a stored photo (disk store)
      if (entry.isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

/** The names of the raw upload temp files in multipart.server.ts's temp folder. */
export function tempFiles(): string[] {
  const dir = uploadsTempDir();
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

/** Every stored photo file as `<key>/<name>`, sorted, from the photo store (either backend). */
export async function listStored(): Promise<string[]> {
  const store = photoStore();
  const out: string[] = [];
  for await (const { key } of store.listKeys()) for (const name of await store.list(key)) out.push(`${key}/${name}`);
  return out.sort();
}

/** Everything uploads left behind: the local temp files and every stored photo file, sorted. */
export async function listAllUploads(): Promise<string[]> {
  return [...listUploads(), ...(await listStored())].sort();
}

/** The names of the stored files of a photo (`160.webp`, …), sorted; [] when none. */
export async function storedFiles(key: string): Promise<string[]> {
  return photoStore().list(key);
}

/** Whether a photo has any stored file (one file when `name` is given). */
export async function isStored(key: string, name?: string): Promise<boolean> {
  const files = await storedFiles(key);
  return name === undefined ? files.length > 0 : files.includes(name);
}

/** The bytes of one stored file (read to the end of the store's stream); throws when missing. */
export async function readStored(key: string, name: string): Promise<Buffer> {
  const opened = await photoStore().open(key, name);
  if (!opened) throw new Error(`not stored: ${key}/${name}`);
  return buffer(opened.stream);
}

export async function countImageRows(): Promise<number> {
  const row = await db()("images").count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** The pixel (r, g, b) at (x, y) of an encoded image. */
export async function pixelAt(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}
