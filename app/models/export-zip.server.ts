import { PassThrough, Readable } from "node:stream";
import { ZipFile } from "yazl";
import { photoStore, type PhotoStore } from "~/images/photo-store.server";
import { ORIGINAL_FILE } from "~/images/photo";
import { indexPage, kidPage, kidPagePath } from "./export-album";
import { exportJson, exportPhotos, loadExport, safeName, type ExportData } from "./export.server";

// "Download all my data" as ONE ZIP stream (docs/spec.md §2, docs/decisions/0023-streamed-export.md):
// yazl writes entries one after another; each photo is opened from the photo store only when the
// ZIP reaches it (addReadStreamLazy), so at most one photo is being read at a time and the bytes
// flow to the browser as they come (backpressure all the way: the browser's pace sets the store's).
// Nothing is built whole in memory or on disk. Photos are already compressed (JPEG, WebP): stored as
// is. A moment photo's file is its full-size copy when it has one, else its largest stored size
// (docs/decisions/0063-full-size-originals.md).

export type ExportZip = {
  /** The ZIP's bytes: consume or destroy it. */
  stream: Readable;
  /** The suggested file name. */
  fileName: string;
  /** Entries in the ZIP (photos, data.json, album pages). */
  entries: number;
};

/** The largest stored size of a photo. */
function largestFile(widths: number[]): string {
  return `${widths[widths.length - 1] ?? 0}.webp`;
}

/** The export of `userId` as a ZIP stream; null when there is no such user. */
export async function exportZip(userId: number, store: PhotoStore = photoStore()): Promise<ExportZip | null> {
  const data = await loadExport(userId);
  return data ? zipOf(data, store) : null;
}

export function zipOf(data: ExportData, store: PhotoStore): ExportZip {
  const folder = `sweet-moments-${safeName(data.account.username)}-${data.today}`;
  const zip = new ZipFile();
  const mtime = new Date(data.exported_at);
  let entries = 0;
  const add = (path: string, text: string) => {
    zip.addBuffer(Buffer.from(text, "utf8"), `${folder}/${path}`, { mtime });
    entries++;
  };

  let reading: Readable | null = null; // the photo being read now (at most one)
  let stopped = false;
  /** A stored file, opened only when the ZIP reaches it. */
  const addStored = (path: string, key: string, name: string) => {
    zip.addReadStreamLazy(`${folder}/${path}`, { mtime, compress: false }, (cb) => {
      store.open(key, name).then(
        (opened) => {
          // a file that is gone is an empty entry: the rest of the export still comes
          const stream = opened ? opened.stream : Readable.from([]);
          if (stopped) stream.destroy();
          reading = stream;
          cb(null, stream);
        },
        (error: unknown) => cb(error, Readable.from([])),
      );
    });
    entries++;
  };
  for (const { photo, file } of exportPhotos(data)) {
    addStored(file, photo.key, photo.original ? ORIGINAL_FILE : largestFile(photo.widths));
  }
  // the clips (docs/decisions/0064-video-clips.md): each one's larger rendition, read as the ZIP reaches it
  for (const clip of data.kids.flatMap((k) => k.moments.flatMap((m) => m.clips))) {
    addStored(clip.file, clip.key, "large.mp4");
    if (clip.captions) add(clip.captions.file, clip.captions.text);
  }
  add("data.json", exportJson(data));
  const taken = new Set<string>();
  const kidPages = new Map(data.kids.map((k) => [k.id, kidPagePath(k, taken)]));
  add("index.html", indexPage(data, kidPages));
  for (const kid of data.kids) add(kidPages.get(kid.id)!, kidPage(kid, data));
  zip.end();

  // a plain Node Readable for the callers; an error (a photo that cannot be read) ends it with that error
  const out = new PassThrough();
  const zipped = zip.outputStream as Readable;
  zip.on("error", (error: Error) => out.destroy(error));
  zipped.on("error", (error: Error) => out.destroy(error)).pipe(out);
  // the reader went away before the end (a download cancelled): let go of the photo being read
  out.on("close", () => {
    if (out.readableEnded) return;
    stopped = true;
    (reading as Readable | null)?.destroy();
    zipped.unpipe(out);
    zipped.destroy();
  });
  return { stream: out, fileName: `${folder}.zip`, entries };
}
