import fs from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { resetLimits } from "~/lib/limits.server";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { listAllUploads } from "~/images/test-fixtures.server";
import { makeUser } from "../../tests/helpers";
import { withArchive } from "./archive.server";
import { importArchive } from "./imports.server";
import { zipBytes } from "../../tests/kit/zip";

// Archives are judged before anything is unpacked (docs/decisions/0066-imports.md): a zip bomb by
// ratio, 100,000 entries, paths that leave the folder, links: refused with the one Refusal type,
// and nothing written (rows and files counted before and after, no temp file left).

/**
 * A ZIP (ZIP64, as more than 65,535 entries need) of `n` empty stored files, written here: yazl
 * takes minutes for 100,000 entries (it looks for its next entry from the start of its queue).
 */
function manyEntries(n: number): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const name = Buffer.from(`f/${i}`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name);
    centrals.push(central, name);
    offset += local.length + name.length;
  }
  const cd = Buffer.concat(centrals);
  const zip64 = Buffer.alloc(56);
  zip64.writeUInt32LE(0x06064b50, 0);
  zip64.writeBigUInt64LE(44n, 4);
  zip64.writeUInt16LE(45, 12);
  zip64.writeUInt16LE(45, 14);
  zip64.writeBigUInt64LE(BigInt(n), 24);
  zip64.writeBigUInt64LE(BigInt(n), 32);
  zip64.writeBigUInt64LE(BigInt(cd.length), 40);
  zip64.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, cd, zip64, locator, end]);
}

/** yazl refuses unsafe names, as it should: the test writes a same-length name, then patches its bytes (in both headers). */
function patchName(zip: Buffer, from: string, to: string): Buffer {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  let at = out.indexOf(needle);
  let n = 0;
  while (at >= 0) {
    Buffer.from(to).copy(out, at);
    n++;
    at = out.indexOf(needle, at + 1);
  }
  expect(n).toBe(2); // the local header and the central directory
  return out;
}

async function state() {
  const n = async (table: string) => Number((await db()(table).count({ n: "*" }).first())?.n ?? 0);
  return {
    kids: await n("kids"),
    moments: await n("daily_logs"),
    images: await n("images"),
    imports: await n("imports"),
    items: await n("import_items"),
    files: await listAllUploads(),
  };
}

const jpeg = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: "#39c" } })
    .jpeg()
    .toBuffer();

describe("an archive is judged before anything is unpacked", () => {
  it("refuses zip bombs, too many entries, unsafe paths and links, with nothing written", async () => {
    const user = await makeUser();
    const photo = await jpeg();
    const attacks: [string, Buffer, RegExp][] = [
      [
        "a zip bomb by ratio (4 MB of zeros in 4 kB)",
        await zipBytes((z) => {
          z.addBuffer(photo, "Takeout/Google Photos/A/IMG_1.jpg");
          z.addBuffer(Buffer.alloc(4 * 1024 * 1024), "Takeout/Google Photos/A/IMG_2.jpg");
        }),
        /IMG_2\.jpg in that archive unpacks to far more than it takes/,
      ],
      ["100,000 entries", manyEntries(100_000), /holds 100,000 files; at most 50,000/],
      [
        "a ../ path",
        patchName(
          await zipBytes((z) => z.addBuffer(photo, "XX/XX/escape.jpg")),
          "XX/XX/escape.jpg",
          "../../escape.jpg",
        ),
        /points outside its folder \(\.\.\/\.\.\/escape\.jpg\)/,
      ],
      [
        "an absolute path",
        patchName(await zipBytes((z) => z.addBuffer(photo, "Xtmp/evil.jpg")), "Xtmp/evil.jpg", "/tmp/evil.jpg"),
        /points outside its folder \(\/tmp\/evil\.jpg\)/,
      ],
      [
        "a backslash path",
        patchName(await zipBytes((z) => z.addBuffer(photo, "aX..Xevil.jpg")), "aX..Xevil.jpg", "a\\..\\evil.jpg"),
        /points outside its folder/,
      ],
      [
        "a symlink",
        await zipBytes((z) => z.addBuffer(Buffer.from("/etc/passwd"), "Takeout/link.jpg", { mode: 0o120777 })),
        /holds a link \(Takeout\/link\.jpg\)/,
      ],
      ["not a ZIP", photo, /not a ZIP archive/],
    ];
    const before = await state();
    for (const [what, bytes, message] of attacks) {
      await resetLimits();
      const result = await importArchive(user.id, await uploadFromBuffer(bytes, "x.zip"));
      expect(result.ok, what).toBe(false);
      if (result.ok) continue;
      expect(result.kind, what).toBe("invalid");
      expect(result.message, what).toMatch(message);
      expect(result.fieldErrors?.archive, what).toEqual([result.message]);
      expect(await state(), what).toEqual(before);
    }
    expect(before.files).toEqual([]);
  });

  it("refuses an archive that unpacks past the limit before unpacking; reads the rest one entry at a time", async () => {
    const zip = await zipBytes((z) => {
      z.addBuffer(Buffer.alloc(600 * 1024, 7), "a.bin", { compress: false });
      z.addBuffer(Buffer.alloc(600 * 1024, 8), "b.bin", { compress: false });
    });
    const file = await uploadFromBuffer(zip, "x.zip");
    const limits = { maxEntries: 10, maxRatio: 100 };
    const over = await withArchive(file.path, async () => ({ ok: true }), { ...limits, maxUnpackedBytes: 1024 * 1024 });
    expect(over).toMatchObject({
      ok: false,
      kind: "invalid",
      message: expect.stringMatching(/unpacks to more than 1 MB/),
    });
    const read = await withArchive(
      file.path,
      async (archive) => {
        expect(archive.entries).toEqual([
          { name: "a.bin", size: 600 * 1024 },
          { name: "b.bin", size: 600 * 1024 },
        ]);
        const got = await archive.extract("b.bin");
        if (!got.ok) return got;
        expect(fs.readFileSync(got.file.path).equals(Buffer.alloc(600 * 1024, 8))).toBe(true);
        await got.file.discard();
        return { ok: true };
      },
      { ...limits, maxUnpackedBytes: 2 * 1024 * 1024 },
    );
    expect(read.ok).toBe(true);
    await file.discard();
    expect(await listAllUploads()).toEqual([]);
  });

  it("names a damaged entry (its checksum) without leaving its temp file", async () => {
    const zip = await zipBytes((z) => z.addBuffer(Buffer.from("hello, world"), "a.txt", { compress: false }));
    const broken = Buffer.from(zip);
    broken[broken.indexOf("hello") + 1] = "a".charCodeAt(0);
    const file = await uploadFromBuffer(broken, "x.zip");
    const result = await withArchive(file.path, async (archive) => archive.extract("a.txt"));
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/a\.txt in that archive is damaged/) });
    await file.discard();
    expect(await listAllUploads()).toEqual([]);
  });
});
