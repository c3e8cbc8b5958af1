import crypto from "node:crypto";
import type { ImageRow } from "~/lib/tables";
import type { Knex } from "knex";
import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { Result } from "~/models/refusal";
import { ORIGINAL_FILE, type Photo } from "./photo";
import type { UploadedFile } from "./multipart.server";
import { KEY_PATTERN, photoStore } from "./photo-store.server";
import { processImage } from "./process.server";

export { KEY_PATTERN } from "./photo-store.server";

// Photos and their rows: how they come and go.
//
// Files: the derivatives of a photo, `<key>/<width>.webp` in the photo store, and for a moment's
// photo its full-size copy `<key>/original.jpg` (docs/decisions/0063-full-size-originals.md)
// (app/images/photo-store.server.ts: the local disk under UPLOADS_DIR by default, or an S3 bucket;
// docs/decisions/0015-photo-store.md). The store writes all of a photo's files or none; the images
// row is the commit point: a photo exists for the app once its row has committed, and files
// without a row are leftovers that the sweeper (sweepUploads) removes. The only way the bytes
// leave the server is app/routes/images.ts.
//
// Rows: `images` (id, key, kind, owner_id, width, height, widths, placeholder, created_at,
// original_width/original_height: null when there is no original.jpg).
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

export type ImageKind = "user" | "kid" | "moment";

// `images.kind` keeps the stored word for a moment's photo, "log" (the column's check constraint
// allows user, kid, log; the table is an edge), while code says "moment". STORED_KIND (writing) and
// kindOfStored (reading) are the one place that translates.
const STORED_KIND = { user: "user", kid: "kid", moment: "log" } as const satisfies Record<ImageKind, ImageRow["kind"]>;

function kindOfStored(stored: ImageRow["kind"]): ImageKind {
  return stored === STORED_KIND.moment ? "moment" : stored;
}

/** What storeImage produced: exactly the fields of a Photo (key, width, height, widths, placeholder, original). */
export type StoredImage = Photo;

/** A stored image as the image route needs it. */
export type ImageRecord = {
  id: number;
  key: string;
  kind: ImageKind;
  owner_id: number;
  widths: number[];
  /** Whether the full-size original.jpg is stored. */
  original: boolean;
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
  /** Removes everything stored under these keys once the transaction has committed (a clip's files). */
  dropStoreKeys(keys: Iterable<string | null | undefined>): void;
};

/** 144 random bits, base64url: 24 characters of [A-Za-z0-9_-]. */
const KEY_BYTES = 18;

/** Only a moment's photo keeps a full-size copy (kids' photos and profile pictures show small). */
const keepsOriginal = (kind: ImageKind) => kind === "moment";

/** The name of one derivative under its key in the photo store. */
export function photoFileName(width: number): string | null {
  return Number.isSafeInteger(width) && width > 0 ? `${width}.webp` : null;
}

export function newKey(): string {
  return crypto.randomBytes(KEY_BYTES).toString("base64url");
}

/**
 * Checks, cleans and resizes an uploaded photo and writes its derivatives to the photo store as
 * <new key>/<width>.webp (all of them or none), with `keepOriginal` also <new key>/original.jpg.
 * Writes no database row (see withNewImage).
 *
 * Consumes `file`: its temporary file is removed whatever happens. Refused (invalid, with the
 * message for the `image` field) when the upload is not an acceptable photo; rejects only for
 * server trouble, and then nothing is left in the store either.
 */
export async function storeImage(file: UploadedFile, opts: { keepOriginal?: boolean } = {}): Promise<StoreResult> {
  try {
    const processed = await processImage(file.path, opts);
    await file.discard(); // the original (with its GPS and all) is gone as early as possible
    if (!processed.ok) return processed;
    const { image } = processed;

    const key = newKey();
    const { original } = image;
    await photoStore().putAll(key, [
      ...image.derivatives.map((d) => ({ name: photoFileName(d.width)!, data: d.data })),
      ...(original ? [{ name: ORIGINAL_FILE, data: original.data }] : []),
    ]);
    const { width, height, widths, placeholder } = image;
    const stored: StoredImage = { key, width, height, widths, placeholder };
    if (original) stored.original = { width: original.width, height: original.height };
    return { ok: true, image: stored };
  } finally {
    await file.discard();
  }
}

/**
 * Removes the files of these images from the photo store (after the transaction that deleted or
 * replaced their rows has committed). Never throws: failures are logged, and an orphaned photo
 * costs only storage (the sweeper removes it later).
 */
export async function deleteImageFiles(keys: Iterable<string>): Promise<void> {
  for (const key of new Set(keys)) {
    if (!KEY_PATTERN.test(key)) {
      console.error(`[images] refusing to delete files of malformed key ${JSON.stringify(key)}`);
      continue;
    }
    try {
      await photoStore().deleteAll(key);
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
    dropStoreKeys(keys) {
      for (const key of keys) if (key) doomed.push(key);
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
  const value = await writeTransaction((trx) => fn(trx, transactionTools(trx, doomed)));
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
  const stored = await storeImage(file, { keepOriginal: keepsOriginal(opts.kind) });
  if (!stored.ok) return stored;
  const { image } = stored;
  const doomed: string[] = [];
  let imageId = 0;
  let value: T;
  try {
    value = await writeTransaction(async (trx) => {
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
 * Several photos at once (the photos of a moment, docs/decisions/0030-several-photos-per-moment.md):
 * stores them ONE AFTER ANOTHER through the same pipeline as `withNewImage` (so memory holds one
 * photo's work at a time), then inserts their images rows and runs `fn` in ONE transaction.
 * Consumes every file. `field(i)`: the form field an error of the i-th file is reported on.
 *
 * - One of them is not an acceptable photo: the refusal (invalid, on `field(i)`), the photos
 *   stored before it are removed, the files after it are discarded unread; nothing is written.
 * - `fn` or the commit throws: every new file is removed and the error is rethrown.
 */
export async function withNewImages<T>(
  files: UploadedFile[],
  opts: ImageOptions,
  field: (index: number) => string,
  fn: (trx: Knex.Transaction, imageIds: number[], tools: ImageTransactionTools) => Promise<T>,
): Promise<Result<{ value: T; imageIds: number[] }>> {
  const stored: StoredImage[] = [];
  try {
    for (const [i, file] of files.entries()) {
      const one = await storeImage(file, { keepOriginal: keepsOriginal(opts.kind) });
      if (!one.ok) {
        await deleteImageFiles(stored.map((s) => s.key));
        const messages = Object.values(one.fieldErrors ?? {}).flat();
        return { ...one, fieldErrors: { [field(i)]: messages.length ? messages : [one.message ?? ""] } };
      }
      stored.push(one.image);
    }
  } catch (error) {
    await deleteImageFiles(stored.map((s) => s.key));
    throw error;
  } finally {
    await Promise.all(files.map((f) => f.discard()));
  }
  const doomed: string[] = [];
  let imageIds: number[] = [];
  let value: T;
  try {
    value = await writeTransaction(async (trx) => {
      imageIds = [];
      for (const image of stored) imageIds.push(await insertImageRow(trx, image, opts));
      return fn(trx, imageIds, transactionTools(trx, doomed));
    });
  } catch (error) {
    await deleteImageFiles(stored.map((s) => s.key));
    throw error;
  }
  await deleteImageFiles(doomed);
  return { ok: true, value, imageIds };
}

/**
 * Inserts the images row for files written by storeImage. Most callers want withNewImage, which
 * does this and the file cleanup; use this only inside your own transaction, and delete the files
 * (deleteImageFiles([image.key])) yourself if that transaction fails.
 */
export async function insertImageRow(conn: Db, image: StoredImage, opts: ImageOptions): Promise<number> {
  return insertedId(
    await conn("images")
      .insert({
        key: image.key,
        kind: STORED_KIND[opts.kind],
        owner_id: opts.ownerId,
        width: image.width,
        height: image.height,
        widths: image.widths.join(","),
        placeholder: image.placeholder,
        original_width: image.original?.width ?? null,
        original_height: image.original?.height ?? null,
        created_at: nowIso(),
      })
      .returning("id"),
  );
}

const imageByKey = query<
  { key: string },
  Pick<ImageRow, "id" | "key" | "kind" | "owner_id" | "widths" | "original_width">
>((p, k) =>
  k("images").where("images.key", p("key")).first("id", "key", "kind", "owner_id", "widths", "original_width"),
);

/** The images row for a key, or null. */
export async function findImageByKey(key: string, conn?: Db): Promise<ImageRecord | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const row = await imageByKey.first({ key }, { conn });
  if (!row) return null;
  return {
    id: row.id,
    key: row.key,
    kind: kindOfStored(row.kind),
    owner_id: row.owner_id,
    widths: row.widths
      .split(",")
      .map(Number)
      .filter((n) => Number.isSafeInteger(n) && n > 0),
    original: row.original_width != null,
  };
}

// The sweeper of leftovers (files without a row) is app/images/sweep.server.ts.
export { sweepUploads } from "./sweep.server";
