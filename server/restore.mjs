// @ts-check
// `npm run restore -- <file> [--force]`: puts a backup made by `npm run backup` (server/backup.mjs)
// back: the database file to DATABASE_FILE, the photo files under UPLOADS_DIR, the session secret
// beside the database. Into an empty data folder only: when a database or a photo is already there
// it refuses, unless `--force` (which removes them first). Stop the server before restoring.
// README "Your data"; docs/decisions/0024-backup-and-restore.md.
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { ARCHIVE, BACKUP_FORMAT, PHOTO_PATH, photoFiles } from "./backup.mjs";
import { env } from "./env.mjs";
import { privateDir, privateFile } from "../db/private-files.mjs";

/** @param {string} file @returns {Promise<yauzl.ZipFile>} */
function openZip(file) {
  return new Promise((resolve, reject) =>
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true },
      (err, zip) => (err || !zip ? reject(err) : resolve(zip)),
    ),
  );
}

/** @param {yauzl.ZipFile} zip @param {yauzl.Entry} entry @returns {Promise<NodeJS.ReadableStream>} */
function entryStream(zip, entry) {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))),
  );
}

/** What is already in the data folder that a restore would overwrite (empty: nothing). */
export function occupied() {
  const cfg = env();
  const found = [];
  for (const f of [cfg.databaseFile, `${cfg.databaseFile}-wal`]) if (fs.existsSync(f)) found.push(f);
  const photos = photoFiles(cfg.uploadsDir);
  if (photos.length) found.push(`${photos.length} photo files in ${cfg.uploadsDir}`);
  return found;
}

/**
 * Restores `file`. Refuses (throws) when the data folder is not empty and `force` is false.
 * @param {string} file @param {{ force?: boolean }} [opts]
 * @returns {Promise<{ photos: number }>}
 */
export async function restore(file, opts = {}) {
  const cfg = env();
  if (cfg.databaseUrl)
    throw new Error("DATABASE_URL is set: restore PostgreSQL with pg_restore; see README, Your data.");
  if (cfg.storage.kind === "s3")
    throw new Error("STORAGE=s3: restore the photos into the bucket with your S3 tool; see README, Your data.");
  const zip = await openZip(file);
  try {
    /** @type {Map<string, yauzl.Entry>} */
    const entries = new Map();
    await new Promise((resolve, reject) => {
      zip.on("entry", (/** @type {yauzl.Entry} */ e) => {
        entries.set(e.fileName, e);
        zip.readEntry();
      });
      zip.on("end", resolve);
      zip.on("error", reject);
      zip.readEntry();
    });
    const manifestEntry = entries.get(ARCHIVE.manifest);
    if (!manifestEntry || !entries.has(ARCHIVE.database)) throw new Error(`${file} is not a Sweet Moments backup`);
    const chunks = [];
    for await (const c of await entryStream(zip, manifestEntry)) chunks.push(c);
    const manifest = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (manifest.format !== BACKUP_FORMAT) throw new Error(`unknown backup format ${manifest.format}`);
    for (const name of entries.keys()) {
      const known = name === ARCHIVE.manifest || name === ARCHIVE.database || name === ARCHIVE.secret;
      if (!known && !(name.startsWith(ARCHIVE.uploads) && PHOTO_PATH.test(name.slice(ARCHIVE.uploads.length)))) {
        throw new Error(`unexpected entry ${JSON.stringify(name)} in ${file}`);
      }
    }

    const there = occupied();
    if (there.length && !opts.force) {
      throw new Error(
        `the data folder is not empty (${there.join(", ")}); restore into an empty one, or add --force to replace it`,
      );
    }
    for (const f of [cfg.databaseFile, `${cfg.databaseFile}-wal`, `${cfg.databaseFile}-shm`])
      fs.rmSync(f, { force: true });
    for (const rel of photoFiles(cfg.uploadsDir))
      fs.rmSync(path.join(cfg.uploadsDir, rel.split("/")[0] ?? ""), { recursive: true, force: true });

    privateDir(path.dirname(cfg.databaseFile));
    privateDir(cfg.uploadsDir);
    const partial = `${cfg.databaseFile}.restoring`;
    // the database and the secret are the owner's only (docs/decisions/0042-*)
    await pipeline(
      await entryStream(zip, /** @type {yauzl.Entry} */ (entries.get(ARCHIVE.database))),
      fs.createWriteStream(partial, { mode: 0o600 }),
    );
    privateFile(partial);
    let photos = 0;
    for (const [name, entry] of entries) {
      if (!name.startsWith(ARCHIVE.uploads)) continue;
      const dest = path.join(cfg.uploadsDir, name.slice(ARCHIVE.uploads.length));
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      await pipeline(await entryStream(zip, entry), fs.createWriteStream(dest));
      photos++;
    }
    const secret = entries.get(ARCHIVE.secret);
    const secretFile = path.join(path.dirname(cfg.databaseFile), "session-secret");
    if (secret) {
      await pipeline(await entryStream(zip, secret), fs.createWriteStream(secretFile, { mode: 0o600 }));
      privateFile(secretFile);
    }
    fs.renameSync(partial, cfg.databaseFile); // last: a database file means a finished restore
    return { photos };
  } finally {
    zip.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const force = args.includes("--force");
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) {
    console.error("usage: npm run restore -- <file.zip> [--force]");
    process.exit(2);
  }
  try {
    const { photos } = await restore(file, { force });
    const cfg = env();
    console.log(`Restored the database to ${cfg.databaseFile} and ${photos} photo files to ${cfg.uploadsDir}.`);
  } catch (error) {
    console.error(`restore failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
