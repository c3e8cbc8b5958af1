import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  fileDigest,
  parseMultipart,
  sweepTempUploads,
  TEMP_UPLOAD_MAX_AGE_MS,
  uploadFromBuffer,
  uploadsTempDir,
  withUploadScope,
} from "./multipart.server";
import { listUploads, tempFiles } from "./test-fixtures.server";

// Real multipart bodies (FormData → Request, as fetch and browsers build them) and their real temp
// files: how long they live, and failures on the server's side (the parser: multipart.test.ts).

const URL = "http://localhost:3000/api/kids/new";
const post = (body: FormData) => new Request(URL, { method: "POST", body });

describe("temp files never outlive their request", () => {
  it("the request's upload scope removes every temp file it made, whatever the handler did", async () => {
    const kept: string[] = [];
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(2000)]), "a.jpg");
    await expect(
      withUploadScope(async () => {
        const { file } = await parseMultipart(post(form));
        kept.push(file!.path, (await uploadFromBuffer(Buffer.from("x"))).path);
        expect(tempFiles()).toHaveLength(2);
        throw new Error("the handler failed before discarding its files");
      }),
    ).rejects.toThrow("the handler failed");
    for (const p of kept) expect(fs.existsSync(p)).toBe(false);
    expect(tempFiles()).toEqual([]);
    // outside a scope (seed scripts, tests) the owner discards as before
    const loose = await uploadFromBuffer(Buffer.from("y"));
    expect(fs.existsSync(loose.path)).toBe(true);
    await loose.discard();
  });

  it("the sweep removes temp uploads older than ten minutes and keeps younger ones and other entries", async () => {
    const stale = await uploadFromBuffer(Buffer.from("old"));
    const fresh = await uploadFromBuffer(Buffer.from("new"));
    const other = path.join(uploadsTempDir(), "abc.partial");
    fs.mkdirSync(other, { recursive: true });
    const past = (Date.now() - TEMP_UPLOAD_MAX_AGE_MS - 60_000) / 1000;
    fs.utimesSync(stale.path, past, past);
    fs.utimesSync(other, past, past);
    expect(await sweepTempUploads()).toBe(1);
    expect(fs.existsSync(stale.path)).toBe(false);
    expect(fs.existsSync(fresh.path)).toBe(true);
    expect(fs.existsSync(other)).toBe(true); // the photo store's own sweep takes those
    await fresh.discard();
    fs.rmSync(other, { recursive: true, force: true });
    fs.rmSync(uploadsTempDir(), { recursive: true, force: true });
    expect(await sweepTempUploads()).toBe(0); // no folder at all: nothing to do, no error
  });

  it("fileDigest is the sha256 of the bytes", async () => {
    const file = await uploadFromBuffer(Buffer.from("hello"));
    expect(await fileDigest(file)).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    await file.discard();
  });
});

describe("server-side failures", () => {
  it("an unwritable temp directory rejects (a 500), drains the body and leaves nothing", async () => {
    const tmp = uploadsTempDir();
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.writeFileSync(tmp, "not a directory"); // mkdir fails, like a full or read-only disk would
    try {
      const form = new FormData();
      form.append("image", new Blob([new Uint8Array(3 * 1024 * 1024)]), "a.jpg");
      form.append("title", "t");
      const request = post(form);
      await expect(parseMultipart(request)).rejects.toThrow();
      expect(request.bodyUsed).toBe(true);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    expect(listUploads()).toEqual([]);
  });

  it("a write that fails mid-file rejects and does not hang", async () => {
    if (!fs.existsSync("/dev/full")) return;
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(2 * 1024 * 1024)]), "a.jpg");
    form.append("title", "t");
    const request = post(form);
    // fault injection: /dev/full fails every write with ENOSPC, like a full disk
    const original = fs.createWriteStream;
    (fs as { createWriteStream: unknown }).createWriteStream = ((_p: string, opts: object) =>
      original("/dev/full", { ...opts, flags: "w" })) as never;
    try {
      await expect(parseMultipart(request)).rejects.toThrow(/ENOSPC/);
      expect(request.bodyUsed).toBe(true);
    } finally {
      (fs as { createWriteStream: unknown }).createWriteStream = original;
    }
    expect(tempFiles()).toEqual([]);
  });
});
