import crypto from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Knex } from "knex";
import { config } from "~/lib/config.server";
import { db, insertedId, nowIso, type Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import type { Result } from "~/models/refusal";
import type { Photo } from "./photo";
import type { UploadedFile } from "./multipart.server";
import { processImage } from "./process.server";

// Where photos live and how their rows come and go.
//
// Files: <UPLOADS_DIR>/<key>/<width>.webp, written under <UPLOADS_DIR>/.tmp/ and moved into place
// with one directory rename, so a photo's files appear all at once or not at all. UPLOADS_DIR is
// never under public/: app/routes/images.ts is the only way the bytes leave the server.
//
// Rows: `images` (id, key, kind, owner_id, width, height, widths, placeholder, created_at).
// users/kids/daily_logs.image_id point at it (ON DELETE SET NULL).
//
// The rules for callers (app/models/*):
// - New photo for an entity: `withNewImage(file, {kind, ownerId}, async (trx, imageId, {dropImages}) => …)`.
//   Files are written first (outside any transaction: processing takes a while and SQLite has one
//   connection), then the images row and your entity update commit together. If anything throws,
//   the new files are removed and nothing is left behind.
// - Replacing: inside that callback, `dropImages([oldImageId])` deletes the old row; its files are
//   removed only after the transaction commits (so a rollback loses nothing).
// - Deleting entities that have photos (a kid with its moments, a moment, a profile picture):
//   `withImageTransaction(async (trx, {dropImages}) => …)`, same after-commit file removal.

export type ImageKind = "user" | "kid" | "log";

/** What storeImage produced: exactly the fields of a Photo (key, width, height, widths, placeholder). */
export type StoredImage = Photo;

/** A stored image as the image route needs it. */
export type ImageRecord = {
  id: number;
  key: string;
  kind: ImageKind;
  owner_id: number;
  widths: number[];
};

export type ImageOptions = {
  kind: ImageKind;
  /** The user whose privacy rule applies: the profile's user, or the kid's owner (kids and moments). */
  ownerId: number;
};

/** The stored photo, or why it was refused (invalid: the message for the `image` field). */
export type StoreResult = Result<{ image: StoredImage }>;

export type NewImageResult<T> = Result<{ value: T; imageId: number; image: StoredImage }>;

export type ImageTransactionTools = {
  /**
   * Deletes these images rows now, inside the transaction (referencing image_id columns become
   * NULL), and removes their files once the transaction has committed. Nulls are skipped.
   */
  dropImages(ids: Iterable<number | null | undefined>): Promise<void>;
};

/** 144 random bits, base64url: 24 characters of [A-Za-z0-9_-]. */
const KEY_BYTES = 18;
/** Shape of a key (also what the image route accepts; older keys may only be longer). */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

export function uploadsDir(): string {
  return config().uploadsDir;
}

/** The file of one derivative; null for a malformed key or width (so never a path outside). */
export function imageFilePath(key: string, width: number): string | null {
  if (!KEY_PATTERN.test(key) || !Number.isSafeInteger(width) || width <= 0) return null;
  return path.join(uploadsDir(), key, `${width}.webp`);
}

function newKey(): string {
  return crypto.randomBytes(KEY_BYTES).toString("base64url");
}

async function writeDurably(filePath: string, data: Uint8Array): Promise<void> {
  const fh = await fsp.open(filePath, "wx", 0o600);
  try {
    await fh.writeFile(data);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await fsp.open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // not supported everywhere; the rename itself is what matters
  }
}

/**
 * Checks, cleans and resizes an uploaded photo and writes its derivatives to
 * <UPLOADS_DIR>/<new key>/<width>.webp. Writes no database row (see withNewImage).
 *
 * Consumes `file`: its temporary file is removed whatever happens. Refused (invalid, with the
 * message for the `image` field) when the upload is not an acceptable photo; rejects only for
 * server trouble, and then nothing is left on disk either.
 */
export async function storeImage(file: UploadedFile): Promise<StoreResult> {
  let partial: string | null = null;
  try {
    const processed = await processImage(file.path);
    await file.discard(); // the original (with its GPS and all) is gone as early as possible
    if (!processed.ok) return processed;
    const { image } = processed;

    const key = newKey();
    const tmp = path.join(uploadsDir(), ".tmp");
    partial = path.join(tmp, `${key}.partial`);
    await fsp.mkdir(partial, { recursive: true, mode: 0o700 });
    for (const d of image.derivatives) await writeDurably(path.join(partial, `${d.width}.webp`), d.data);
    await syncDir(partial);
    await fsp.rename(partial, path.join(uploadsDir(), key));
    partial = null;
    await syncDir(uploadsDir());
    return {
      ok: true,
      image: { key, width: image.width, height: image.height, widths: image.widths, placeholder: image.placeholder },
    };
  } finally {
    await file.discard();
    if (partial) await fsp.rm(partial, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Removes the files of these images (after the transaction that deleted or replaced their rows
 * has committed). Never throws: failures are logged, and an orphaned directory costs only disk.
 */
export async function deleteImageFiles(keys: Iterable<string>): Promise<void> {
  for (const key of new Set(keys)) {
    if (!KEY_PATTERN.test(key)) {
      console.error(`[images] refusing to delete files of malformed key ${JSON.stringify(key)}`);
      continue;
    }
    try {
      await fsp.rm(path.join(uploadsDir(), key), { recursive: true, force: true });
    } catch (error) {
      console.error(`[images] could not delete files of image ${key}`, error);
    }
  }
}

/** Keys of these images rows (nulls skipped), e.g. to delete their files after a commit. */
export async function collectImageKeys(conn: Db, ids: Iterable<number | null | undefined>): Promise<string[]> {
  const wanted = uniqueIds(ids);
  if (!wanted.length) return [];
  const rows: { key: string }[] = await conn("images").whereIn("id", wanted).select("key");
  return rows.map((r) => r.key);
}

/** Deletes these images rows and returns their keys (for deleteImageFiles after commit). */
export async function deleteImageRows(conn: Db, ids: Iterable<number | null | undefined>): Promise<string[]> {
  const wanted = uniqueIds(ids);
  if (!wanted.length) return [];
  const keys = await collectImageKeys(conn, wanted);
  await conn("images").whereIn("id", wanted).delete();
  return keys;
}

function uniqueIds(ids: Iterable<number | null | undefined>): number[] {
  const out = new Set<number>();
  for (const id of ids) if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) out.add(id);
  return [...out];
}

function transactionTools(trx: Knex.Transaction, doomed: string[]): ImageTransactionTools {
  return {
    async dropImages(ids) {
      doomed.push(...(await deleteImageRows(trx, ids)));
    },
  };
}

/**
 * Runs `fn` in a transaction in which images rows can be dropped (`dropImages`); their files are
 * removed after the commit. If `fn` or the commit fails, nothing is removed and the error is rethrown.
 *
 * ```ts
 * await withImageTransaction(async (trx, { dropImages }) => {
 *   const logs = await trx("daily_logs").where({ kid_id }).select("image_id");
 *   const kid = await trx("kids").where({ id: kid_id }).first("image_id");
 *   await trx("kids").where({ id: kid_id }).delete();
 *   await dropImages([kid?.image_id, ...logs.map((l) => l.image_id)]);
 * });
 * ```
 */
export async function withImageTransaction<T>(
  fn: (trx: Knex.Transaction, tools: ImageTransactionTools) => Promise<T>,
): Promise<T> {
  const doomed: string[] = [];
  const value = await db().transaction((trx) => fn(trx, transactionTools(trx, doomed)));
  await deleteImageFiles(doomed);
  return value;
}

/**
 * Stores an uploaded photo and, in ONE transaction, inserts its images row and runs `fn` (which
 * points the entity at `imageId`). Consumes `file` (its temp file is always removed).
 *
 * - Not an acceptable photo: the refusal (invalid, on the `image` field); `fn` never runs.
 * - `fn` or the commit throws: the new files are removed and the error is rethrown.
 * - Images dropped with `dropImages` (the photo being replaced) lose their files after the commit.
 *
 * Call it outside any transaction (processing takes ~0.1–0.5 s; SQLite has one connection), and
 * re-check inside `fn` whatever may have changed meanwhile (throw to roll back).
 *
 * ```ts
 * const result = await withNewImage(file, { kind: "kid", ownerId: user.id }, async (trx, imageId, { dropImages }) => {
 *   const kid = await trx("kids").where({ id, user_id: user.id }).first("image_id");
 *   if (!kid) throw new KidGone();
 *   await trx("kids").where({ id }).update({ image_id: imageId });
 *   await dropImages([kid.image_id]);
 * });
 * if (!result.ok) return result;
 * ```
 */
export async function withNewImage<T>(
  file: UploadedFile,
  opts: ImageOptions,
  fn: (trx: Knex.Transaction, imageId: number, tools: ImageTransactionTools & { image: StoredImage }) => Promise<T>,
): Promise<NewImageResult<T>> {
  const stored = await storeImage(file);
  if (!stored.ok) return stored;
  const { image } = stored;
  const doomed: string[] = [];
  let imageId = 0;
  let value: T;
  try {
    value = await db().transaction(async (trx) => {
      imageId = await insertImageRow(trx, image, opts);
      return fn(trx, imageId, { ...transactionTools(trx, doomed), image });
    });
  } catch (error) {
    await deleteImageFiles([image.key]);
    throw error;
  }
  await deleteImageFiles(doomed);
  return { ok: true, value, imageId, image };
}

/**
 * Inserts the images row for files written by storeImage. Most callers want withNewImage, which
 * does this and the file cleanup; use this only inside your own transaction, and delete the files
 * (deleteImageFiles([image.key])) yourself if that transaction fails.
 */
export async function insertImageRow(conn: Db, image: StoredImage, opts: ImageOptions): Promise<number> {
  return insertedId(
    await conn("images").insert({
      key: image.key,
      kind: opts.kind,
      owner_id: opts.ownerId,
      width: image.width,
      height: image.height,
      widths: image.widths.join(","),
      placeholder: image.placeholder,
      created_at: nowIso(),
    }).returning("id"),
  );
}

const imageByKey = query<{ key: string }>((p, k) => k("images").where("images.key", p("key")).first("id", "key", "kind", "owner_id", "widths"));

/** The images row for a key, or null. */
export async function findImageByKey(key: string, conn?: Db): Promise<ImageRecord | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const row = await imageByKey.first({ key }, { conn });
  if (!row) return null;
  return {
    id: Number(row.id),
    key: String(row.key),
    kind: row.kind as ImageKind,
    owner_id: Number(row.owner_id),
    widths: String(row.widths)
      .split(",")
      .map(Number)
      .filter((n) => Number.isSafeInteger(n) && n > 0),
  };
}

const knownKeys = query<{ keys: string[] }>((p, k) => inList(k("images"), "images.key", p("keys")).select("images.key"));

/**
 * Maintenance (e.g. at server start): removes temporary files older than `olderThanMs` and image
 * directories that no images row refers to (left by a crash between writing files and committing).
 * Returns how many entries were removed. Never throws.
 */
export async function sweepUploads(olderThanMs = 60 * 60 * 1000): Promise<number> {
  const root = uploadsDir();
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  const oldEnough = async (p: string) => {
    try {
      return (await fsp.stat(p)).mtimeMs < cutoff;
    } catch {
      return false;
    }
  };
  try {
    const tmp = path.join(root, ".tmp");
    for (const name of await fsp.readdir(tmp).catch(() => [] as string[])) {
      const p = path.join(tmp, name);
      if (await oldEnough(p)) {
        await fsp.rm(p, { recursive: true, force: true });
        removed++;
      }
    }
    const dirs = (await fsp.readdir(root).catch(() => [] as string[])).filter((n) => KEY_PATTERN.test(n));
    for (let i = 0; i < dirs.length; i += 500) {
      const batch = dirs.slice(i, i + 500);
      const known = new Set((await knownKeys.all<{ key: string }>({ keys: batch })).map((r) => r.key));
      for (const key of batch) {
        if (known.has(key) || !(await oldEnough(path.join(root, key)))) continue;
        await fsp.rm(path.join(root, key), { recursive: true, force: true });
        removed++;
      }
    }
  } catch (error) {
    console.error("[images] sweeping uploads failed", error);
  }
  return removed;
}
