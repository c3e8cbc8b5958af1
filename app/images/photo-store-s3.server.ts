import fs from "node:fs";
import fsp from "node:fs/promises";
import { Readable } from "node:stream";
import type { ListObjectsV2CommandOutput, S3Client } from "@aws-sdk/client-s3";
import type { Config } from "~/lib/config.server";
import { assertKey, assertPut, contentTypeOf, isKey, isName } from "./photo-store-contract.server";
import type { ByteRange, OpenedPhotoFile, PhotoFile, PhotoStore, StoredKey } from "./photo-store-contract.server";

// The S3 backend of the photo store (STORAGE=s3; docs/decisions/0015-photo-store.md).
//
// Objects `<prefix><key>/<name>` in one bucket, written with the bucket's default (private) ACL.
// Reads are streamed from GetObject through the image route, which checks access on every request;
// no public or presigned URL ever reaches a browser. S3 has no multi-object transaction: putAll
// writes the files side by side and, if any write fails, deletes all of them again. What makes a
// photo exist for the app is its images row, committed only after putAll succeeded; objects left
// by a crash in between have no row and are removed by the sweeper (sweepUploads).

type S3Settings = Extract<Config["storage"], { kind: "s3" }>;

// The AWS SDK is loaded when the store is first used, not at start: it adds about 30 MB to every
// process that imports it, and a self-hoster on local disk never needs it
// (docs/decisions/0036-lean-processes.md).
type Sdk = typeof import("@aws-sdk/client-s3");
let sdkLoading: Promise<Sdk> | null = null;
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= import("@aws-sdk/client-s3"));

/** Errors S3 (and S3-compatible servers) answer for "no such object". */
function isMissing(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return (
    e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.Code === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404
  );
}

function isInvalidRange(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "InvalidRange" || e?.$metadata?.httpStatusCode === 416;
}

/** "bytes 2-5/11" → { start: 2, end: 5, total: 11 }. */
function parseContentRange(value: string | undefined): { start: number; end: number; total: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value?.trim() ?? "");
  return match ? { start: Number(match[1]), end: Number(match[2]), total: Number(match[3]) } : null;
}

/** Bytes `from`..`to` (inclusive, offsets into `source`) of a stream, then it is let go. */
function sliceStream(source: Readable, from: number, to: number): Readable {
  async function* bytes() {
    let at = 0;
    for await (const chunk of source) {
      const b = chunk as Buffer;
      const lo = Math.max(0, from - at);
      const hi = Math.min(b.length, to + 1 - at);
      if (hi > lo) yield b.subarray(lo, hi);
      at += b.length;
      if (at > to) break; // leaving the loop destroys the source
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

export class S3PhotoStore implements PhotoStore {
  readonly kind = "s3";
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly settings: S3Settings;
  private connecting: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
    this.settings = settings;
  }

  /** The SDK and this store's client, made on first use. */
  private s3(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.connecting ??= loadSdk().then((sdk) => ({ sdk, client: this.newClient(sdk) }));
    return this.connecting;
  }

  private newClient(sdk: Sdk): S3Client {
    const settings = this.settings;
    return new sdk.S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}), // otherwise the SDK's default chain (AWS_* variables, instance role, …)
      // checksums only where S3 requires them: many S3-compatible servers refuse the newer
      // flexible-checksum headers, and TLS plus Content-Length already guard the transfer
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  private objectKey(key: string, name: string): string {
    return `${this.prefix}${key}/${name}`;
  }

  async putAll(key: string, files: readonly PhotoFile[]): Promise<void> {
    assertPut(key, files);
    const { sdk, client } = await this.s3();
    const results = await Promise.allSettled(
      files.map(async (f) => {
        // a file on disk is streamed with its length (one PUT takes up to 5 GB)
        const body = "data" in f ? f.data : fs.createReadStream(f.file);
        const length = "data" in f ? f.data.byteLength : (await fsp.stat(f.file)).size;
        await client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: this.objectKey(key, f.name),
            Body: body,
            ContentType: contentTypeOf(f.name),
            ContentLength: length,
          }),
        );
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (!failed) return;
    // all or nothing: remove whatever got written (also a write whose answer was lost); a failing
    // clean-up leaves objects without a row, which the sweeper removes later
    await this.deleteObjects(files.map((f) => this.objectKey(key, f.name))).catch((error) => {
      console.error(`[images] could not remove the partly stored photo ${key}`, error);
    });
    throw failed.reason;
  }

  async open(key: string, name: string, range?: ByteRange): Promise<OpenedPhotoFile | null> {
    if (!isKey(key) || !isName(name)) return null;
    if (range) {
      const { start, end } = range;
      if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`range start ${start} is not a byte offset`);
      if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
        throw new RangeError(`range end ${end} is before its start ${start}`);
    }
    const { sdk, client } = await this.s3();
    let out;
    try {
      out = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key, name),
          ...(range ? { Range: `bytes=${range.start}-${range.end ?? ""}` } : {}),
        }),
      );
    } catch (error) {
      if (isMissing(error)) return null;
      if (range && isInvalidRange(error)) throw new RangeError(`range start ${range.start} is outside ${key}/${name}`);
      throw error;
    }
    const body = out.Body;
    if (!(body instanceof Readable)) throw new Error("S3 GetObject answered no stream body");
    const length = Number(out.ContentLength);
    if (!range) {
      if (Number.isSafeInteger(length)) return { stream: body, size: length, totalSize: length };
      body.destroy();
      throw new Error(`S3 GetObject answered no length for ${key}/${name}`);
    }
    // what the server sent: a part (Content-Range), or the whole object when it ignored the Range
    const sent =
      parseContentRange(out.ContentRange) ??
      (Number.isSafeInteger(length) ? { start: 0, end: length - 1, total: length } : null);
    if (!sent || sent.start > range.start) {
      body.destroy();
      throw new Error(`S3 GetObject answered an unusable range for ${key}/${name}: ${out.ContentRange ?? "none"}`);
    }
    const end = Math.min(range.end ?? sent.total - 1, sent.total - 1);
    const size = end - range.start + 1;
    // some S3-compatible servers answer more than was asked (s3rver: all of "bytes=0-0"): cut it
    const stream =
      sent.start === range.start && sent.end === end
        ? body
        : sliceStream(body, range.start - sent.start, end - sent.start);
    return { stream, size, totalSize: sent.total };
  }

  async stat(key: string, name: string): Promise<{ size: number } | null> {
    if (!isKey(key) || !isName(name)) return null;
    const { sdk, client } = await this.s3();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key, name) }));
      return { size: Number(out.ContentLength ?? 0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** Every object under `prefix`, page by page (1,000 at most per page). */
  private async *objects(prefix: string): AsyncIterable<{ Key: string; LastModified?: Date }> {
    const { sdk, client } = await this.s3();
    let token: string | undefined;
    do {
      const page: ListObjectsV2CommandOutput = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) yield { Key: o.Key, LastModified: o.LastModified };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async list(key: string): Promise<string[]> {
    if (!isKey(key)) return [];
    const folder = `${this.prefix}${key}/`;
    const names: string[] = [];
    for await (const o of this.objects(folder)) {
      const name = o.Key.slice(folder.length);
      if (isName(name)) names.push(name);
    }
    return names.sort();
  }

  async deleteAll(key: string): Promise<void> {
    assertKey(key);
    const folder = `${this.prefix}${key}/`;
    const keys: string[] = [];
    for await (const o of this.objects(folder)) keys.push(o.Key);
    await this.deleteObjects(keys);
  }

  private async deleteObjects(keys: string[]): Promise<void> {
    const { sdk, client } = await this.s3();
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const out = await client.send(
        new sdk.DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const problem = out.Errors?.find((e) => e.Code !== "NoSuchKey");
      if (problem)
        throw new Error(`S3 could not delete ${problem.Key}: ${problem.Code} ${problem.Message ?? ""}`.trim());
    }
  }

  /**
   * One flat listing of the prefix, grouped by key: S3 lists keys in byte order, so the files of
   * one key come together. (A server that does not would only make a key appear twice; the
   * sweeper takes that in its stride.)
   */
  async *listKeys(): AsyncIterable<StoredKey> {
    let current: StoredKey | null = null;
    for await (const o of this.objects(this.prefix)) {
      const rest = o.Key.slice(this.prefix.length);
      const slash = rest.indexOf("/");
      const key = slash > 0 ? rest.slice(0, slash) : "";
      if (!isKey(key)) continue;
      const modifiedAt = o.LastModified ?? new Date();
      if (current && current.key === key) {
        if (modifiedAt > current.modifiedAt) current.modifiedAt = modifiedAt;
        continue;
      }
      if (current) yield current;
      current = { key, modifiedAt };
    }
    if (current) yield current;
  }

  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = null;
    if (connecting) (await connecting).client.destroy();
  }
}
