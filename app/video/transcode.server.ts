import fsp from "node:fs/promises";
import path from "node:path";
import type { Result } from "~/models/refusal";
import { invalid } from "~/models/refusal";
import { runTool, type VideoTools } from "./ffmpeg.server";
import type { ProbedVideo } from "./probe.server";

// A clip becomes two H.264/AAC MP4 renditions (docs/decisions/0064-video-clips.md): "small", about
// 360p for slow links (what a phone starts with), and "large", about 720p. One ffmpeg run decodes the
// clip once and encodes both; the rotation the phone recorded is applied to the pixels; every
// metadata atom is dropped (place, dates, device, encoder); `faststart` puts the index first so a
// player starts from the first range it fetches. A poster frame is taken apart (makePoster), as a
// PNG, for the photo pipeline.

export type RenditionName = "small" | "large";

type Rendition = {
  name: RenditionName;
  /** The short side, in pixels (never upscaled). */
  shortSide: number;
  crf: number;
  maxRateKbps: number;
  audioKbps: number;
};

export const RENDITIONS: readonly Rendition[] = [
  { name: "small", shortSide: 360, crf: 28, maxRateKbps: 700, audioKbps: 64 },
  { name: "large", shortSide: 720, crf: 25, maxRateKbps: 2500, audioKbps: 96 },
];

export type TranscodedVideo = {
  renditions: { name: RenditionName; file: string; bytes: number }[];
};

export type TranscodeOptions = {
  /** ffmpeg's threads (the machine's other work keeps the rest). */
  threads: number;
  /** Niceness of the child process. */
  nice: number;
  signal?: AbortSignal;
};

/** The scale filter that makes the short side `side` (or keeps it when smaller), even sizes. */
function scaleTo(side: number): string {
  const w = `if(gt(iw,ih),-2,min(${side},iw))`;
  const h = `if(gt(iw,ih),min(${side},ih),-2)`;
  return `scale=w='${w}':h='${h}',scale=trunc(iw/2)*2:trunc(ih/2)*2,setsar=1`;
}

/** Options that leave nothing of the source's metadata and no encoder signature in the output. */
const NO_METADATA = [
  "-map_metadata",
  "-1",
  "-map_chapters",
  "-1",
  "-fflags",
  "+bitexact",
  "-flags:v",
  "+bitexact",
  "-flags:a",
  "+bitexact",
];

function renditionArgs(r: Rendition, label: string, hasAudio: boolean, file: string): string[] {
  return [
    "-map",
    `[${label}]`,
    ...(hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", `${r.audioKbps}k`, "-ac", "2"] : []),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-profile:v",
    "main",
    "-pix_fmt",
    "yuv420p",
    "-crf",
    `${r.crf}`,
    "-maxrate",
    `${r.maxRateKbps}k`,
    "-bufsize",
    `${r.maxRateKbps * 2}k`,
    "-fpsmax",
    "30",
    "-movflags",
    "+faststart",
    ...NO_METADATA,
    "-f",
    "mp4",
    file,
  ];
}

/** Time allowed for a clip of `seconds`: generous on a slow machine, never unbounded. */
function timeLimitMs(seconds: number): number {
  // under the hour after which the housekeeping counts a work folder under .tmp as left over
  return Math.min(120_000 + seconds * 10_000, 45 * 60_000);
}

/** The clip at `input` (as probed) transcoded into `outDir`, or why it could not be. */
export async function transcodeVideo(
  tools: VideoTools,
  input: string,
  probed: ProbedVideo,
  outDir: string,
  options: TranscodeOptions,
): Promise<Result<TranscodedVideo>> {
  await fsp.mkdir(outDir, { recursive: true });
  const hasAudio = probed.audioCodec !== null;
  const outputs = RENDITIONS.map((r) => ({ r, file: path.join(outDir, `${r.name}.mp4`) }));
  const split = `[0:v:0]split=${outputs.length}${outputs.map((_, i) => `[in${i}]`).join("")}`;
  const scales = outputs.map(({ r }, i) => `[in${i}]${scaleTo(r.shortSide)}[out${i}]`);
  const args = [
    "-v",
    "error",
    "-nostdin",
    // a damaged clip (cut off while copying) fails instead of becoming a shorter, broken one
    "-xerror",
    "-y",
    "-threads",
    `${options.threads}`,
    "-filter_complex_threads",
    "1",
    "-i",
    input,
    "-filter_complex",
    [split, ...scales].join(";"),
    ...outputs.flatMap(({ r, file }, i) => renditionArgs(r, `out${i}`, hasAudio, file)),
  ];
  const run = await runTool(tools.ffmpeg, args, {
    timeoutMs: timeLimitMs(probed.durationSeconds),
    nice: options.nice,
    signal: options.signal,
  });
  if (run.code !== 0) return invalid(failure(run.timedOut, run.stderrTail));
  const renditions = await Promise.all(
    outputs.map(async ({ r, file }) => ({ name: r.name, file, bytes: (await fsp.stat(file)).size })),
  );
  return { ok: true, renditions };
}

/**
 * One frame of the clip as it came (at 1 s, or half-way in a shorter one), upright, as a PNG at
 * `file` for the photo pipeline: a second or so of ffmpeg, made before the long transcode so the
 * clip shows its poster while it is being prepared.
 */
export async function makePoster(
  tools: VideoTools,
  input: string,
  probed: ProbedVideo,
  file: string,
  options: TranscodeOptions,
): Promise<Result<{ file: string }>> {
  // at 1 s, or at the start when nothing comes from there (a clip damaged past its beginning)
  for (const at of [Math.min(1, probed.durationSeconds / 2).toFixed(2), "0"]) {
    const args = ["-v", "error", "-nostdin", "-y", "-ss", at, "-i", input, "-frames:v", "1", ...NO_METADATA];
    const poster = await runTool(tools.ffmpeg, [...args, "-f", "image2", "-c:v", "png", file], {
      timeoutMs: 60_000,
      nice: options.nice,
      signal: options.signal,
    });
    if (poster.code !== 0) return invalid(failure(poster.timedOut, poster.stderrTail));
    if ((await fsp.stat(file).catch(() => null))?.size) return { ok: true, file };
  }
  return invalid(failure(false, "partial file"));
}

/** What the owner is told when a clip cannot be prepared (ffmpeg's own words stay in the log). */
function failure(timedOut: boolean, stderrTail: string): string {
  if (timedOut) return "This clip took too long to prepare. Try a shorter clip.";
  if (/Invalid data|moov atom not found|partial file|End of file|corrupt/i.test(stderrTail)) {
    return "This clip is damaged or incomplete (perhaps cut off while copying). Try the file again from your phone.";
  }
  return "This clip could not be prepared. Try it again, or another clip.";
}
