import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { config } from "~/lib/config.server";
import { db } from "~/lib/db.server";
import { makeUser } from "../../tests/helpers";
import { IMAGE_MESSAGES, UPLOAD_LIMITS } from "./limits";
import { uploadFromBuffer } from "./multipart.server";
import { photoStore } from "./photo-store.server";
import {
  collectImageKeys,
  deleteImageFiles,
  findImageByKey,
  KEY_PATTERN,
  photoFileName,
  storeImage,
  sweepUploads,
  withImageTransaction,
  withNewImage,
} from "./storage.server";
import {
  countImageRows,
  listAllUploads,
  listUploads,
  makeImage,
  readStored,
  storedFiles,
} from "./test-fixtures.server";

// Real temp SQLite (tests/setup-db.ts), real images, real stored files: this file runs once per
// photo store backend (vitest.config.ts: the local disk under a temp UPLOADS_DIR, and S3 on an
// s3rver started for the run), and reaches the stored files only through the store.

const upload = async (bytes: Buffer | string, name = "photo.jpg") => uploadFromBuffer(Buffer.from(bytes), name);

const filesOf = storedFiles;

async function kidFor(userId: number, imageId: number | null = null): Promise<number> {
  const [row] = await db()("kids")
    .insert({
      user_id: userId,
      name: "Elsa",
      birth_date: "2020-01-02",
      relationship: "Mom",
      image_id: imageId,
      created_at: new Date().toISOString(),
    })
    .returning("id");
  return Number(typeof row === "object" ? row.id : row);
}

describe("storeImage", () => {
  it("stores <key>/<width>.webp and consumes the upload", async () => {
    const file = await upload(await makeImage("jpeg", 1600, 1200));
    const result = await storeImage(file);
    if (!result.ok) throw new Error(result.message);
    const { image } = result;
    expect(image.key).toMatch(KEY_PATTERN);
    expect(Buffer.from(image.key, "base64url").length).toBeGreaterThanOrEqual(16); // ≥ 128 random bits
    expect(image.widths).toEqual([160, 320, 640, 1280]);
    expect([image.width, image.height]).toEqual([1280, 960]);
    expect(await filesOf(image.key)).toEqual(["1280.webp", "160.webp", "320.webp", "640.webp"]);
    for (const w of image.widths) {
      const meta = await sharp(await readStored(image.key, photoFileName(w)!)).metadata();
      expect(meta.format).toBe("webp");
      expect(meta.width).toBe(w);
    }
    expect(fs.existsSync(file.path)).toBe(false);
    expect(listUploads().filter((p) => p.startsWith(".tmp"))).toEqual([]);
    // not under public/, and keys differ every time
    expect(config().uploadsDir.split(path.sep)).not.toContain("public");
    const again = await storeImage(await upload(await makeImage("jpeg", 200, 100)));
    expect(again.ok && again.image.key).not.toBe(image.key);
  });

  it("photoFileName and the store refuse anything that is not a key and a width", async () => {
    expect(photoFileName(0)).toBeNull();
    expect(photoFileName(1.5)).toBeNull();
    expect(photoFileName(160)).toBe("160.webp");
    const store = photoStore();
    expect(await store.open("../../etc/passwd", "160.webp")).toBeNull();
    expect(await store.open("a".repeat(24), "../../../etc/passwd")).toBeNull();
    expect(await store.stat("../../etc", "passwd")).toBeNull();
    expect(await store.list("..")).toEqual([]);
    await expect(store.deleteAll("../keep-me")).rejects.toThrow("malformed photo key");
    await expect(store.putAll("../x", [{ name: "160.webp", data: new Uint8Array(1) }])).rejects.toThrow(
      "malformed photo key",
    );
    await expect(store.putAll("a".repeat(24), [{ name: "../160.webp", data: new Uint8Array(1) }])).rejects.toThrow(
      "malformed photo file name",
    );
    expect(await filesOf("a".repeat(24))).toEqual([]);
  });
});

describe("rejected uploads leave nothing behind", () => {
  const truncatedJpeg = async () => {
    const full = await sharp({
      create: {
        width: 900,
        height: 700,
        channels: 3,
        background: "#888",
        noise: { type: "gaussian", mean: 128, sigma: 50 },
      },
    })
      .jpeg()
      .toBuffer();
    return full.subarray(0, Math.floor(full.length * 0.6));
  };
  const cases: [string, () => Promise<Buffer | string>, string][] = [
    ["text named .jpg", async () => "hello, I am text", IMAGE_MESSAGES.notAnImage],
    ["PDF header", async () => "%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n", IMAGE_MESSAGES.notAnImage],
    ["SVG", async () => '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', IMAGE_MESSAGES.notAnImage],
    ["HTML", async () => "<html><script>alert(1)</script></html>", IMAGE_MESSAGES.notAnImage],
    ["truncated JPEG", truncatedJpeg, IMAGE_MESSAGES.notAnImage],
    ["zero bytes", async () => "", IMAGE_MESSAGES.notAnImage],
    [
      "10000×10000 solid PNG (bomb)",
      async () =>
        sharp({ create: { width: 10000, height: 10000, channels: 3, background: "#369" } })
          .png({ compressionLevel: 9 })
          .toBuffer(),
      IMAGE_MESSAGES.tooManyPixels,
    ],
  ];
  for (const [name, make, message] of cases) {
    it(`${name}: "${message}", no files, no rows, fn never runs`, async () => {
      const user = await makeUser();
      const filesBefore = await listAllUploads();
      const rowsBefore = await countImageRows();
      const file = await upload(await make());
      let ran = false;
      const result = await withNewImage(file, { kind: "kid", ownerId: user.id }, async () => {
        ran = true;
      });
      expect(result).toEqual({ ok: false, kind: "invalid", message, fieldErrors: { image: [message] } });
      expect(ran).toBe(false);
      expect(await listAllUploads()).toEqual(filesBefore);
      expect(await countImageRows()).toBe(rowsBefore);
    });
  }

  it("over 15 MB (through the multipart parser): the image error, no files, no rows", async () => {
    const { parseMultipart } = await import("./multipart.server");
    const filesBefore = await listAllUploads();
    const rowsBefore = await countImageRows();
    const big = Buffer.concat([await makeImage("jpeg", 100, 100), Buffer.alloc(UPLOAD_LIMITS.maxFileBytes)]);
    const form = new FormData();
    form.append("image", new Blob([big], { type: "image/jpeg" }), "big.jpg");
    const { file, errors } = await parseMultipart(new Request("http://localhost/x", { method: "POST", body: form }));
    expect(file).toBeNull();
    expect(errors).toEqual({ image: ["Image must be 15 MB or smaller."] });
    expect(await listAllUploads()).toEqual(filesBefore);
    expect(await countImageRows()).toBe(rowsBefore);
  });
});

describe("withNewImage", () => {
  it("inserts the images row and runs fn in the same transaction", async () => {
    const user = await makeUser();
    const kidId = await kidFor(user.id);
    const result = await withNewImage(
      await upload(await makeImage("png", 700, 700)),
      { kind: "kid", ownerId: user.id },
      async (trx, imageId, { image }) => {
        await trx("kids").where({ id: kidId }).update({ image_id: imageId });
        return `kid ${kidId} now shows ${image.key}`;
      },
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.value).toBe(`kid ${kidId} now shows ${result.image.key}`);
    const row = await db()("images").where({ id: result.imageId }).first();
    expect(row).toMatchObject({
      key: result.image.key,
      kind: "kid",
      owner_id: user.id,
      width: 700,
      height: 700,
      widths: "160,320,640,700",
    });
    expect(row.placeholder).toBe(result.image.placeholder);
    expect((await db()("kids").where({ id: kidId }).first()).image_id).toBe(result.imageId);
    expect(await filesOf(result.image.key)).toEqual(["160.webp", "320.webp", "640.webp", "700.webp"]);
    expect(await findImageByKey(result.image.key)).toEqual({
      id: result.imageId,
      key: result.image.key,
      kind: "kid",
      owner_id: user.id,
      widths: [160, 320, 640, 700],
      original: false, // a kid's photo keeps no full-size copy (docs/decisions/0063-full-size-originals.md)
    });
  });

  it('a moment\'s photo is stored as kind "log" and read back as "moment"', async () => {
    const user = await makeUser();
    const result = await withNewImage(
      await upload(await makeImage("png", 200, 200)),
      { kind: "moment", ownerId: user.id },
      async () => {},
    );
    if (!result.ok) throw new Error(result.message);
    expect((await db()("images").where({ id: result.imageId }).first()).kind).toBe("log");
    expect((await findImageByKey(result.image.key))?.kind).toBe("moment");
  });

  it("when fn throws: rolls back, removes the new files, rethrows", async () => {
    const user = await makeUser();
    const kidId = await kidFor(user.id);
    const filesBefore = await listAllUploads();
    const rowsBefore = await countImageRows();
    let key = "";
    await expect(
      withNewImage(
        await upload(await makeImage("jpeg", 400, 300)),
        { kind: "kid", ownerId: user.id },
        async (trx, imageId, { image }) => {
          key = image.key;
          await trx("kids").where({ id: kidId }).update({ image_id: imageId });
          expect(await filesOf(image.key)).toHaveLength(3); // files exist while the transaction runs
          throw new Error("kid vanished");
        },
      ),
    ).rejects.toThrow("kid vanished");
    expect(key).not.toBe("");
    expect(await filesOf(key)).toEqual([]);
    expect(await listAllUploads()).toEqual(filesBefore);
    expect(await countImageRows()).toBe(rowsBefore);
    expect((await db()("kids").where({ id: kidId }).first()).image_id).toBeNull();
  });

  it("replacing: the old row goes in the transaction, the old files after the commit", async () => {
    const user = await makeUser();
    const first = await withNewImage(
      await upload(await makeImage("jpeg", 300, 300)),
      { kind: "user", ownerId: user.id },
      async (trx, imageId) => {
        await trx("users").where({ id: user.id }).update({ image_id: imageId });
      },
    );
    if (!first.ok) throw new Error(first.message);

    // a replacement that fails keeps the old photo, row and files
    await expect(
      withNewImage(
        await upload(await makeImage("jpeg", 300, 300)),
        { kind: "user", ownerId: user.id },
        async (trx, imageId, { dropImages }) => {
          await trx("users").where({ id: user.id }).update({ image_id: imageId });
          await dropImages([first.imageId]);
          throw new Error("boom");
        },
      ),
    ).rejects.toThrow("boom");
    expect(await filesOf(first.image.key)).toEqual(["160.webp", "300.webp"]);
    expect((await db()("users").where({ id: user.id }).first()).image_id).toBe(first.imageId);

    const second = await withNewImage(
      await upload(await makeImage("webp", 300, 300)),
      { kind: "user", ownerId: user.id },
      async (trx, imageId, { dropImages }) => {
        const old = await trx("users").where({ id: user.id }).first("image_id");
        await trx("users").where({ id: user.id }).update({ image_id: imageId });
        await dropImages([old.image_id, null]);
        expect(await filesOf(first.image.key)).toHaveLength(2); // not before the commit
      },
    );
    if (!second.ok) throw new Error(second.message);
    expect(await filesOf(first.image.key)).toEqual([]);
    expect(await findImageByKey(first.image.key)).toBeNull();
    expect((await db()("users").where({ id: user.id }).first()).image_id).toBe(second.imageId);
  });
});

describe("withImageTransaction and deleteImageFiles", () => {
  it("deleting a kid with its moments removes every photo after the commit", async () => {
    const user = await makeUser();
    const kidPhoto = await withNewImage(
      await upload(await makeImage("jpeg", 200, 200)),
      { kind: "kid", ownerId: user.id },
      async (_trx, id) => id,
    );
    if (!kidPhoto.ok) throw new Error(kidPhoto.message);
    const kidId = await kidFor(user.id, kidPhoto.imageId);
    const logPhoto = await withNewImage(
      await upload(await makeImage("png", 200, 200)),
      { kind: "moment", ownerId: user.id },
      async (trx, imageId) => {
        const now = new Date().toISOString();
        await trx("daily_logs").insert({
          kid_id: kidId,
          title: "t",
          content: "c",
          image_id: imageId,
          taken_on: now.slice(0, 10),
          created_at: now,
          updated_at: now,
        });
      },
    );
    if (!logPhoto.ok) throw new Error(logPhoto.message);

    // a failed deletion changes nothing
    await expect(
      withImageTransaction(async (_trx, { dropImages }) => {
        await dropImages([kidPhoto.imageId, logPhoto.imageId]);
        throw new Error("nope");
      }),
    ).rejects.toThrow("nope");
    expect(await collectImageKeys(db(), [kidPhoto.imageId, logPhoto.imageId])).toHaveLength(2);
    expect(await filesOf(kidPhoto.image.key)).toHaveLength(2);

    const removed = await withImageTransaction(async (trx, { dropImages }) => {
      const logs = await trx("daily_logs").where({ kid_id: kidId }).select("image_id");
      const kid = await trx("kids").where({ id: kidId }).first("image_id");
      await trx("kids").where({ id: kidId }).delete();
      await dropImages([kid.image_id, ...logs.map((l: { image_id: number | null }) => l.image_id)]);
      return logs.length;
    });
    expect(removed).toBe(1);
    expect(await filesOf(kidPhoto.image.key)).toEqual([]);
    expect(await filesOf(logPhoto.image.key)).toEqual([]);
    expect(await collectImageKeys(db(), [kidPhoto.imageId, logPhoto.imageId])).toEqual([]);
  });

  it("deleteImageFiles never throws and never leaves the uploads folder", async () => {
    const outside = path.join(path.dirname(config().uploadsDir), "keep-me");
    fs.mkdirSync(outside, { recursive: true });
    await expect(deleteImageFiles(["../keep-me", "", "nonexistent_key_1234567890ab"])).resolves.toBeUndefined();
    expect(fs.existsSync(outside)).toBe(true);
  });

  it("sweepUploads removes stale temp files and, once old, photos without a row (either backend)", async () => {
    const store = photoStore();
    const user = await makeUser();
    const kept = await withNewImage(
      await upload(await makeImage("jpeg", 200, 200)),
      { kind: "user", ownerId: user.id },
      async () => {},
    );
    if (!kept.ok) throw new Error(kept.message);
    const orphan = "orphanedKeyBBBBBBBBBBBBB";
    await store.putAll(orphan, [{ name: "160.webp", data: new TextEncoder().encode("x") }]);
    const stale = await upload("stale");
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(stale.path, old, old);
    const fresh = await upload("fresh");

    // the orphan is young: its row may still be on its way
    expect(await sweepUploads()).toBe(1);
    expect(fs.existsSync(stale.path)).toBe(false);
    expect(fs.existsSync(fresh.path)).toBe(true);
    expect(await filesOf(orphan)).toEqual(["160.webp"]);
    expect(await filesOf(kept.image.key)).toHaveLength(2);
    await fresh.discard();

    // every stored key without a row (the orphan, and photos stored above without one) once old
    const rowless: string[] = [];
    for await (const { key } of store.listKeys()) if (!(await findImageByKey(key))) rowless.push(key);
    expect(rowless).toContain(orphan);
    expect(await sweepUploads(-60_000)).toBe(rowless.length);
    expect(await filesOf(orphan)).toEqual([]);
    expect(await filesOf(kept.image.key)).toHaveLength(2);
    for await (const { key } of store.listKeys()) expect(await findImageByKey(key)).not.toBeNull();
  });

  // the disk backend only: registered where it applies (the s3 project runs this file too)
  if (photoStore().kind === "disk")
    it("disk backend: sweepUploads removes stale temp files and orphaned directories only", async () => {
      const user = await makeUser();
      const kept = await withNewImage(
        await upload(await makeImage("jpeg", 200, 200)),
        { kind: "user", ownerId: user.id },
        async () => {},
      );
      if (!kept.ok) throw new Error(kept.message);
      const orphan = path.join(config().uploadsDir, "orphanedKeyAAAAAAAAAAAAA");
      fs.mkdirSync(orphan);
      fs.writeFileSync(path.join(orphan, "160.webp"), "x");
      const stale = await upload("stale");
      const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
      for (const p of [orphan, stale.path, path.join(config().uploadsDir, kept.image.key)]) fs.utimesSync(p, old, old);
      const fresh = await upload("fresh");

      expect(await sweepUploads()).toBe(2);
      expect(fs.existsSync(orphan)).toBe(false);
      expect(fs.existsSync(stale.path)).toBe(false);
      expect(fs.existsSync(fresh.path)).toBe(true);
      expect(await filesOf(kept.image.key)).toHaveLength(2);
      await fresh.discard();
    });
});
