import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { exifDateTaken, exifTaken } from "./exif";
import { photoTakenOn } from "./exif.server";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";

// The date a photo was taken, read before the pipeline strips the metadata (docs/decisions/0028-moment-dates-and-feed.md).

const base = () => sharp({ create: { width: 16, height: 12, channels: 3, background: "#c33" } });

async function exifOf(image: Buffer): Promise<Buffer | undefined> {
  return (await sharp(image).metadata()).exif;
}

describe("exifDateTaken", () => {
  it("reads DateTimeOriginal from a real JPEG's EXIF (little- and big-endian files)", async () => {
    const jpeg = await base()
      .jpeg()
      .withExif({ IFD0: { Make: "Phone" }, IFD2: { DateTimeOriginal: "2023:04:05 10:11:12" } })
      .toBuffer();
    expect(exifDateTaken(await exifOf(jpeg))).toBe("2023-04-05");
    // the same block written big-endian ("MM") by hand: the reader follows the byte order
    const be = Buffer.alloc(64);
    be.write("MM", 0, "latin1");
    be.writeUInt16BE(42, 2);
    be.writeUInt32BE(8, 4);
    be.writeUInt16BE(1, 8); // one entry in IFD0: DateTime (0x0132), ASCII, 20 bytes at 26
    be.writeUInt16BE(0x0132, 10);
    be.writeUInt16BE(2, 12);
    be.writeUInt32BE(20, 14);
    be.writeUInt32BE(26, 18);
    be.write("2021:12:31 23:59:59\0", 26, "latin1");
    expect(exifDateTaken(be)).toBe("2021-12-31");
  });

  it("prefers DateTimeOriginal over DateTimeDigitized and IFD0's DateTime", async () => {
    const jpeg = await base()
      .jpeg()
      .withExif({
        IFD0: { DateTime: "2020:01:01 00:00:00" },
        IFD2: { DateTimeDigitized: "2020:02:02 00:00:00", DateTimeOriginal: "2019:07:08 09:10:11" },
      })
      .toBuffer();
    expect(exifDateTaken(await exifOf(jpeg))).toBe("2019-07-08");
    const digitized = await base()
      .jpeg()
      .withExif({ IFD0: { DateTime: "2020:01:01 00:00:00" }, IFD2: { DateTimeDigitized: "2020:02:02 00:00:00" } })
      .toBuffer();
    expect(exifDateTaken(await exifOf(digitized))).toBe("2020-02-02");
  });

  it("answers null without EXIF or without a date", async () => {
    expect(exifDateTaken(await exifOf(await base().jpeg().toBuffer()))).toBeNull();
    expect(
      exifDateTaken(
        await exifOf(
          await base()
            .jpeg()
            .withExif({ IFD0: { Make: "Phone" } })
            .toBuffer(),
        ),
      ),
    ).toBeNull();
    expect(exifDateTaken(undefined)).toBeNull();
    expect(exifDateTaken(null)).toBeNull();
  });

  it("answers null for garbage, truncated blocks, wild offsets and impossible dates", async () => {
    const jpeg = await base()
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: "2023:04:05 10:11:12" } })
      .toBuffer();
    const good = (await exifOf(jpeg))!;
    for (let cut = 0; cut < good.length; cut += 7) expect(() => exifDateTaken(good.subarray(0, cut))).not.toThrow();
    expect(exifDateTaken(Buffer.from("Exif\0\0not a tiff header at all"))).toBeNull();
    expect(exifDateTaken(Buffer.from("garbage!garbage!garbage!"))).toBeNull();
    const wild = Buffer.from(good);
    wild.writeUInt32LE(0xfffffff0, 6 + 4); // IFD0 offset far outside the block
    expect(exifDateTaken(wild)).toBeNull();
    for (const date of ["2023:02:30 10:00:00", "0000:00:00 00:00:00", "    :  :     :  :  ", "2023-13-01 10:00:00"]) {
      const bad = await base()
        .jpeg()
        .withExif({ IFD2: { DateTimeOriginal: date } })
        .toBuffer();
      expect(exifDateTaken(await exifOf(bad))).toBeNull();
    }
    const random = Buffer.alloc(512);
    for (let i = 0; i < random.length; i++) random[i] = (i * 7919 + 13) % 256;
    random.write("Exif\0\0II*\0\x08\0\0\0", 0, "latin1");
    expect(() => exifDateTaken(random)).not.toThrow();
  });
});

describe("photoTakenOn (a file on disk)", () => {
  it("reads the date of an uploaded file, null for a file without one or not an image", async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "exif-"));
    try {
      const dated = path.join(dir, "dated.jpg");
      await fsp.writeFile(
        dated,
        await base()
          .jpeg()
          .withExif({ IFD2: { DateTimeOriginal: "2022:08:09 07:00:00" } })
          .toBuffer(),
      );
      const plain = path.join(dir, "plain.png");
      await fsp.writeFile(plain, await base().png().toBuffer());
      const text = path.join(dir, "text.jpg");
      await fsp.writeFile(text, "not an image");
      expect(await photoTakenOn(dated)).toBe("2022-08-09");
      // a real HEIC from a phone: sharp reads its EXIF from the header (docs/decisions/0029-heic-photos.md)
      expect(await photoTakenOn(path.resolve(import.meta.dirname, "../../tests/fixtures/iphone.heic"))).toBe(
        "2023-07-08",
      );
      expect(await photoTakenOn(plain)).toBeNull();
      expect(await photoTakenOn(text)).toBeNull();
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("exifTaken", () => {
  it("reads the time and the camera's offset from UTC when it wrote one (docs/decisions/0065-drafts.md)", async () => {
    const withOffset = await base()
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: "2024:06:02 23:30:00", OffsetTimeOriginal: "+01:00" } })
      .toBuffer();
    expect(exifTaken(await exifOf(withOffset))).toEqual({ date: "2024-06-02", time: "23:30:00", offset: "+01:00" });
    const without = await base()
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: "2024:06:02 08:00:00" } })
      .toBuffer();
    expect(exifTaken(await exifOf(without))).toEqual({ date: "2024-06-02", time: "08:00:00", offset: null });
    const badOffset = await base()
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: "2024:06:02 08:00:00", OffsetTimeOriginal: "+99:00" } })
      .toBuffer();
    expect(exifTaken(await exifOf(badOffset))?.offset).toBeNull();
  });
});
