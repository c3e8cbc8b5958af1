import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { IMAGE_MESSAGES, ORIGINAL_MAX_EDGE } from "./limits";
import { derivativeWidths, processImage, sniffFormat } from "./process.server";
import { makeAnimatedGif, makeImage, pixelAt, type Format } from "./test-fixtures.server";

// processImage on real files made with sharp (no mocks).

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-process-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const HEIC_FIXTURE = path.resolve(import.meta.dirname, "../../tests/fixtures/iphone.heic");

function save(bytes: Buffer | string, name = "upload.jpg"): string {
  const p = path.join(dir, `${++n}-${name}`);
  fs.writeFileSync(p, bytes);
  return p;
}

async function ok(file: string) {
  const result = await processImage(file);
  if (!result.ok) throw new Error(`rejected: ${result.message}`);
  return result.image;
}

describe("accepted formats", () => {
  const formats: Format[] = ["jpeg", "png", "webp", "gif", "avif"];
  for (const format of formats) {
    it(`${format}: WebP derivatives at 160/320/640/1280, metadata-free`, async () => {
      const image = await ok(save(await makeImage(format, 2000, 1500)));
      expect(image.format).toBe(format);
      expect(image.widths).toEqual([160, 320, 640, 1280]);
      expect([image.width, image.height]).toEqual([1280, 960]);
      for (const d of image.derivatives) {
        const meta = await sharp(d.data).metadata();
        expect(meta.format).toBe("webp");
        expect([meta.width, meta.height]).toEqual([d.width, d.height]);
        expect(d.height).toBe(Math.round((d.width * 3) / 4));
        expect(meta.exif).toBeUndefined();
        expect(meta.icc).toBeUndefined();
        expect(meta.xmp).toBeUndefined();
        expect(meta.iptc).toBeUndefined();
      }
    });

    it(`${format}: a small original is never upscaled`, async () => {
      const image = await ok(save(await makeImage(format, 500, 300)));
      expect(image.widths).toEqual([160, 320, 500]);
      expect([image.width, image.height]).toEqual([500, 300]);
    });
  }

  it("an animated GIF keeps only its first frame", async () => {
    const image = await ok(save(await makeAnimatedGif(400, 200)));
    expect(image.widths).toEqual([160, 320, 400]);
    expect([image.width, image.height]).toEqual([400, 200]);
    const top = image.derivatives[image.derivatives.length - 1]!;
    const meta = await sharp(top.data).metadata();
    expect(meta.pages ?? 1).toBe(1);
    const [r, g] = await pixelAt(top.data, 10, 10);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
  });

  it("a tiny image gets a single derivative at its own size", async () => {
    const image = await ok(save(await makeImage("png", 100, 80)));
    expect(image.widths).toEqual([100]);
    expect([image.width, image.height]).toEqual([100, 80]);
  });

  it("a very tall image is scaled so no derivative is taller than 8192 px", async () => {
    const image = await ok(save(await makeImage("png", 400, 20000)));
    const top = image.derivatives[image.derivatives.length - 1]!;
    expect(top.height).toBeLessThanOrEqual(8192);
    expect(image.widths[image.widths.length - 1]).toBe(163);
  });

  it("CMYK JPEG and 16-bit PNG come out as 8-bit sRGB", async () => {
    const cmyk = await sharp(await makeImage("jpeg", 300, 200))
      .toColourspace("cmyk")
      .jpeg()
      .toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe("cmyk");
    const png16 = await sharp(await makeImage("png", 300, 200))
      .toColourspace("rgb16")
      .png()
      .toBuffer();
    expect((await sharp(png16).metadata()).depth).toBe("ushort");
    for (const bytes of [cmyk, png16]) {
      const image = await ok(save(bytes));
      const meta = await sharp(image.derivatives[0]!.data).metadata();
      expect(meta.space).toBe("srgb");
      expect(meta.depth).toBe("uchar");
      const [r, , b] = await pixelAt(image.derivatives[0]!.data, 5, 5);
      expect(r).toBeGreaterThan(150); // still red on the left
      expect(b).toBeLessThan(110);
    }
  });

  it("colours of a Display P3 photo are converted to sRGB and no profile is kept", async () => {
    // withIccProfile("p3") stores the sRGB colour (200, 60, 60) as P3 numbers and tags the file P3
    const p3 = await sharp(await makeImage("jpeg", 200, 100, { left: [200, 60, 60] }))
      .withIccProfile("p3")
      .jpeg({ quality: 100 })
      .toBuffer();
    expect((await sharp(p3).metadata()).icc).toBeDefined();
    const stored = await sharp(p3, { ignoreIcc: true }).raw().toBuffer();
    expect(Math.abs(stored[0]! - 200) + Math.abs(stored[1]! - 60)).toBeGreaterThan(15); // really different numbers
    const image = await ok(save(p3));
    const d = image.derivatives[0]!.data;
    expect((await sharp(d).metadata()).icc).toBeUndefined();
    const [r, g, b] = await pixelAt(d, 5, 5);
    expect(Math.abs(r - 200)).toBeLessThan(8);
    expect(Math.abs(g - 60)).toBeLessThan(8);
    expect(Math.abs(b - 60)).toBeLessThan(8);
  });

  it("applies EXIF orientation 6 (the photo comes out upright)", async () => {
    // stored 400×200, red left / blue right; orientation 6 = rotate 90° clockwise to display
    const sideways = await sharp(await makeImage("jpeg", 400, 200))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect((await sharp(sideways).metadata()).orientation).toBe(6);
    const image = await ok(save(sideways));
    expect([image.width, image.height]).toEqual([200, 400]);
    const top = image.derivatives[image.derivatives.length - 1]!;
    const [r1, , b1] = await pixelAt(top.data, 100, 20); // top: was the left (red)
    const [r2, , b2] = await pixelAt(top.data, 100, 380); // bottom: was the right (blue)
    expect(r1).toBeGreaterThan(150);
    expect(b1).toBeLessThan(100);
    expect(b2).toBeGreaterThan(150);
    expect(r2).toBeLessThan(100);
    expect((await sharp(top.data).metadata()).orientation).toBeUndefined();
  });

  it("keeps transparency (semi-transparent pixels are not darkened)", async () => {
    const w = 400,
      h = 200;
    const raw = Buffer.alloc(w * h * 4);
    for (let i = 0; i < w * h; i++) raw.set([200, 100, 50, 128], i * 4);
    const png = await sharp(raw, { raw: { width: w, height: h, channels: 4 } })
      .png()
      .toBuffer();
    const image = await ok(save(png));
    for (const d of image.derivatives) {
      const { data, info } = await sharp(d.data).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      const [r, g, b, a] = data.subarray(0, 4);
      expect(Math.abs(r! - 200)).toBeLessThan(12);
      expect(Math.abs(g! - 100)).toBeLessThan(12);
      expect(Math.abs(b! - 50)).toBeLessThan(12);
      expect(Math.abs(a! - 128)).toBeLessThan(6);
    }
  });

  it("many photos at once (small and big) all finish", async () => {
    const small = await makeImage("jpeg", 900, 600);
    const big = await sharp({ create: { width: 6000, height: 4500, channels: 3, background: "#8a6" } })
      .png()
      .toBuffer(); // 27 MP, runs alone
    const files = [small, big, small, small, big, small].map((b, i) => save(b, `many-${i}.png`));
    const results = await Promise.all(files.map((f) => processImage(f)));
    expect(results.map((r) => r.ok && r.image.widths.at(-1))).toEqual([900, 1280, 900, 900, 1280, 900]);
  });

  it("makes a tiny placeholder data URI", async () => {
    const image = await ok(save(await makeImage("jpeg", 1600, 900)));
    expect(image.placeholder).toMatch(/^data:image\/webp;base64,[A-Za-z0-9+/=]+$/);
    expect(image.placeholder.length).toBeLessThan(600);
    const bytes = Buffer.from(image.placeholder.split(",")[1]!, "base64");
    const meta = await sharp(bytes).metadata();
    expect(meta.width).toBe(16);
    expect(meta.height).toBe(9);
  });
});

describe("HEIC from a phone (docs/decisions/0029-heic-photos.md)", () => {
  it("a real HEIC file is decoded by libheif (WebAssembly) and goes through the same steps: upright pixels, WebP derivatives, no metadata", async () => {
    const result = await processImage(save(fs.readFileSync(HEIC_FIXTURE), "IMG_0001.HEIC"));
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    const { image } = result;
    expect(image).toMatchObject({ format: "heic", width: 96, height: 64, widths: [96] });
    const webp = image.derivatives[0]!.data;
    const meta = await sharp(webp).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 96, height: 64 });
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    const [lr, lg, lb] = await pixelAt(webp, 10, 32);
    const [rr, rg, rb] = await pixelAt(webp, 86, 32);
    expect(lr).toBeGreaterThan(150); // red on the left
    expect(lg).toBeLessThan(100);
    expect(lb).toBeLessThan(100);
    expect(rg).toBeGreaterThan(130); // green on the right
    expect(rr).toBeLessThan(100);
    expect(rb).toBeGreaterThan(70);
    expect(image.placeholder).toMatch(/^data:image\/webp;base64,/);
  });

  it("its full-size copy comes from the same decoded pixels: upright, JPEG, no metadata", async () => {
    const result = await processImage(save(fs.readFileSync(HEIC_FIXTURE), "IMG_0002.HEIC"), { keepOriginal: true });
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    const original = result.image.original!;
    const meta = await sharp(original.data).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif, meta.icc]).toEqual(["jpeg", 96, 64, undefined, undefined]);
    expect((await pixelAt(original.data, 10, 32))[0]).toBeGreaterThan(150); // red on the left
  });
});

describe("rejected inputs", () => {
  const cases: [string, () => Promise<Buffer | string>, string][] = [
    ["text named .jpg", async () => "just some text, not a photo\n", IMAGE_MESSAGES.notAnImage],
    ["PDF", async () => "%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n", IMAGE_MESSAGES.notAnImage],
    [
      "SVG",
      async () =>
        `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="red"/></svg>`,
      IMAGE_MESSAGES.notAnImage,
    ],
    [
      "HTML",
      async () => "<!doctype html><html><body><img src=x onerror=alert(1)></body></html>",
      IMAGE_MESSAGES.notAnImage,
    ],
    ["zero bytes", async () => Buffer.alloc(0), IMAGE_MESSAGES.notAnImage],
    [
      "truncated JPEG",
      async () => {
        const full = await sharp({
          create: {
            width: 800,
            height: 600,
            channels: 3,
            background: "#888",
            noise: { type: "gaussian", mean: 128, sigma: 40 },
          },
        })
          .jpeg()
          .toBuffer();
        return full.subarray(0, Math.floor(full.length / 2));
      },
      IMAGE_MESSAGES.notAnImage,
    ],
    [
      "JPEG magic followed by garbage",
      async () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 0x41)]),
      IMAGE_MESSAGES.notAnImage,
    ],
    [
      "TIFF",
      async () =>
        sharp(await makeImage("png", 50, 50))
          .tiff()
          .toBuffer(),
      IMAGE_MESSAGES.notAnImage,
    ],
    [
      "decompression bomb (10000×10000 solid PNG)",
      async () =>
        sharp({ create: { width: 10000, height: 10000, channels: 3, background: "#fff" } })
          .png({ compressionLevel: 9 })
          .toBuffer(),
      IMAGE_MESSAGES.tooManyPixels,
    ],
    [
      "a HEIC header with nothing behind it",
      async () => {
        // an ISO-BMFF "ftyp heic" header: what an iPhone photo starts with
        const ftyp = Buffer.alloc(24);
        ftyp.writeUInt32BE(24, 0);
        ftyp.write("ftypheic", 4, "latin1");
        ftyp.writeUInt32BE(0, 12);
        ftyp.write("mif1heic", 16, "latin1");
        return Buffer.concat([ftyp, Buffer.alloc(500, 0)]);
      },
      IMAGE_MESSAGES.notAnImage,
    ],
    ["a truncated HEIC", async () => fs.readFileSync(HEIC_FIXTURE).subarray(0, 400), IMAGE_MESSAGES.notAnImage],
  ];
  for (const [name, make, message] of cases) {
    it(`${name} → "${message}"`, async () => {
      const result = await processImage(save(await make()));
      expect(result).toEqual({ ok: false, kind: "invalid", message, fieldErrors: { image: [message] } });
    });
  }

  it("the bomb is refused from its header, quickly and without decoding", async () => {
    const bomb = await sharp({ create: { width: 10000, height: 10000, channels: 3, background: "#000" } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const result = await processImage(save(bomb, "bomb.png"));
    expect(result.ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });
});

describe("helpers", () => {
  it("derivativeWidths", () => {
    expect(derivativeWidths(4000, 3000)).toEqual([160, 320, 640, 1280]);
    expect(derivativeWidths(1280, 1000)).toEqual([160, 320, 640, 1280]);
    expect(derivativeWidths(1281, 1000)).toEqual([160, 320, 640, 1280]);
    expect(derivativeWidths(641, 400)).toEqual([160, 320, 640, 641]);
    expect(derivativeWidths(500, 300)).toEqual([160, 320, 500]);
    expect(derivativeWidths(160, 100)).toEqual([160]);
    expect(derivativeWidths(1, 1)).toEqual([1]);
    expect(derivativeWidths(100, 100000)).toEqual([8]);
  });

  it("sniffFormat", () => {
    expect(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xdb]))).toBe("jpeg");
    expect(sniffFormat(Buffer.from("\x89PNG\r\n\x1a\n", "latin1"))).toBe("png");
    expect(sniffFormat(Buffer.from("GIF89a"))).toBe("gif");
    expect(sniffFormat(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("webp");
    expect(sniffFormat(Buffer.from("\0\0\0\x1cftypavif\0\0\0\0avifmif1", "latin1"))).toBe("avif");
    expect(sniffFormat(Buffer.from("\0\0\0\x18ftypheic\0\0\0\0mif1heic", "latin1"))).toBe("heic");
    expect(sniffFormat(Buffer.from("<svg"))).toBeNull();
    expect(sniffFormat(Buffer.from("%PDF-1.7"))).toBeNull();
    expect(sniffFormat(Buffer.alloc(0))).toBeNull();
  });
});

describe("the full-size copy (keepOriginal)", () => {
  it("only when asked: JPEG at the photo's own size", async () => {
    const file = save(await makeImage("png", 2000, 1500), "photo.png");
    expect((await ok(file)).original).toBeUndefined();
    const result = await processImage(file, { keepOriginal: true });
    if (!result.ok) throw new Error(result.message);
    const original = result.image.original!;
    expect([original.width, original.height]).toEqual([2000, 1500]);
    const meta = await sharp(original.data).metadata();
    expect([meta.format, meta.width, meta.height, meta.space, meta.hasAlpha]).toEqual([
      "jpeg",
      2000,
      1500,
      "srgb",
      false,
    ]);
  });

  it(`at most ${ORIGINAL_MAX_EDGE} px on its long side`, async () => {
    const result = await processImage(save(await makeImage("jpeg", 6400, 300)), { keepOriginal: true });
    if (!result.ok) throw new Error(result.message);
    expect([result.image.original!.width, result.image.original!.height]).toEqual([ORIGINAL_MAX_EDGE, 281]);
  });

  it("transparency goes on white (JPEG has none)", async () => {
    const raw = Buffer.alloc(40 * 20 * 4); // fully transparent
    const png = await sharp(raw, { raw: { width: 40, height: 20, channels: 4 } })
      .png()
      .toBuffer();
    const result = await processImage(save(png, "clear.png"), { keepOriginal: true });
    if (!result.ok) throw new Error(result.message);
    const [r, g, b] = await pixelAt(result.image.original!.data, 10, 10);
    expect(Math.min(r, g, b)).toBeGreaterThan(245);
  });
});
