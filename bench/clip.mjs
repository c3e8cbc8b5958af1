// @ts-check
// The clip case of `npm run bench` (docs/decisions/0064-video-clips.md): a 60-second 1080p clip
// (made by Debian's ffmpeg) posted through the API; the time until it is prepared; the peak resident
// memory of the server process while ffmpeg works (its own, apart from ffmpeg's, which is reported
// alone); the renditions' sizes and the bytes a relative downloads before the small one can start
// (its index, which comes first, and two seconds of it). Figures only; nothing is asserted.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { processTree, rssOf } from "./lib.mjs";

/** Bytes from the file's start to the end of its top-level `moov` atom (the index a player needs first). */
function indexEnd(/** @type {Buffer} */ head) {
  let at = 0;
  while (at + 8 <= head.length) {
    const size = head.readUInt32BE(at);
    const type = head.toString("latin1", at + 4, at + 8);
    if (size < 8) return null;
    if (type === "moov") return at + size;
    at += size;
  }
  return null;
}

/**
 * @param {string} base the server's address
 * @param {number} pid the server's process
 * @param {string} tmp a work folder
 * @param {string} cookie a signed-in parent's cookie
 */
export async function clipFigures(base, pid, tmp, cookie) {
  const file = path.join(tmp, "clip-1080p-60s.mp4");
  // a phone-like source: 1080p H.264 at a phone's rate, with sound
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-nostdin",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=1920x1080:rate=30:duration=60",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=60",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-b:v",
    "12M",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    file,
  ]);
  const sourceBytes = fs.statSync(file).size;
  const kid = await (
    await fetch(`${base}/api/kids/new`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "Clip", birth_date: "2020-01-01", relationship: "Mom" }),
    })
  ).json();
  const form = new FormData();
  form.set("title", "A minute");
  form.set("content", "Bench");
  form.set("video_description", "A minute of test pattern");
  form.set("video", new Blob([fs.readFileSync(file)], { type: "video/mp4" }), "clip.mp4");

  let serverPeakMB = rssOf(pid).rssMB;
  let ffmpegPeakMB = 0;
  const sampler = setInterval(() => {
    try {
      serverPeakMB = Math.max(serverPeakMB, rssOf(pid).rssMB);
      let children = 0;
      for (const p of processTree(pid).slice(1)) children += rssOf(p).rssMB;
      ffmpegPeakMB = Math.max(ffmpegPeakMB, children);
    } catch {}
  }, 100);
  const started = performance.now();
  const posted = await fetch(`${base}/api/kids/${kid.id}/daily_logs/new`, {
    method: "POST",
    headers: { cookie },
    body: form,
  });
  const postMs = Math.round(performance.now() - started);
  const moment = await posted.json();
  /** @type {any} */
  let clip = null;
  /** @type {number | null} */
  let posterMs = null;
  for (;;) {
    const log = await (await fetch(`${base}/api/daily_logs/${moment.id}`, { headers: { cookie } })).json();
    clip = log.videos?.[0];
    // the poster comes first, before the transcode (a clip being prepared shows it)
    if (posterMs === null && clip?.poster) posterMs = Math.round(performance.now() - started);
    if (clip?.status !== "processing") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const readyMs = Math.round(performance.now() - started);
  clearInterval(sampler);
  if (clip?.status !== "ready") return { status: clip?.status ?? "none", postMs, readyMs };

  const size = async (/** @type {string} */ url) =>
    Number((await fetch(`${base}${url}`, { method: "HEAD", headers: { cookie } })).headers.get("content-length"));
  const smallBytes = await size(clip.small_url);
  const largeBytes = await size(clip.url);
  const head = Buffer.from(
    await (await fetch(`${base}${clip.small_url}`, { headers: { cookie, Range: "bytes=0-262143" } })).arrayBuffer(),
  );
  const indexBytes = indexEnd(head);
  const twoSeconds = Math.round((smallBytes / (clip.duration ?? 60)) * 2);
  return {
    status: "ready",
    sourceMB: +(sourceBytes / 1e6).toFixed(1),
    postMs,
    posterMs,
    transcodeMs: readyMs - postMs,
    serverPeakMB: +serverPeakMB.toFixed(1),
    ffmpegPeakMB: +ffmpegPeakMB.toFixed(1),
    smallKB: Math.round(smallBytes / 1024),
    largeKB: Math.round(largeBytes / 1024),
    startKB: indexBytes === null ? null : Math.round((indexBytes + twoSeconds) / 1024),
  };
}
