import { config } from "~/lib/config.server";
import { importWait } from "~/lib/limits.server";
import type { UploadedFile } from "~/images/temp-uploads.server";
import { invalidField, notFound, tooMany, type Result } from "~/models/refusal";
import { ARCHIVE_FIELD, withArchive, type Archive } from "./archive.server";
import { exportSchema, exportSource, type ExportFile } from "./export-data";
import { importExport } from "./export-import.server";
import { createdByImport, finishImport, forgetImport, getImport, startImport } from "./records.server";
import { removeKid } from "~/models/kids.server";
import { deleteMoment } from "~/models/moment-changes.server";
import { emptySummary, skip, type ImportSummary } from "./summary";
import { looksLikeTakeout, readTakeout, unpackTakeout } from "./takeout.server";
import { addPhotosToDrafts, type RefusedFile } from "~/models/drafts/add.server";
import { draftsOf, type Draft } from "~/models/drafts/read.server";
import { requireKid } from "~/models/access.server";

// "Move in" (docs/decisions/0066-imports.md): one archive, told apart by its content, never its
// name: an export of another Sweet Moments server (a `data.json` of its shape beside `index.html`)
// or a Google Takeout album (its `Google Photos/` folder, or photos with their JSON sidecars).

export const IMPORT_MESSAGES = {
  neither:
    "That ZIP is neither an export of Sweet Moments (it has no data.json) nor a Google Takeout album (it has no photos with their .json files). Nothing was imported.",
  badData: "The data.json of that export could not be read. Nothing was imported.",
  required: "Choose a ZIP file to import",
  notFound: "Import not found",
  kidRequired: "Choose the kid this Google Photos album is of: its photos become draft moments for that kid",
  noPhotos: "That Google Takeout album has no photos to import. Nothing was imported.",
  takeoutOnly:
    "A kid's imports take a Google Takeout album (its photos become drafts). Import an export of Sweet Moments with POST /api/imports.",
  tooMany: (perHour: number, waitMs: number) => {
    const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
    return `You have imported as many archives as you may in an hour (${perHour}). Try again in ${minutes === 1 ? "1 minute" : `${minutes} minutes`}.`;
  },
} as const;

/** data.json is read whole: bounded. */
const DATA_JSON_MAX = 64 * 1024 * 1024;

/** What an import did; a Takeout album's also the drafts that got photos and the files refused. */
export type ImportDone = { importId: number; summary: ImportSummary; drafts?: Draft[]; refused?: RefusedFile[] };

/** The export's data.json: at the top, or in the one folder the ZIP holds (how "Export my data" makes it). */
async function readExport(archive: Archive): Promise<Result<{ data: ExportFile; folder: string }> | null> {
  const entry = archive.entries.find((e) => /^([^/]+\/)?data\.json$/.test(e.name));
  if (!entry) return null;
  const folder = entry.name.slice(0, entry.name.length - "data.json".length);
  if (!archive.entries.some((e) => e.name === `${folder}index.html`)) return null;
  const read = await archive.read(entry.name, DATA_JSON_MAX);
  if (!read.ok) return read;
  let json: unknown;
  try {
    json = JSON.parse(read.bytes.toString("utf8"));
  } catch {
    return invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.badData);
  }
  const parsed = exportSchema.safeParse(json);
  return parsed.success
    ? { ok: true, data: parsed.data, folder }
    : invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.badData);
}

/** The field of the kid a Takeout album's drafts are for. */
export const KID_FIELD = "kid_id";

/**
 * Imports `file` (an uploaded ZIP; always consumed) into `userId`'s account. An export becomes
 * kids and moments; a Takeout album becomes draft moments for `opts.kidId` (required then).
 */
export async function importArchive(
  userId: number,
  file: UploadedFile | null,
  opts: { kidId?: number | null; only?: "takeout" } = {},
): Promise<Result<ImportDone>> {
  try {
    if (!file) return invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.required);
    const wait = await importWait(userId);
    if (wait) return tooMany(IMPORT_MESSAGES.tooMany(config().importsPerHour, wait), wait);
    return await withArchive(file.path, async (archive) => {
      const exported = await readExport(archive);
      if (exported && !exported.ok) return exported;
      if (exported && opts.only === "takeout") return invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.takeoutOnly);
      if (exported) return importExportArchive(userId, archive, exported.data, exported.folder);
      if (looksLikeTakeout(archive)) return importTakeoutArchive(userId, archive, opts.kidId ?? null);
      return invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.neither);
    });
  } finally {
    await file?.discard();
  }
}

async function importExportArchive(
  userId: number,
  archive: Archive,
  data: ExportFile,
  folder: string,
): Promise<Result<ImportDone>> {
  const source = exportSource(data);
  const importId = await startImport(userId, "export", source);
  const summary = emptySummary("export");
  await importExport(userId, archive, data, folder, { importId, userId, source }, summary);
  await finishImport(importId, summary);
  return { ok: true, importId, summary };
}

/** Photos unpacked and handed to the drafts at a time: bounds the temp files on disk. */
const TAKEOUT_BATCH = 20;

/**
 * A Takeout album into draft moments for `kidId` (docs/decisions/0065-drafts.md: grouped by the
 * day taken, the sidecar's instant winning over EXIF, the description as text), a batch of photos
 * at a time, each committed with its draft as it goes.
 */
async function importTakeoutArchive(
  userId: number,
  archive: Archive,
  kidId: number | null,
): Promise<Result<ImportDone>> {
  if (!kidId) return invalidField(KID_FIELD, IMPORT_MESSAGES.kidRequired);
  const access = await requireKid(userId, kidId, "change");
  if (!access.ok)
    return access.kind === "not-found" || access.hidden ? invalidField(KID_FIELD, IMPORT_MESSAGES.kidRequired) : access;
  const summary = { ...emptySummary("takeout"), kidId };
  const read = await readTakeout(archive, summary);
  if (!read.ok) return read;
  if (!read.photos.length) return invalidField(ARCHIVE_FIELD, IMPORT_MESSAGES.noPhotos);
  const folders = [...new Set(read.photos.map((p) => p.entry.slice(0, p.entry.lastIndexOf("/") + 1)))].sort();
  const importId = await startImport(userId, "takeout", `takeout:${kidId}:${folders.join("|")}`.slice(0, 200));
  const drafts = new Set<number>();
  const refused: RefusedFile[] = [];
  for (let i = 0; i < read.photos.length; i += TAKEOUT_BATCH) {
    const { items, files } = await unpackTakeout(archive, read.photos.slice(i, i + TAKEOUT_BATCH), summary);
    try {
      const added = await addPhotosToDrafts(userId, kidId, items);
      if (!added.ok) return added;
      for (const d of added.drafts) drafts.add(d.id);
      summary.photos += items.length - added.refused.length;
      for (const r of added.refused) skip(summary, `${r.name}: ${r.reason}`);
      refused.push(...added.refused);
    } finally {
      await Promise.all(files.map((f) => f.discard()));
    }
  }
  summary.moments = drafts.size;
  await finishImport(importId, summary);
  return { ok: true, importId, summary, drafts: await draftsOf(userId, [...drafts]), refused };
}

/**
 * Discards what an import of an export brought (its author only; the kids and moments it created,
 * through the same removals as the pages: removeKid, deleteMoment), then forgets the import. A
 * Takeout album's drafts are discarded on their review page. Answers how many went.
 */
export async function discardImport(
  userId: number,
  importId: number,
): Promise<Result<{ kids: number; moments: number }>> {
  const record = await getImport(userId, importId);
  if (!record) return notFound(IMPORT_MESSAGES.notFound);
  const { kidIds, momentIds } = await createdByImport(userId, importId);
  let kids = 0;
  let moments = 0;
  for (const id of kidIds) if ((await removeKid(userId, id)).ok) kids++;
  // the moments of the kids removed went with them (not found now)
  for (const id of momentIds) if ((await deleteMoment(userId, id)).ok) moments++;
  await forgetImport(userId, importId);
  return { ok: true, kids, moments };
}
