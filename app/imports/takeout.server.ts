import type { UploadedFile } from "~/images/temp-uploads.server";
import type { Result } from "~/models/refusal";
import type { Archive } from "./archive.server";
import { skip, type ImportSummary } from "./summary";

// A Google Takeout album (docs/decisions/0066-imports.md): `Takeout/Google Photos/<Album>/IMG_1.jpg`
// beside its JSON sidecar, whose `photoTakenTime.timestamp` (seconds since 1970, as a string) says
// when it was taken and `description` what its owner wrote. Google names the sidecar
// `<photo>.json`, or `<photo>.supplemental-metadata.json`, cut short (the whole name at most 51
// characters: `IMG_…_long_name.jp.json`, `….supplemental-metad.json`), a duplicate's
// `IMG_1.jpg(1).json` for `IMG_1(1).jpg`, and an edited copy `IMG_1-edited.jpg` shares its
// original's. This module only reads: it answers the photos as the drafts take them (a temp file,
// the instant it was taken, the text), and what it left out.

/** One photo of the album as the drafts take it (`addPhotosToDrafts`). */
export type TakeoutItem = { name: string; path: string; takenAt?: Date; text?: string };

/** A photo found in the archive, before it is unpacked. */
export type TakeoutPhoto = { entry: string; name: string; takenAt?: Date; text?: string };

const PHOTO = /\.(jpe?g|png|heic|heif|webp|gif|avif)$/i;
const VIDEO = /\.(mp4|mov|m4v|3gp|avi|mkv|webm)$/i;
const SIDECAR_MAX = 256 * 1024;
const SUPPLEMENTAL = "supplemental-metadata";
/** A sidecar's name (without `.json`) this long or longer may be a cut-short photo name. */
const CUT_AT = 40;

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/") + 1);

/** The photo name a sidecar speaks of (maybe cut short): `.json`, a (cut) `.supplemental-metadata` and a moved `(n)` undone. */
export function sidecarStem(sidecar: string): string {
  let stem = baseName(sidecar).replace(/\.json$/i, "");
  const dot = stem.lastIndexOf(".");
  const tail = dot >= 0 ? stem.slice(dot + 1) : "";
  // "IMG_1.jpg.supplemental-metadata", "IMG_1.jpg.supplemental-metad", "IMG_1.jpg.s"
  if (tail && SUPPLEMENTAL.startsWith(tail) && dot > 0 && stem.slice(0, dot).includes(".")) stem = stem.slice(0, dot);
  // "IMG_1.jpg(1)" speaks of "IMG_1(1).jpg"
  const dup = /^(.*?)(\.[^.]+)(\(\d+\))$/.exec(stem);
  if (dup) stem = `${dup[1]}${dup[3]}${dup[2]}`;
  return stem;
}

/** The sidecar of `photo` among `stems` (stem → sidecar path, one folder), or undefined. */
export function sidecarOf(photo: string, stems: Map<string, string>): string | undefined {
  const name = baseName(photo);
  const original = name.replace(/-(edited|bearbeitet|modifié)(?=\.[^.]+$)/i, "");
  for (const candidate of [name, original]) {
    const exact = stems.get(candidate);
    if (exact) return exact;
  }
  // a cut-short sidecar name: the longest that starts the photo's name
  let best: [string, string] | undefined;
  for (const [stem, path] of stems) {
    if (stem.length >= CUT_AT && (name.startsWith(stem) || original.startsWith(stem)))
      if (!best || stem.length > best[0].length) best = [stem, path];
  }
  return best?.[1];
}

type Sidecar = { photoTakenTime?: { timestamp?: unknown }; description?: unknown };

/** What a sidecar says: the instant taken and the description (both optional). */
export function readSidecar(bytes: Buffer): { takenAt?: Date; text?: string } {
  let json: Sidecar;
  try {
    json = JSON.parse(bytes.toString("utf8")) as Sidecar;
  } catch {
    return {};
  }
  const out: { takenAt?: Date; text?: string } = {};
  const seconds = Number(json.photoTakenTime?.timestamp);
  if (Number.isFinite(seconds) && seconds > 0) out.takenAt = new Date(seconds * 1000);
  if (typeof json.description === "string" && json.description.trim()) out.text = json.description.trim();
  return out;
}

/** Does the archive look like a Google Takeout (its folder, or photos with sidecars)? Reads no bytes. */
export function looksLikeTakeout(archive: Archive): boolean {
  const names = archive.entries.map((e) => e.name);
  if (names.some((n) => /(^|\/)Google (Photos|Fotos)\//.test(n))) return true;
  const jsons = new Set(names.filter((n) => /\.json$/i.test(n)));
  return names.some((n) => PHOTO.test(n) && (jsons.has(`${n}.json`) || jsons.has(`${n}.${SUPPLEMENTAL}.json`)));
}

/** Every photo of the album with what its sidecar says, in the archive's order; videos and others are said skipped. */
export async function readTakeout(
  archive: Archive,
  summary: ImportSummary,
): Promise<Result<{ photos: TakeoutPhoto[] }>> {
  const stemsByFolder = new Map<string, Map<string, string>>();
  for (const { name } of archive.entries) {
    if (!/\.json$/i.test(name)) continue;
    const folder = folderOf(name);
    let stems = stemsByFolder.get(folder);
    if (!stems) stemsByFolder.set(folder, (stems = new Map()));
    stems.set(sidecarStem(name), name);
  }
  const photos: TakeoutPhoto[] = [];
  let videos = 0;
  for (const { name, size } of archive.entries) {
    if (VIDEO.test(name)) {
      videos++;
      continue;
    }
    if (!PHOTO.test(name) || size === 0) continue;
    const sidecar = sidecarOf(name, stemsByFolder.get(folderOf(name)) ?? new Map());
    let said: { takenAt?: Date; text?: string } = {};
    if (sidecar) {
      const read = await archive.read(sidecar, SIDECAR_MAX);
      if (!read.ok) return read;
      said = readSidecar(read.bytes);
    }
    photos.push({ entry: name, name: baseName(name), ...said });
  }
  if (videos)
    skip(
      summary,
      `${videos === 1 ? "A video was" : `${videos} videos were`} not imported: add clips to a moment on its page.`,
    );
  return { ok: true, photos };
}

/**
 * Unpacks `photos` to temp upload files (one after another), as the drafts take them; a photo
 * that is damaged in the archive is left out and said. The caller owns the files (`discard`).
 */
export async function unpackTakeout(
  archive: Archive,
  photos: TakeoutPhoto[],
  summary: ImportSummary,
): Promise<{ items: TakeoutItem[]; files: UploadedFile[] }> {
  const items: TakeoutItem[] = [];
  const files: UploadedFile[] = [];
  for (const p of photos) {
    const got = await archive.extract(p.entry);
    if (!got.ok) {
      skip(summary, `${p.name}: ${got.message}`);
      continue;
    }
    files.push(got.file);
    items.push({
      name: p.name,
      path: got.file.path,
      ...(p.takenAt ? { takenAt: p.takenAt } : {}),
      ...(p.text ? { text: p.text } : {}),
    });
  }
  return { items, files };
}
