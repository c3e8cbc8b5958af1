import fsp from "node:fs/promises";
import yauzl from "yauzl";
import { config } from "~/lib/config.server";
import { newTempUploadPath, uploadedFile, uploadsTempDir, type UploadedFile } from "~/images/temp-uploads.server";
import { invalidField, type Refusal, type Result } from "~/models/refusal";
import { eachEntry, openZip, readSmall, unpack } from "../../server/zip-read.mjs";

// Reading an archive someone uploads ("Move in", docs/decisions/0066-imports.md) without trusting
// it. Everything is judged on the ZIP's central directory BEFORE a byte is unpacked: the number of
// entries (read from the directory's end record, before even listing them), the sum of their
// sizes, each entry's compression ratio, and its path (one that would leave the folder it is
// unpacked to: `..`, absolute, a drive letter, backslashes, NUL) and kind (a symlink, an encrypted
// entry). A refused archive writes nothing. Then entries are unpacked ONE AT A TIME, when the
// importer reaches them, to private temp upload files (`*.upload` under <UPLOADS_DIR>/.tmp/,
// removed with the request, swept after a crash), streamed with their CRC-32 and sizes checked
// (server/zip-read.mjs, shared with the restore of a backup): memory holds one chunk.

/** The form field of the archive (pages and /api). */
export const ARCHIVE_FIELD = "archive";

const MB = 1024 * 1024;
/** Entries smaller than this are not judged by their ratio (a small JSON file compresses well and is harmless). */
const RATIO_FLOOR = MB;

export type ArchiveLimits = { maxEntries: number; maxUnpackedBytes: number; maxRatio: number };

export function archiveLimits(): ArchiveLimits {
  const cfg = config();
  return {
    maxEntries: cfg.importMaxEntries,
    maxUnpackedBytes: cfg.importMaxUnpackedMb * MB,
    maxRatio: cfg.importMaxRatio,
  };
}

export const ARCHIVE_MESSAGES = {
  notZip: "That file is not a ZIP archive. Choose the ZIP file you downloaded.",
  tooManyEntries: (n: number, max: number) =>
    `That archive holds ${n.toLocaleString("en")} files; at most ${max.toLocaleString("en")} can be imported at once. Nothing was imported.`,
  tooLarge: (maxMb: number) =>
    `That archive unpacks to more than ${maxMb.toLocaleString("en")} MB; at most that can be imported at once. Nothing was imported.`,
  bomb: (name: string) =>
    `${name} in that archive unpacks to far more than it takes (a "zip bomb"), so the archive was refused. Nothing was imported.`,
  unsafePath: (name: string) =>
    `The archive holds a file whose name points outside its folder (${name}), so it was refused. Nothing was imported.`,
  link: (name: string) =>
    `The archive holds a link (${name}) rather than a file, so it was refused. Nothing was imported.`,
  encrypted: (name: string) => `${name} in that archive is encrypted: only plain ZIP archives can be imported.`,
  damaged: (name: string) => `${name} in that archive is damaged. Download the archive again and import it again.`,
} as const;

/** One file of the archive, as its directory describes it. */
export type ArchiveEntry = {
  /** Its path in the archive, checked: relative, `/`-separated, no `..`. */
  name: string;
  /** Its unpacked size in bytes. */
  size: number;
};

export type Archive = {
  /** Every file (folders left out), in the archive's order. */
  entries: ArchiveEntry[];
  /** A small entry's bytes (refused past `max`). */
  read(name: string, max: number): Promise<Result<{ bytes: Buffer }>>;
  /** Unpacks an entry to a temp upload file, which the caller then owns (UploadedFile). */
  extract(name: string): Promise<Result<{ file: UploadedFile }>>;
};

const refuse = (message: string): Refusal => invalidField(ARCHIVE_FIELD, message);

/** Why this entry name is unsafe, or null. */
function unsafeName(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL in a name is refused on purpose
  if (/[\\\u0000]/.test(name)) return true;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return true;
  return name.split("/").some((part) => part === ".." || part === ".");
}

/** A name as messages show it: printable, short. */
function shown(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are shown as "?"
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > 80 ? `…${clean.slice(-79)}` : clean;
}

/** The entry's mode bits (Unix "made by"), or 0. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
function isSymlink(entry: yauzl.Entry): boolean {
  const madeByUnix = entry.versionMadeBy >> 8 === 3;
  return madeByUnix && ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

/**
 * Opens the ZIP at `file` and judges it whole (see the top of this file); on success runs `use`
 * with it, then closes it. Refusals are `invalid` on the `archive` field, with nothing written.
 */
export async function withArchive<T extends object>(
  file: string,
  use: (archive: Archive) => Promise<Result<T>>,
  limits: ArchiveLimits = archiveLimits(),
): Promise<Result<T>> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file, { raw: true });
  } catch {
    return refuse(ARCHIVE_MESSAGES.notZip);
  }
  try {
    // the directory's end record says how many entries there are: judged before listing any
    if (zip.entryCount > limits.maxEntries)
      return refuse(ARCHIVE_MESSAGES.tooManyEntries(zip.entryCount, limits.maxEntries));
    const checked = await checkEntries(zip, limits);
    if (!checked.ok) return checked;
    const { byName } = checked;
    const archive: Archive = {
      entries: [...byName.entries()].map(([name, e]) => ({ name, size: e.uncompressedSize })),
      async read(name, max) {
        const entry = byName.get(name);
        if (!entry) return refuse(ARCHIVE_MESSAGES.damaged(shown(name)));
        try {
          return { ok: true, bytes: await readSmall(zip, entry, max, shown(name)) };
        } catch {
          return refuse(ARCHIVE_MESSAGES.damaged(shown(name)));
        }
      },
      async extract(name) {
        const entry = byName.get(name);
        if (!entry) return refuse(ARCHIVE_MESSAGES.damaged(shown(name)));
        await fsp.mkdir(uploadsTempDir(), { recursive: true, mode: 0o700 });
        const path = newTempUploadPath();
        const file = uploadedFile(path, entry.uncompressedSize, name.split("/").pop() ?? "file", "");
        try {
          await unpack(zip, entry, path, { mode: 0o600, name: shown(name) });
        } catch {
          await file.discard();
          return refuse(ARCHIVE_MESSAGES.damaged(shown(name)));
        }
        return { ok: true, file };
      },
    };
    return await use(archive);
  } finally {
    zip.close();
  }
}

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Reads the directory, judging each entry as it comes; answers the files by name. */
async function checkEntries(
  zip: yauzl.ZipFile,
  limits: ArchiveLimits,
): Promise<Result<{ byName: Map<string, yauzl.Entry> }>> {
  const byName = new Map<string, yauzl.Entry>();
  let total = 0;
  const stop = (message: string) => {
    throw new Refused(refuse(message));
  };
  try {
    await eachEntry(zip, (entry) => {
      const raw = entry.fileName as unknown as Buffer;
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
      if (unsafeName(name)) stop(ARCHIVE_MESSAGES.unsafePath(shown(name)));
      if (isSymlink(entry)) stop(ARCHIVE_MESSAGES.link(shown(name)));
      if (name.endsWith("/")) return; // a folder: nothing to unpack
      if (entry.isEncrypted()) stop(ARCHIVE_MESSAGES.encrypted(shown(name)));
      const size = entry.uncompressedSize;
      if (size > RATIO_FLOOR && size > entry.compressedSize * limits.maxRatio) stop(ARCHIVE_MESSAGES.bomb(shown(name)));
      total += size;
      if (total > limits.maxUnpackedBytes) stop(ARCHIVE_MESSAGES.tooLarge(Math.round(limits.maxUnpackedBytes / MB)));
      // a name twice: the first counts (the second could not be told apart by the importer)
      if (!byName.has(name)) byName.set(name, entry);
    });
  } catch (error) {
    if (error instanceof Refused) return error.refusal;
    return refuse(ARCHIVE_MESSAGES.notZip);
  }
  return { ok: true, byName };
}
