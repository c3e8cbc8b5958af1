// @ts-check
// BENCH_ONLY=drafts (docs/decisions/0065-drafts.md): one "Add photos" request of 50 photos of about
// 4 MB each (12-megapixel JPEGs, five days of ten), as POST /api/kids/{id}/imports takes them: the
// server's peak resident memory (the kernel's high-water mark, and sampled) and the time from the
// first byte sent to the answer. The photos go through the pipeline one after another, so memory
// should stay near a single upload's: the same request with one of those photos is measured first,
// on the same server, as the baseline.
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

const PHOTOS = 50;

/** A 12-MP noisy JPEG of about 4 MB, taken on `day` (EXIF). @param {string} day @param {number} quality */
async function phonePhoto(day, quality) {
  const noise = await sharp({
    create: { width: 4000, height: 3000, channels: 3, noise: { type: "gaussian", mean: 128, sigma: 18 } },
  })
    .png()
    .toBuffer();
  return sharp(noise)
    .jpeg({ quality })
    .withExif({ IFD2: { DateTimeOriginal: `${day.replaceAll("-", ":")} 10:00:00` } })
    .toBuffer();
}

/**
 * @param {{ base: string, pid: number, tmp: string, cookie: string,
 *   peakDuring: (pid: number, work: () => Promise<any>) => Promise<{ value: any, peakMB: number }> }} o
 */
export async function draftsFigures({ base, pid, tmp, cookie, peakDuring }) {
  // about 4 MB each: the quality that gets there (noise at q87 is about 4 MB)
  let quality = 87;
  let bytes = await phonePhoto("2024-06-01", quality);
  while (bytes.length > 4.4 * 1024 * 1024 && quality > 50) bytes = await phonePhoto("2024-06-01", (quality -= 5));
  const days = ["2024-06-01", "2024-06-02", "2024-06-03", "2024-06-04", "2024-06-05"];
  const photos = [];
  for (const day of days) {
    const one = await phonePhoto(day, quality);
    fs.writeFileSync(path.join(tmp, `${day}.jpg`), one);
    for (let i = 0; i < PHOTOS / days.length; i++) photos.push({ day, bytes: one });
  }
  const kidRes = await fetch(`${base}/api/kids/new`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", birth_date: "2020-01-01", relationship: "Mom" }),
  });
  const kid = await kidRes.json();
  /** One "Add photos" request of `list`, with the server's peak memory meanwhile. @param {typeof photos} list */
  const addPhotos = (list) => {
    const form = new FormData();
    list.forEach((p, i) => {
      form.append("image", new Blob([new Uint8Array(p.bytes)], { type: "image/jpeg" }), `${p.day}-${i}.jpg`);
    });
    return peakDuring(pid, async () => {
      const started = performance.now();
      const r = await fetch(`${base}/api/kids/${kid.id}/imports`, { method: "POST", headers: { cookie }, body: form });
      const body = await r.json();
      return {
        status: r.status,
        seconds: +((performance.now() - started) / 1000).toFixed(1),
        drafts: body.drafts?.length ?? 0,
        refused: body.refused?.length ?? 0,
      };
    });
  };
  const totalMB = +(photos.reduce((n, p) => n + p.bytes.length, 0) / 1024 / 1024).toFixed(1);
  const one = await addPhotos(photos.slice(0, 1));
  const run = await addPhotos(photos);
  return {
    photos: PHOTOS,
    photoMB: +(bytes.length / 1024 / 1024).toFixed(2),
    requestMB: totalMB,
    status: run.value.status,
    drafts: run.value.drafts,
    refused: run.value.refused,
    seconds: run.value.seconds,
    secondsPerPhoto: +(run.value.seconds / PHOTOS).toFixed(2),
    peakMB: run.peakMB,
    onePhotoPeakMB: one.peakMB,
    onePhotoSeconds: one.value.seconds,
    peakOverOnePhoto: +(run.peakMB / one.peakMB).toFixed(2),
  };
}
