// Test support only (imported by app/images/*.test.ts and app/routes/images.test.ts, never by the
// app): real images made with sharp, and a look at what is on disk under UPLOADS_DIR.
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { config } from "~/lib/config.server";
import { db } from "~/lib/db.server";

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
  const red = await sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
  const green = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 255, b: 0 } } }).png().toBuffer();
  return sharp([red, green], { join: { animated: true } }).gif({ delay: [100, 100] }).toBuffer();
}

/** Every file (not directory) under UPLOADS_DIR, relative paths, sorted. */
export function listUploads(): string[] {
  const root = config().uploadsDir;
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
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
