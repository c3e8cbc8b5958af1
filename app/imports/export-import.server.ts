import { today } from "~/lib/dates.server";
import { isUniqueViolation, nowIso, writeTransaction } from "~/lib/db.server";
import { ALT_MAX } from "~/forms/moment";
import { withNewImage, withNewImages } from "~/images/storage.server";
import type { UploadedFile } from "~/images/temp-uploads.server";
import { videoTools } from "~/video/clips.server";
import { captionLines, type Cue, MAX_CAPTION_CHARS, MAX_CAPTION_LINES, parseCaptionLines } from "~/video/captions";
import { insertKid } from "~/models/kids.server";
import { insertMoment } from "~/models/moment-changes.server";
import { writePhotos } from "~/models/moment-photos.server";
import { discardStoredClips, storeClips, writeClips, clipsAdded, type StoredClip } from "~/models/moment-clips.server";
import { requireKid } from "~/models/access.server";
import type { Refusal, Result } from "~/models/refusal";
import type { Archive } from "./archive.server";
import {
  altText,
  type ExportFile,
  type ExportFileKid,
  type ExportFileMoment,
  kidInput,
  momentInput,
} from "./export-data";
import { importedItems, recordItem } from "./records.server";
import { skip, type ImportSummary } from "./summary";

// Importing an export of another Sweet Moments server into the signed-in account
// (docs/decisions/0066-imports.md): its kids become the account's own kids, their moments keep
// their dates, milestones, texts, audiences, photos with their alt texts (through the normal photo
// pipeline: decoded, location stripped, sizes made) and, when this server has ffmpeg, their clips.
// Other people's likes and comments are counted, never imported as them.
//
// One moment at a time: its files are unpacked to temp upload files, processed, and the moment,
// its photo rows and its import_items row are committed in ONE transaction (photo files removed
// when it fails), so an import that stops half-way leaves whole moments and no orphan file, and the
// same archive imported again skips what is there and brings the rest.

type At = { importId: number; userId: number; source: string };

class KidGone extends Error {}

/** The path of a file the export names, inside the archive (data.json's folder). */
const inFolder = (folder: string, file: string) => `${folder}${file}`;

export async function importExport(
  userId: number,
  archive: Archive,
  data: ExportFile,
  folder: string,
  at: At,
  summary: ImportSummary,
): Promise<void> {
  const done = await importedItems(userId, at.source);
  const now = today();
  const clipsTaken = videoTools() !== null;
  for (const kid of data.kids) {
    for (const m of kid.moments) {
      summary.othersLikes += m.likes.length;
      summary.othersComments += m.comments.length;
    }
    let kidId = done.get(`kid:${kid.id}`)?.kid_id ?? null;
    if (kidId) summary.alreadyThere++;
    else {
      const made = await importKid(userId, archive, kid, folder, at, summary, now);
      if (made === null) continue;
      kidId = made;
    }
    // oldest first, so the moments are created in the order they were lived
    for (const m of [...kid.moments].reverse()) {
      if (done.get(`moment:${m.id}`)?.daily_log_id) {
        summary.alreadyThere++;
        continue;
      }
      if (!(await importMoment(userId, kidId, archive, m, folder, at, summary, clipsTaken))) break;
    }
  }
}

/** Creates the kid (with its photo when it has one that is a photo); null when it cannot be. */
async function importKid(
  userId: number,
  archive: Archive,
  kid: ExportFileKid,
  folder: string,
  at: At,
  summary: ImportSummary,
  now: string,
): Promise<number | null> {
  const checked = kidInput(kid, now);
  if ("problem" in checked) {
    skip(summary, checked.problem);
    return null;
  }
  const { input } = checked;
  const create = async (file: UploadedFile | null): Promise<Result<{ id: number }>> => {
    if (!file) {
      const id = await writeTransaction(async (trx) => {
        const kidId = await insertKid(trx, userId, input);
        await recordItem(trx, at, `kid:${kid.id}`, { kidId });
        return kidId;
      });
      return { ok: true, id };
    }
    const made = await withNewImage(file, { kind: "kid", ownerId: userId }, async (trx, imageId) => {
      const kidId = await insertKid(trx, userId, input, { imageId });
      await recordItem(trx, at, `kid:${kid.id}`, { kidId });
      return kidId;
    });
    return made.ok ? { ok: true, id: made.value } : made;
  };
  let photo: UploadedFile | null = null;
  if (kid.photo) {
    const got = await archive.extract(inFolder(folder, kid.photo));
    if (got.ok) photo = got.file;
    else skip(summary, `${input.name}'s photo: ${got.message}`);
  }
  try {
    let made = await create(photo);
    if (!made.ok && photo) {
      skip(summary, `${input.name}'s photo: ${made.message ?? "not a photo"}`);
      made = await create(null);
    }
    if (!made.ok) return null;
    summary.kids++;
    return made.id;
  } catch (error) {
    // the same archive imported at the same time in another request: that one brings this kid
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

type Photo = { name: string; alt: string };

/**
 * Creates one moment with its photos (and clips); a photo that cannot be read is left out (said in
 * the summary) and the moment made with the others. Answers false when the kid is gone.
 */
async function importMoment(
  userId: number,
  kidId: number,
  archive: Archive,
  m: ExportFileMoment,
  folder: string,
  at: At,
  summary: ImportSummary,
  clipsTaken: boolean,
): Promise<boolean> {
  const input = momentInput(m);
  const label = `"${input.title}" (${m.taken_on})`;
  let photos: Photo[] = m.photos.map((p) => ({
    name: inFolder(folder, p.file),
    alt: altText(p.alt, input.title, ALT_MAX),
  }));
  if (m.clips.length && !clipsTaken)
    skip(
      summary,
      `${label}: ${m.clips.length === 1 ? "its clip was" : `its ${m.clips.length} clips were`} not imported (this server has no ffmpeg to prepare videos).`,
    );
  const clipRefs = clipsTaken ? m.clips : [];
  for (;;) {
    const files = await unpackAll(archive, photos, summary, label);
    photos = files.photos;
    const clips = await unpackClips(archive, clipRefs, folder, summary, label, input.title);
    const kept: Result<{ stored: StoredClip[] }> = clips.length ? await storeClips(clips) : { ok: true, stored: [] };
    const stored = kept.ok ? kept.stored : [];
    if (!kept.ok) skip(summary, `${label}: its clips were not imported (${kept.message ?? "not a video"}).`);
    const plan = photos.map((p, i) => ({ added: i, alt: p.alt }));
    try {
      const result = await withNewImages(
        files.files,
        { kind: "moment", ownerId: userId },
        (i) => `photo_${i}`,
        async (trx, imageIds, { dropImages, dropStoreKeys }) => {
          if (!(await requireKid(userId, kidId, "change", trx)).ok) throw new KidGone();
          const id = await insertMoment(trx, kidId, input, { imageId: null, createdAt: nowIso(), postedBy: userId });
          await writePhotos(trx, id, plan, imageIds, dropImages);
          await writeClips(trx, id, stored, { drop: dropImages, dropKeys: dropStoreKeys });
          await recordItem(trx, at, `moment:${m.id}`, { momentId: id });
        },
      );
      if (!result.ok) {
        await discardStoredClips(stored);
        // the photo that is not a photo is left out; the moment is tried again with the others
        const bad = badPhoto(result);
        if (bad === null) {
          skip(summary, `${label} was not imported: ${result.message ?? "it could not be read"}.`);
          return true;
        }
        skip(summary, `${label}: a photo was left out (${result.message ?? "not a photo"}).`);
        photos = photos.filter((_, i) => i !== bad);
        continue;
      }
      clipsAdded(stored);
      summary.moments++;
      summary.photos += photos.length;
      summary.clips += stored.length;
      return true;
    } catch (error) {
      await discardStoredClips(stored);
      if (error instanceof KidGone) return false;
      // the same archive imported at the same time in another request: that one brought it
      if (isUniqueViolation(error)) {
        summary.alreadyThere++;
        return true;
      }
      throw error;
    }
  }
}

/** The index of the photo a refusal of withNewImages names, or null. */
function badPhoto(refusal: Refusal): number | null {
  const field = Object.keys(refusal.fieldErrors ?? {})[0] ?? "";
  const match = /^photo_(\d+)$/.exec(field);
  return match ? Number(match[1]) : null;
}

/** Unpacks the photos one after another; one missing from the archive is left out (and said). */
async function unpackAll(
  archive: Archive,
  photos: Photo[],
  summary: ImportSummary,
  label: string,
): Promise<{ photos: Photo[]; files: UploadedFile[] }> {
  const kept: Photo[] = [];
  const files: UploadedFile[] = [];
  for (const p of photos) {
    const got = await archive.extract(p.name);
    if (!got.ok) {
      skip(summary, `${label}: a photo was left out (${got.message}).`);
      continue;
    }
    kept.push(p);
    files.push(got.file);
  }
  return { photos: kept, files };
}

async function unpackClips(
  archive: Archive,
  clips: ExportFileMoment["clips"],
  folder: string,
  summary: ImportSummary,
  label: string,
  title: string,
) {
  const out = [];
  for (const [i, c] of clips.entries()) {
    const got = await archive.extract(inFolder(folder, c.file));
    if (!got.ok) {
      skip(summary, `${label}: a clip was left out (${got.message}).`);
      continue;
    }
    const cues = c.captions ? await captionsOf(archive, inFolder(folder, c.captions), summary, label) : undefined;
    out.push({ file: got.file, description: altText(c.description, title, 250), slot: i + 1, cues });
  }
  return out;
}

/** The most a captions file of the export may hold: every caption at its longest, and their times. */
const MAX_CAPTIONS_BYTES = MAX_CAPTION_LINES * (MAX_CAPTION_CHARS * 4 + 64) + 16;

/**
 * A clip's captions from the export (the WebVTT this app wrote), checked as the form checks the
 * parent's lines; captions that cannot be read are left out (and said), the clip is imported.
 */
async function captionsOf(
  archive: Archive,
  name: string,
  summary: ImportSummary,
  label: string,
): Promise<Cue[] | undefined> {
  const got = await archive.read(name, MAX_CAPTIONS_BYTES);
  const parsed = got.ok ? parseCaptionLines(captionLines(got.bytes.toString("utf8"))) : null;
  if (parsed?.ok && parsed.cues.length) return parsed.cues;
  const why = !got.ok
    ? (got.message ?? "it could not be read")
    : parsed && !parsed.ok
      ? parsed.message
      : "no captions this app can read";
  skip(summary, `${label}: a clip's captions were left out (${why}).`);
  return undefined;
}
