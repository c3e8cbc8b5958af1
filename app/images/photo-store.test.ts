import crypto from "node:crypto";
import { once } from "node:events";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { config } from "~/lib/config.server";
import { photoStore, type PhotoFile } from "./photo-store.server";
import { contentTypeOf } from "./photo-store-contract.server";
import { listAllUploads } from "./test-fixtures.server";

// The photo store's contract, on whichever backend this run uses: vitest.config.ts runs this file
// on the local disk and again on S3 (a real s3rver over HTTP, tests/setup-s3.ts). No mocks.

const newKey = () => crypto.randomBytes(18).toString("base64url");
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 256);

async function putPhoto(sizes: Record<string, number> = { "160.webp": 1000, "320.webp": 3000, "640.webp": 9000 }) {
  const key = newKey();
  const files: Extract<PhotoFile, { data: Uint8Array }>[] = Object.entries(sizes).map(([name, n], i) => ({
    name,
    data: bytes(n, i + 1),
  }));
  await photoStore().putAll(key, files);
  return { key, files };
}

describe(`the photo store (${process.env.STORAGE ?? "disk"})`, () => {
  it("is the backend the settings chose", () => {
    expect(photoStore().kind).toBe(config().storage.kind);
    expect(config().storage.kind).toBe(process.env.STORAGE === "s3" ? "s3" : "disk");
  });

  it("putAll stores every file; list, stat and open give them back byte for byte", async () => {
    const { key, files } = await putPhoto();
    const store = photoStore();
    expect(await store.list(key)).toEqual(["160.webp", "320.webp", "640.webp"]);
    for (const f of files) {
      expect(await store.stat(key, f.name)).toEqual({ size: f.data.byteLength });
      const opened = await store.open(key, f.name);
      expect(opened).not.toBeNull();
      expect([opened!.size, opened!.totalSize]).toEqual([f.data.byteLength, f.data.byteLength]);
      expect((await buffer(opened!.stream)).equals(Buffer.from(f.data))).toBe(true);
    }
  });

  it("putAll streams a file from the local disk (a clip's rendition), typed by its name", async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "sm-store-file-"));
    try {
      const source = path.join(dir, "small.mp4");
      const data = Buffer.from(bytes(3 * 1024 * 1024 + 7, 5));
      await fsp.writeFile(source, data);
      const key = newKey();
      await photoStore().putAll(key, [
        { name: "small.mp4", file: source },
        { name: "160.webp", data: bytes(10) },
      ]);
      expect(await photoStore().list(key)).toEqual(["160.webp", "small.mp4"]);
      const opened = await photoStore().open(key, "small.mp4", { start: data.length - 100 });
      expect(opened?.totalSize).toBe(data.length);
      expect((await buffer(opened!.stream)).equals(data.subarray(data.length - 100))).toBe(true);
      expect(contentTypeOf("small.mp4")).toBe("video/mp4");
      expect(contentTypeOf("captions.vtt")).toBe("text/vtt; charset=utf-8");
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it("missing files, keys and malformed names are null, never an error", async () => {
    const { key } = await putPhoto({ "160.webp": 10 });
    const store = photoStore();
    expect(await store.open(key, "320.webp")).toBeNull();
    expect(await store.stat(key, "320.webp")).toBeNull();
    expect(await store.open(newKey(), "160.webp")).toBeNull();
    expect(await store.stat(newKey(), "160.webp")).toBeNull();
    expect(await store.list(newKey())).toEqual([]);
    expect(await store.open(key, ".hidden")).toBeNull();
    expect(await store.open(`${key}/..`, "160.webp")).toBeNull();
  });

  it("open with a byte range streams just those bytes; a start past the end is a RangeError", async () => {
    const { key, files } = await putPhoto({ "640.webp": 5000 });
    const data = Buffer.from(files[0]!.data);
    const store = photoStore();
    const cases: [{ start: number; end?: number }, Buffer][] = [
      [{ start: 10, end: 19 }, data.subarray(10, 20)],
      [{ start: 4995 }, data.subarray(4995)],
      [{ start: 4000, end: 99_999 }, data.subarray(4000)], // the end is clamped to the last byte
      [{ start: 0, end: 0 }, data.subarray(0, 1)],
    ];
    for (const [range, expected] of cases) {
      const opened = await store.open(key, "640.webp", range);
      expect(opened).not.toBeNull();
      expect([opened!.size, opened!.totalSize]).toEqual([expected.length, 5000]);
      expect((await buffer(opened!.stream)).equals(expected)).toBe(true);
    }
    await expect(store.open(key, "640.webp", { start: 5000 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.open(key, "640.webp", { start: 20, end: 10 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.open(key, "640.webp", { start: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it("a stream destroyed half-way closes cleanly, and the store goes on serving", async () => {
    const { key, files } = await putPhoto({ "1280.webp": 400_000 });
    const store = photoStore();
    const opened = await store.open(key, "1280.webp");
    const stream = opened!.stream;
    stream.on("error", () => {}); // what the image route does: a client that goes away is not an error
    await once(stream, "readable");
    expect(stream.read()).not.toBeNull();
    const closed = new Promise((resolve) => stream.once("close", resolve));
    stream.destroy(new Error("client went away"));
    await closed;
    const again = await store.open(key, "1280.webp");
    expect((await buffer(again!.stream)).equals(Buffer.from(files[0]!.data))).toBe(true);
  });

  it("putAll is all or nothing: a failing file removes the ones already written", async () => {
    const before = await listAllUploads();
    const key = newKey();
    const failing: PhotoFile = {
      name: "640.webp",
      get data(): Uint8Array {
        throw new Error("the disk is full");
      },
    };
    await expect(
      photoStore().putAll(key, [
        { name: "160.webp", data: bytes(100) },
        { name: "320.webp", data: bytes(200) },
        failing,
        { name: "1280.webp", data: bytes(300) },
      ]),
    ).rejects.toThrow("the disk is full");
    expect(await photoStore().list(key)).toEqual([]);
    expect(await listAllUploads()).toEqual(before);
  });

  it("deleteAll removes every file of one key and nothing else; nothing there is fine", async () => {
    const a = await putPhoto();
    const b = await putPhoto({ "160.webp": 10 });
    const store = photoStore();
    await store.deleteAll(a.key);
    expect(await store.list(a.key)).toEqual([]);
    expect(await store.open(a.key, "160.webp")).toBeNull();
    expect(await store.list(b.key)).toEqual(["160.webp"]);
    await expect(store.deleteAll(a.key)).resolves.toBeUndefined();
    await expect(store.deleteAll(newKey())).resolves.toBeUndefined();
  });

  it("listKeys names each stored key once, with when it was written", async () => {
    const started = Date.now();
    const a = await putPhoto();
    const b = await putPhoto({ "160.webp": 10, "320.webp": 20 });
    const seen = new Map<string, Date>();
    for await (const { key, modifiedAt } of photoStore().listKeys()) {
      expect(seen.has(key)).toBe(false);
      seen.set(key, modifiedAt);
    }
    for (const key of [a.key, b.key]) {
      expect(seen.get(key)).toBeInstanceOf(Date);
      // S3 keeps whole seconds, so allow the second it started in
      expect(seen.get(key)!.getTime()).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 - 1000);
    }
    for (const key of seen.keys()) expect(key).toMatch(/^[A-Za-z0-9_-]{22,64}$/);
  });
});
