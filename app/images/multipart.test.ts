import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "~/lib/config.server";
import { IMAGE_MESSAGES, MULTIPART_MESSAGES, UPLOAD_LIMITS } from "./limits";
import { parseMultipart, uploadFromBuffer, uploadsTempDir } from "./multipart.server";
import { listUploads, tempFiles } from "./test-fixtures.server";

// Real multipart bodies (FormData → Request, as fetch and browsers build them); real temp files (how
// long they live, and failures on the server's side: multipart-temp-files.test.ts).

const URL = "http://localhost:3000/api/kids/new";
const post = (body: FormData) => new Request(URL, { method: "POST", body });

/** A request whose body arrives in the given chunks (and, optionally, then breaks). */
function streamed(contentType: string, chunks: Uint8Array[], fail = false): Request {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else if (fail) controller.error(new Error("client went away"));
      else controller.close();
    },
  });
  return new Request(URL, {
    method: "POST",
    body,
    headers: { "Content-Type": contentType },
    duplex: "half",
  } as RequestInit);
}

describe("parseMultipart", () => {
  it("reads text fields and streams the image to a private temp file", async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const form = new FormData();
    form.append("name", "Elsa");
    form.append("relationship", "Mom");
    form.append("image", new Blob([bytes], { type: "image/jpeg" }), "elsa.jpg");
    form.append("name", "second value is ignored");
    const { fields, file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(fields).toEqual({ name: "Elsa", relationship: "Mom" });
    expect(file).not.toBeNull();
    expect(file!.size).toBe(bytes.length);
    expect(file!.filename).toBe("elsa.jpg");
    expect(file!.mimeType).toBe("image/jpeg");
    expect(path.dirname(file!.path)).toBe(path.join(config().uploadsDir, ".tmp"));
    expect(path.basename(file!.path)).toMatch(/^[0-9a-f]{32}\.upload$/);
    expect(new Uint8Array(fs.readFileSync(file!.path))).toEqual(bytes);
    expect(fs.statSync(file!.path).mode & 0o777).toBe(0o600);
    await file!.discard();
    await file!.discard(); // idempotent
    expect(fs.existsSync(file!.path)).toBe(false);
    expect(tempFiles()).toEqual([]);
  });

  it('ignores a text part named "image" (clients send "null")', async () => {
    const form = new FormData();
    form.append("title", "Beach day");
    form.append("image", "null");
    const { fields, file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(fields).toEqual({ title: "Beach day" });
    expect(file).toBeNull();
  });

  it("an empty file part (no file chosen) counts as no file", async () => {
    const form = new FormData();
    form.append("image", new File([], "", { type: "application/octet-stream" }));
    form.append("title", "x");
    const { fields, file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(file).toBeNull();
    expect(fields.title).toBe("x");
    expect(tempFiles()).toEqual([]);
  });

  it("an empty file that was chosen (a file name, no bytes) is no image", async () => {
    const form = new FormData();
    form.append("image", new File([], "empty.jpg", { type: "image/jpeg" }));
    form.append("title", "x");
    const { fields, file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({ image: [IMAGE_MESSAGES.notAnImage] });
    expect(errors.image).toEqual(["Only image files are accepted."]);
    expect(file).toBeNull();
    expect(fields.title).toBe("x");
    expect(tempFiles()).toEqual([]);
  });

  it("keeps only the first image and skips other file parts", async () => {
    const form = new FormData();
    form.append("other", new Blob(["zzz"]), "other.bin");
    form.append("image", new Blob(["first"]), "a.jpg");
    form.append("image", new Blob(["second"]), "b.jpg");
    const { file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(fs.readFileSync(file!.path, "utf8")).toBe("first");
    expect(tempFiles()).toHaveLength(1);
    await file!.discard();
  });

  it("accepts a file of exactly 15 MB", async () => {
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(UPLOAD_LIMITS.maxFileBytes)]), "big.jpg");
    const { file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(file!.size).toBe(15 * 1024 * 1024);
    await file!.discard();
  });

  it("refuses a file over 15 MB, removes it, and still reads the rest of the body", async () => {
    const form = new FormData();
    form.append("title", "before");
    form.append("image", new Blob([new Uint8Array(UPLOAD_LIMITS.maxFileBytes + 1)]), "huge.jpg");
    form.append("content", "after the file");
    const { fields, file, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({ image: [MULTIPART_MESSAGES.imageTooBig] });
    expect(errors.image).toEqual(["Image must be 15 MB or smaller."]);
    expect(file).toBeNull();
    expect(fields).toEqual({ title: "before", content: "after the file" });
    expect(tempFiles()).toEqual([]);
  });

  it("a body over the total limit is drained and refused, leaving nothing behind", async () => {
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(10 * 1024 * 1024)]), "ok.jpg");
    // past the body limit (the photos of a moment together): 10 MB + the rest + 1 MB
    form.append("padding", new Blob([new Uint8Array(UPLOAD_LIMITS.maxBodyBytes - 9 * 1024 * 1024)]), "pad.bin");
    form.append("title", "never seen");
    const request = post(form);
    const { file, errors } = await parseMultipart(request);
    expect(errors.message).toEqual([MULTIPART_MESSAGES.bodyTooBig]);
    expect(file).toBeNull();
    expect(request.bodyUsed).toBe(true);
    expect(tempFiles()).toEqual([]);
  });

  it("stops reading past the drain limit", async () => {
    const chunk = new Uint8Array(64 * 1024);
    const chunks = Array.from({ length: 100 }, () => chunk);
    const request = streamed("multipart/form-data; boundary=xyz", chunks);
    const { errors } = await parseMultipart(request, { maxBodyBytes: 100_000, maxDrainBytes: 1_000_000 });
    expect(errors.message).toBeDefined();
    expect(chunks.length).toBeGreaterThan(50); // most of the 6.4 MB was never pulled
  });

  it("refuses too many parts", async () => {
    const form = new FormData();
    for (let i = 0; i < UPLOAD_LIMITS.maxParts + 5; i++) form.append(`f${i}`, "x");
    const { errors } = await parseMultipart(post(form));
    expect(errors.message).toEqual([MULTIPART_MESSAGES.tooManyParts]);
  });

  it("refuses an over-long field value on that field", async () => {
    const form = new FormData();
    form.append("content", "a".repeat(UPLOAD_LIMITS.maxFieldBytes + 10));
    form.append("title", "fine");
    const { fields, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({ content: [MULTIPART_MESSAGES.fieldTooLong] });
    expect(fields).toEqual({ title: "fine" });
  });

  it("field names that clash with Object.prototype are ignored, not a crash", async () => {
    const form = new FormData();
    form.append("__proto__", "x".repeat(UPLOAD_LIMITS.maxFieldBytes + 1));
    form.append("constructor", "y".repeat(UPLOAD_LIMITS.maxFieldBytes + 1));
    form.append("toString", "z");
    form.append("title", "ok");
    const { fields, errors } = await parseMultipart(post(form));
    expect(errors).toEqual({});
    expect(Object.keys(fields)).toEqual(["title"]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("decodes UTF-8 field values and file names", async () => {
    const form = new FormData();
    form.append("name", "Zoë 🌼");
    form.append("image", new Blob(["x"]), "größe.jpg");
    const { fields, file } = await parseMultipart(post(form));
    expect(fields.name).toBe("Zoë 🌼");
    expect(file!.filename).toBe("größe.jpg");
    await file!.discard();
  });

  it("answers non-multipart bodies with a request-level error", async () => {
    for (const [type, body] of [
      ["application/json", JSON.stringify({ name: "Elsa" })],
      ["application/x-www-form-urlencoded", "name=Elsa"],
      ["multipart/form-data", "no boundary"],
    ]) {
      const request = new Request(URL, { method: "POST", body, headers: { "Content-Type": type! } });
      const { fields, file, errors } = await parseMultipart(request);
      expect(Object.keys(errors)).toEqual(["message"]);
      expect(fields).toEqual({});
      expect(file).toBeNull();
    }
    const { errors } = await parseMultipart(new Request(URL));
    expect(errors.message).toEqual([MULTIPART_MESSAGES.notMultipart]);
  });

  it("a truncated body (client went away mid-file) leaves no temp file", async () => {
    const head = [
      "--b0undary\r\n",
      'Content-Disposition: form-data; name="title"\r\n\r\nHello\r\n',
      "--b0undary\r\n",
      'Content-Disposition: form-data; name="image"; filename="a.jpg"\r\n',
      "Content-Type: image/jpeg\r\n\r\n",
    ].join("");
    const enc = new TextEncoder();
    for (const fail of [false, true]) {
      const request = streamed(
        "multipart/form-data; boundary=b0undary",
        [enc.encode(head), new Uint8Array(200_000)],
        fail,
      );
      const { file, errors } = await parseMultipart(request);
      expect(file).toBeNull();
      expect(errors.message).toEqual([MULTIPART_MESSAGES.malformed]);
      expect(tempFiles()).toEqual([]);
    }
  });

  it("a client that goes away at any point of the file leaves no temp file, every time", async () => {
    // The part may break before its file is opened, while it is being opened, or mid-write: the
    // parser answers only once its file is closed and removed, so the check below never races.
    const enc = new TextEncoder();
    const head = enc.encode(
      '--cut\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n',
    );
    for (let round = 0; round < 12; round++) {
      if (round % 3 === 0) fs.rmSync(uploadsTempDir(), { recursive: true, force: true }); // the folder made anew
      const body = round % 2 ? [head, new Uint8Array(1 + round * 40_000)] : [head];
      const { file, errors } = await parseMultipart(streamed("multipart/form-data; boundary=cut", body, true));
      expect(file).toBeNull();
      expect(errors.message).toEqual([MULTIPART_MESSAGES.malformed]);
      expect(tempFiles()).toEqual([]);
    }
  });

  it("a file still being opened when the client goes away is removed after it is closed (no race)", async () => {
    // Fault injection: the temp file's open is slow, and the body breaks while it is pending. The
    // parser must wait for the file to be closed before removing it, or the file appears after.
    let created!: () => void;
    const streamCreated = new Promise<void>((resolve) => (created = resolve));
    let opened!: () => void;
    const openDone = new Promise<void>((resolve) => (opened = resolve));
    const original = fs.createWriteStream;
    const slowOpen = (
      p: fs.PathLike,
      flags: fs.OpenMode,
      mode: fs.Mode,
      cb: (err: NodeJS.ErrnoException | null, fd: number) => void,
    ) =>
      setTimeout(
        () =>
          fs.open(p, flags, mode, (err, fd) => {
            cb(err, fd);
            opened();
          }),
        30,
      );
    (fs as { createWriteStream: unknown }).createWriteStream = ((p: string, opts: object) => {
      created();
      return original(p, {
        ...opts,
        fs: { open: slowOpen, write: fs.write, writev: fs.writev, close: fs.close },
      } as never);
    }) as never;
    const enc = new TextEncoder();
    const chunks = [
      enc.encode(
        '--slow\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n',
      ),
      new Uint8Array(1000),
    ];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.shift();
        if (next) return controller.enqueue(next);
        await streamCreated;
        controller.error(new Error("client went away"));
      },
    });
    const request = new Request(URL, {
      method: "POST",
      body,
      headers: { "Content-Type": "multipart/form-data; boundary=slow" },
      duplex: "half",
    } as RequestInit);
    try {
      const { file, errors } = await parseMultipart(request);
      expect(file).toBeNull();
      expect(errors.message).toEqual([MULTIPART_MESSAGES.malformed]);
      await openDone;
      expect(tempFiles()).toEqual([]);
    } finally {
      (fs as { createWriteStream: unknown }).createWriteStream = original;
    }
  });

  it("a client that goes away while the temp folder is being made leaves no temp file (no race)", async () => {
    // Fault injection: making the folder is slow, and the part breaks meanwhile. A file opened after
    // that would appear after the parser's cleanup; the parser must not open one at all.
    fs.rmSync(uploadsTempDir(), { recursive: true, force: true });
    let delivered!: () => void;
    const errorDelivered = new Promise<void>((resolve) => (delivered = resolve));
    const made: fs.WriteStream[] = [];
    const originalMkdir = fsp.mkdir;
    const originalCreate = fs.createWriteStream;
    (fsp as { mkdir: unknown }).mkdir = (async (...a: Parameters<typeof fsp.mkdir>) => {
      await errorDelivered;
      await new Promise((resolve) => setImmediate(resolve));
      return originalMkdir(...a);
    }) as never;
    (fs as { createWriteStream: unknown }).createWriteStream = ((p: string, opts: object) => {
      const stream = originalCreate(p, opts as never);
      made.push(stream);
      return stream;
    }) as never;
    const enc = new TextEncoder();
    const chunks = [
      enc.encode('--mk\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\n'),
      new Uint8Array(500),
    ];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) return controller.enqueue(next);
        controller.error(new Error("client went away"));
        delivered();
      },
    });
    const request = new Request(URL, {
      method: "POST",
      body,
      headers: { "Content-Type": "multipart/form-data; boundary=mk" },
      duplex: "half",
    } as RequestInit);
    try {
      const { file, errors } = await parseMultipart(request);
      expect(file).toBeNull();
      expect(errors.message).toEqual([MULTIPART_MESSAGES.malformed]);
      // whatever was opened has had its chance to appear
      await Promise.all(
        made.map((m) => (m.closed ? null : new Promise<void>((resolve) => m.once("close", () => resolve())))),
      );
      expect(tempFiles()).toEqual([]);
    } finally {
      (fsp as { mkdir: unknown }).mkdir = originalMkdir;
      (fs as { createWriteStream: unknown }).createWriteStream = originalCreate;
    }
  });

  it("handles a body that arrives in tiny chunks", async () => {
    const form = new FormData();
    form.append("title", "chunky");
    form.append("image", new Blob([new Uint8Array(50_000).fill(7)]), "a.jpg");
    const whole = new Uint8Array(await post(form).clone().arrayBuffer());
    const type = post(form).headers.get("Content-Type")!;
    // re-use the same boundary: build once, then split
    const request = new Request(URL, { method: "POST", body: form });
    const bytes = new Uint8Array(await request.arrayBuffer());
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
    const { fields, file, errors } = await parseMultipart(streamed(request.headers.get("Content-Type")!, chunks));
    expect(whole.length).toBeGreaterThan(50_000);
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    expect(errors).toEqual({});
    expect(fields.title).toBe("chunky");
    expect(file!.size).toBe(50_000);
    await file!.discard();
  });

  it("uploadFromBuffer makes an owned temp upload", async () => {
    const file = await uploadFromBuffer(Buffer.from("hello"), "h.txt");
    expect(fs.readFileSync(file.path, "utf8")).toBe("hello");
    await file.discard();
    expect(listUploads()).toEqual([]);
  });
});
