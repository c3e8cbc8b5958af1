// @ts-check
// `npm run backup -- <file>`: one ZIP archive with a consistent copy of the SQLite database, made
// while the server keeps running (`VACUUM INTO`: one read transaction, so a snapshot of one
// moment, whatever is written meanwhile), then every photo file of the uploads folder and the
// session secret. `npm run restore -- <file>` puts it back (server/restore.mjs). README "Your data";
// docs/decisions/0024-backup-and-restore.md.
//
// PostgreSQL (DATABASE_URL): use pg_dump instead; with STORAGE=s3 the photos are in the bucket:
// copy it with the bucket's own tools. Both are refused here with that advice.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import knexFactory from "knex";
import yazl from "yazl";
import { knexConfig } from "../db/knexfile.mjs";
import { env } from "./env.mjs";
import { privateDir, privateFile } from "../db/private-files.mjs";

export const BACKUP_FORMAT = 1;
/** Names inside the archive. */
export const ARCHIVE = {
  manifest: "backup.json",
  database: "database.sqlite",
  secret: "session-secret",
  uploads: "uploads/",
};
/** A stored photo file: `<key>/<name>` (app/images/photo-store-contract.server.ts). */
export const PHOTO_PATH = /^[A-Za-z0-9_-]{22,64}\/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/** Every stored photo file under `root` as `<key>/<name>`, sorted (temp files and anything else left out). */
export function photoFiles(root) {
  /** @type {string[]} */
  const out = [];
  if (!fs.existsSync(root)) return out;
  for (const key of fs.readdirSync(root, { withFileTypes: true })) {
    if (!key.isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(root, key.name), { withFileTypes: true })) {
      const rel = `${key.name}/${file.name}`;
      if (file.isFile() && PHOTO_PATH.test(rel)) out.push(rel);
    }
  }
  return out.sort();
}

/**
 * Writes the backup archive to `target` (through `<target>.partial`, renamed at the end).
 * @param {string} target
 * @returns {Promise<{ photos: number; missing: number; bytes: number }>}
 */
export async function backup(target) {
  const cfg = env();
  if (cfg.databaseUrl) {
    throw new Error(
      'DATABASE_URL is set: back up PostgreSQL with pg_dump (e.g. `pg_dump -Fc -f sweet.dump "$DATABASE_URL"`); see README, Your data.',
    );
  }
  if (cfg.storage.kind === "s3") {
    throw new Error(
      "STORAGE=s3: the photos are in the bucket; copy it with your S3 tool (e.g. `aws s3 sync` or `rclone sync`); see README, Your data.",
    );
  }
  if (!fs.existsSync(cfg.databaseFile)) throw new Error(`no database at ${cfg.databaseFile}`);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-backup-"));
  const snapshot = path.join(work, ARCHIVE.database);
  const knex = knexFactory(knexConfig(cfg.databaseFile));
  try {
    // the consistent copy: one read transaction, the server may go on writing meanwhile
    await knex.raw("VACUUM INTO ?", [snapshot]);
    // the photo rows of that moment: their files are copied (a file deleted since is reported)
    const reader = knexFactory(knexConfig(snapshot));
    /** @type {{ key: string; widths: string; original_width: number | null }[]} */
    const images = await reader("images").select("key", "widths", "original_width");
    // the clips: their renditions, and the source of one still waiting to be prepared
    // (docs/decisions/0064-video-clips.md)
    /** @type {{ key: string; status: string; source_key: string | null }[]} */
    const clips = (await reader.schema.hasTable("videos"))
      ? await reader("videos").select("key", "status", "source_key")
      : [];
    await reader.destroy();
    // the sizes of each photo, and its full-size copy when it has one (docs/decisions/0063-full-size-originals.md)
    const wanted = new Set(
      images.flatMap((i) => [
        ...String(i.widths)
          .split(",")
          .map((w) => `${i.key}/${w}.webp`),
        ...(i.original_width == null ? [] : [`${i.key}/original.jpg`]),
      ]),
    );
    for (const c of clips) {
      if (c.status === "ready") for (const r of ["small", "large"]) wanted.add(`${c.key}/${r}.mp4`);
      if (c.source_key) wanted.add(`${c.source_key}/source`);
    }
    const present = new Set(photoFiles(cfg.uploadsDir));

    const zip = new yazl.ZipFile();
    const mtime = new Date();
    zip.addFile(snapshot, ARCHIVE.database, { mtime });
    const secretFile = path.join(cfg.dataDir, "session-secret");
    if (fs.existsSync(secretFile)) zip.addFile(secretFile, ARCHIVE.secret, { mtime, compress: false });
    let photos = 0;
    let missing = 0;
    for (const rel of [...wanted].sort()) {
      if (!present.has(rel)) {
        missing++;
        continue;
      }
      zip.addFile(path.join(cfg.uploadsDir, rel), ARCHIVE.uploads + rel, { compress: false });
      photos++;
    }
    const manifest = {
      format: BACKUP_FORMAT,
      created_at: mtime.toISOString(),
      photos,
      missing,
      id: crypto.randomUUID(),
    };
    zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2)), ARCHIVE.manifest, { mtime });
    zip.end();
    // the archive holds the session secret and every photo: the owner's only, like its folder when made here
    privateDir(path.dirname(path.resolve(target)));
    const partial = `${target}.partial`;
    try {
      await pipeline(
        /** @type {NodeJS.ReadableStream} */ (zip.outputStream),
        fs.createWriteStream(partial, { mode: 0o600 }),
      );
    } catch (error) {
      // a failed backup leaves no half-written archive behind
      fs.rmSync(partial, { force: true });
      throw error;
    }
    privateFile(partial);
    fs.renameSync(partial, target);
    return { photos, missing, bytes: fs.statSync(target).size };
  } finally {
    await knex.destroy();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2];
  if (!target || target.startsWith("-")) {
    console.error("usage: npm run backup -- <file.zip>");
    process.exit(2);
  }
  try {
    const { photos, missing, bytes } = await backup(target);
    console.log(`Backed up the database and ${photos} photo files to ${target} (${(bytes / 1e6).toFixed(1)} MB).`);
    if (missing) console.warn(`${missing} photo files were deleted while the backup ran (their rows are in the copy).`);
  } catch (error) {
    console.error(`backup failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
