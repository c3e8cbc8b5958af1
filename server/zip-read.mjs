// @ts-check
// Reading a ZIP archive from a file with yauzl, for the two places that take one in: the restore of
// a backup (server/restore.mjs) and the import of an export or a Google Takeout album
// (app/imports/archive.server.ts, docs/decisions/0066-imports.md). Only the central directory is
// read whole (one small record per entry); an entry's bytes are streamed, one entry at a time, to a
// file whose CRC-32 is checked as it is written, so memory holds one chunk whatever the archive's size.
import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import yauzl from "yauzl";

/**
 * Opens `file`. `raw`: names stay bytes (`decodeStrings: false`) so the caller judges them itself,
 * instead of yauzl ending the whole read at the first name it dislikes.
 * @param {string} file @param {{ raw?: boolean }} [opts] @returns {Promise<yauzl.ZipFile>}
 */
export function openZip(file, opts = {}) {
  return new Promise((resolve, reject) =>
    yauzl.open(
      file,
      {
        lazyEntries: true,
        autoClose: false,
        strictFileNames: true,
        validateEntrySizes: true,
        ...(opts.raw ? { decodeStrings: false } : {}),
      },
      (err, zip) =>
        err || !zip ? reject(new Error(`${file} is not a readable ZIP archive (${err?.message})`)) : resolve(zip),
    ),
  );
}

/**
 * Every entry of the central directory, in order, through `onEntry` (which may throw to stop).
 * @param {yauzl.ZipFile} zip @param {(entry: yauzl.Entry) => void} onEntry @returns {Promise<void>}
 */
export function eachEntry(zip, onEntry) {
  return new Promise((resolve, reject) => {
    zip.on("entry", (/** @type {yauzl.Entry} */ e) => {
      try {
        onEntry(e);
      } catch (error) {
        reject(error);
        return;
      }
      zip.readEntry();
    });
    zip.on("end", () => resolve());
    zip.on("error", reject);
    zip.readEntry();
  });
}

/** @param {yauzl.ZipFile} zip @returns {Promise<Map<string, yauzl.Entry>>} */
export async function readEntries(zip) {
  /** @type {Map<string, yauzl.Entry>} */
  const entries = new Map();
  await eachEntry(zip, (e) => entries.set(e.fileName, e));
  return entries;
}

/** @param {yauzl.ZipFile} zip @param {yauzl.Entry} entry @returns {Promise<import("node:stream").Readable>} */
export function entryStream(zip, entry) {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))),
  );
}

/**
 * Unpacks `entry` to `dest` and checks its CRC-32 (yauzl checks sizes, not checksums). `name`: the
 * entry as messages name it.
 * @param {yauzl.ZipFile} zip @param {yauzl.Entry} entry @param {string} dest
 * @param {{ mode?: number, name?: string }} [opts]
 */
export async function unpack(zip, entry, dest, opts = {}) {
  const name = opts.name ?? entry.fileName;
  let crc = 0;
  try {
    await pipeline(
      await entryStream(zip, entry),
      async function* (/** @type {AsyncIterable<Buffer>} */ source) {
        for await (const chunk of source) {
          crc = zlib.crc32(chunk, crc);
          yield chunk;
        }
      },
      fs.createWriteStream(dest, opts.mode === undefined ? {} : { mode: opts.mode }),
    );
  } catch (error) {
    throw new Error(`${name} in the archive is damaged (${error instanceof Error ? error.message : error})`);
  }
  if (crc >>> 0 !== entry.crc32 >>> 0)
    throw new Error(`${name} in the archive is damaged (its checksum does not match)`);
}

/**
 * An entry's bytes in memory, for small entries only (a manifest, a JSON sidecar): refused past `max` bytes.
 * @param {yauzl.ZipFile} zip @param {yauzl.Entry} entry @param {number} max @param {string} [name]
 */
export async function readSmall(zip, entry, max, name = entry.fileName) {
  if (entry.uncompressedSize > max) throw new Error(`${name} in the archive is too large to read`);
  /** @type {Buffer[]} */
  const chunks = [];
  let crc = 0;
  for await (const c of await entryStream(zip, entry)) {
    crc = zlib.crc32(c, crc);
    chunks.push(c);
  }
  if (crc >>> 0 !== entry.crc32 >>> 0)
    throw new Error(`${name} in the archive is damaged (its checksum does not match)`);
  return Buffer.concat(chunks);
}
