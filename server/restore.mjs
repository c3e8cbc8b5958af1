// @ts-check
// `npm run restore -- <file> [--force]`: puts a backup made by `npm run backup` (server/backup.mjs)
// back: the database file to DATABASE_FILE, the photo files under UPLOADS_DIR, the session secret
// beside the database. Into an empty data folder only: when a database or a photo is already there
// it refuses, unless `--force` (which replaces them). Stop the server before restoring.
// README "Your data"; docs/decisions/0024-backup-and-restore.md.
//
// Nothing is touched before the whole archive is known good: every entry is unpacked beside its
// place and its CRC-32 checked, the database passes SQLite's integrity check, the photo count is
// the manifest's. Only then is the old data moved aside, the new put in place, and the old removed;
// when any step fails, what was placed is taken out and the old put back.
import fs from "node:fs";
import path from "node:path";
import knexFactory from "knex";
import { knexConfig } from "../db/knexfile.mjs";
import { ARCHIVE, BACKUP_FORMAT, PHOTO_PATH, photoFiles } from "./backup.mjs";
import { env } from "./env.mjs";
import { privateDir, privateFile } from "../db/private-files.mjs";
import { openZip, readEntries, readSmall, unpack } from "./zip-read.mjs";

/** A folder of one stored photo's files under UPLOADS_DIR (app/images/photo-store-contract.server.ts). */
const KEY_DIR = /^[A-Za-z0-9_-]{22,64}$/;
/** Inside UPLOADS_DIR, so renames stay on one file system; neither name is a photo key. */
const STAGED = ".restoring";
const ASIDE = ".before-restore";

/** @param {import("yauzl").ZipFile} zip @param {import("yauzl").Entry} entry */
async function readJson(zip, entry) {
  const bytes = await readSmall(zip, entry, 16 * 1024 * 1024);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new Error(`${entry.fileName} in the archive is damaged (not JSON)`);
  }
}

/** SQLite's own check of a whole database file. @param {string} file */
async function checkDatabase(file) {
  const k = knexFactory(knexConfig(file));
  try {
    const rows = await k.raw("pragma integrity_check");
    const result = rows.map((/** @type {{ integrity_check: string }} */ r) => r.integrity_check).join("; ");
    if (result !== "ok") throw new Error(result);
  } catch (error) {
    throw new Error(
      `${ARCHIVE.database} in the archive is damaged (${error instanceof Error ? error.message : error})`,
    );
  } finally {
    await k.destroy();
  }
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

/** The places a restore writes: each pair is [the live path, where its new content is unpacked first]. */
function places() {
  const cfg = env();
  const dataDir = path.dirname(cfg.databaseFile);
  return {
    database: cfg.databaseFile,
    stagedDatabase: `${cfg.databaseFile}${STAGED}`,
    secret: path.join(dataDir, "session-secret"),
    stagedSecret: path.join(dataDir, `session-secret${STAGED}`),
    uploads: cfg.uploadsDir,
    stagedUploads: path.join(cfg.uploadsDir, STAGED),
    asideUploads: path.join(cfg.uploadsDir, ASIDE),
  };
}

/** @param {string} dir */
const keyDirs = (dir) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && KEY_DIR.test(d.name))
        .map((d) => d.name)
    : [];

/**
 * Moves the old data aside and the staged data in. Answers `undo` (puts the old back) and `commit`
 * (removes the old).
 * @param {ReturnType<typeof places>} p @param {boolean} hasSecret
 */
function swap(p, hasSecret) {
  /** @type {(() => void)[]} */
  const undo = [];
  /** @type {string[]} */
  const old = [];
  /** @param {string} from @param {string} to */
  const move = (from, to) => {
    fs.renameSync(from, to);
    undo.push(() => fs.renameSync(to, from));
  };
  try {
    for (const f of [p.database, `${p.database}-wal`, `${p.database}-shm`, ...(hasSecret ? [p.secret] : [])]) {
      if (!fs.existsSync(f)) continue;
      move(f, `${f}${ASIDE}`);
      old.push(`${f}${ASIDE}`);
    }
    fs.mkdirSync(p.asideUploads, { mode: 0o700 });
    undo.push(() => fs.rmdirSync(p.asideUploads));
    old.push(p.asideUploads);
    for (const key of keyDirs(p.uploads)) move(path.join(p.uploads, key), path.join(p.asideUploads, key));
    for (const key of keyDirs(p.stagedUploads)) move(path.join(p.stagedUploads, key), path.join(p.uploads, key));
    if (hasSecret) move(p.stagedSecret, p.secret);
    move(p.stagedDatabase, p.database); // last: a database file means a finished restore
  } catch (error) {
    for (const step of undo.reverse()) step();
    throw error;
  }
  for (const f of old) fs.rmSync(f, { recursive: true, force: true });
}

/**
 * Restores `file`. Refuses (throws) when the data folder is not empty and `force` is false, and
 * when any part of the archive is damaged; either way the data folder is left as it was.
 * @param {string} file @param {{ force?: boolean }} [opts]
 * @returns {Promise<{ photos: number }>}
 */
export async function restore(file, opts = {}) {
  const cfg = env();
  if (cfg.databaseUrl)
    throw new Error("DATABASE_URL is set: restore PostgreSQL with pg_restore; see README, Your data.");
  if (cfg.storage.kind === "s3")
    throw new Error("STORAGE=s3: restore the photos into the bucket with your S3 tool; see README, Your data.");
  const p = places();
  for (const left of [p.stagedDatabase, p.stagedSecret, p.stagedUploads, p.asideUploads, `${p.database}${ASIDE}`]) {
    if (fs.existsSync(left))
      throw new Error(`${left} is left from an interrupted restore: look at it, move it away, then restore again`);
  }
  const zip = await openZip(file);
  try {
    const entries = await readEntries(zip);
    const manifestEntry = entries.get(ARCHIVE.manifest);
    const databaseEntry = entries.get(ARCHIVE.database);
    if (!manifestEntry || !databaseEntry) throw new Error(`${file} is not a Sweet Moments backup`);
    const manifest = await readJson(zip, manifestEntry);
    if (manifest.format !== BACKUP_FORMAT) throw new Error(`unknown backup format ${manifest.format}`);
    const photoEntries = [];
    for (const [name, entry] of entries) {
      if (name === ARCHIVE.manifest || name === ARCHIVE.database || name === ARCHIVE.secret) continue;
      if (!(name.startsWith(ARCHIVE.uploads) && PHOTO_PATH.test(name.slice(ARCHIVE.uploads.length))))
        throw new Error(`unexpected entry ${JSON.stringify(name)} in ${file}`);
      photoEntries.push(entry);
    }
    if (typeof manifest.photos === "number" && manifest.photos !== photoEntries.length)
      throw new Error(`${file} is incomplete: ${photoEntries.length} of its ${manifest.photos} photo files are there`);

    const there = occupied();
    if (there.length && !opts.force) {
      throw new Error(
        `the data folder is not empty (${there.join(", ")}); restore into an empty one, or add --force to replace it`,
      );
    }

    const madeDataDir = !fs.existsSync(path.dirname(p.database));
    const madeUploads = !fs.existsSync(p.uploads);
    privateDir(path.dirname(p.database));
    privateDir(p.uploads);
    const secretEntry = entries.get(ARCHIVE.secret);
    try {
      // the database and the secret are the owner's only (docs/decisions/0042-*)
      await unpack(zip, databaseEntry, p.stagedDatabase, { mode: 0o600 });
      privateFile(p.stagedDatabase);
      await checkDatabase(p.stagedDatabase);
      fs.mkdirSync(p.stagedUploads, { mode: 0o700 });
      for (const entry of photoEntries) {
        const dest = path.join(p.stagedUploads, entry.fileName.slice(ARCHIVE.uploads.length));
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        await unpack(zip, entry, dest);
      }
      if (secretEntry) {
        await unpack(zip, secretEntry, p.stagedSecret, { mode: 0o600 });
        privateFile(p.stagedSecret);
      }
      swap(p, Boolean(secretEntry));
    } catch (error) {
      for (const f of [p.stagedDatabase, `${p.stagedDatabase}-journal`, p.stagedSecret, p.stagedUploads])
        fs.rmSync(f, { recursive: true, force: true });
      if (madeUploads) fs.rmSync(p.uploads, { recursive: true, force: true });
      if (madeDataDir && !fs.existsSync(p.database))
        fs.rmSync(path.dirname(p.database), { recursive: true, force: true });
      throw error;
    }
    fs.rmSync(p.stagedUploads, { recursive: true, force: true });
    return { photos: photoEntries.length };
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
