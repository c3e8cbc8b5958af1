import { z } from "zod";
import { invalidField, type Refusal, type Result } from "~/models/refusal";
import { type VideoTools, runTool } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";

// A clip is judged by what ffprobe finds in its streams, never by its name or declared type
// (docs/decisions/0064-video-clips.md): an MP4 or MOV with H.264 or HEVC (iPhones film HEVC), or a
// WebM with VP8, VP9 or AV1; a picture stream of sensible size; a length within the limit.

export type ProbedVideo = {
  container: "mp4" | "webm";
  videoCodec: string;
  audioCodec: string | null;
  /** The size as shown, after the rotation the phone recorded. */
  width: number;
  height: number;
  /** Degrees the picture is turned when shown (0, 90, 180, 270). */
  rotation: number;
  durationSeconds: number;
  /** Whether the file carries a place (a location atom): it never leaves the server. */
  hasLocation: boolean;
};

export type VideoLimits = { maxSeconds: number };

const MP4_CODECS = new Set(["h264", "hevc", "av1"]);
const WEBM_CODECS = new Set(["vp8", "vp9", "av1"]);
/** Larger than any phone films (8K is 7680 wide): a bigger frame is not a clip from a phone. */
const MAX_SIDE = 8192;
const PROBE_TIMEOUT_MS = 30_000;

const tags = z.record(z.string(), z.string()).optional();
const probeOutput = z.object({
  streams: z.array(
    z.object({
      codec_type: z.string().optional(),
      codec_name: z.string().optional(),
      width: z.number().optional(),
      height: z.number().optional(),
      duration: z.string().optional(),
      tags,
      side_data_list: z.array(z.object({ rotation: z.number().optional() }).loose()).optional(),
    }),
  ),
  format: z.object({ format_name: z.string(), duration: z.string().optional(), tags }),
});

/** The user's fault: refused with `message` for the `video` field. */
export function videoRefusal(message: string): Refusal {
  return invalidField("video", message);
}

const LOCATION_TAG = /^(location(-\w+)?|com\.apple\.quicktime\.location\.iso6709)$/i;

/** What the clip at `file` is, or why it is refused. */
export async function probeVideo(
  tools: VideoTools,
  file: string,
  limits: VideoLimits,
): Promise<Result<{ video: ProbedVideo }>> {
  const run = await runTool(
    tools.ffprobe,
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "--", file],
    { timeoutMs: PROBE_TIMEOUT_MS, maxStdoutBytes: 1024 * 1024 },
  );
  if (run.code !== 0) return videoRefusal(VIDEO_MESSAGES.notAVideo);
  let parsed: z.infer<typeof probeOutput>;
  try {
    parsed = probeOutput.parse(JSON.parse(run.stdout));
  } catch {
    return videoRefusal(VIDEO_MESSAGES.notAVideo);
  }
  const formats = parsed.format.format_name.split(",");
  const container =
    formats.includes("mp4") || formats.includes("mov") ? "mp4" : formats.includes("webm") ? "webm" : null;
  // a still image or an attached cover picture is a "video" stream to ffprobe: a clip has frames
  const picture = parsed.streams.find(
    (s) => s.codec_type === "video" && s.codec_name && !["mjpeg", "png", "gif", "bmp", "webp"].includes(s.codec_name),
  );
  if (!container || !picture?.codec_name) return videoRefusal(VIDEO_MESSAGES.notAVideo);
  const codecs = container === "mp4" ? MP4_CODECS : WEBM_CODECS;
  if (!codecs.has(picture.codec_name)) return videoRefusal(VIDEO_MESSAGES.notAVideo);
  const width = picture.width ?? 0;
  const height = picture.height ?? 0;
  if (width < 2 || height < 2) return videoRefusal(VIDEO_MESSAGES.empty);
  if (width > MAX_SIDE || height > MAX_SIDE) return videoRefusal(VIDEO_MESSAGES.notAVideo);
  const durationSeconds = Number(parsed.format.duration ?? picture.duration ?? Number.NaN);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return videoRefusal(VIDEO_MESSAGES.notAVideo);
  if (durationSeconds > limits.maxSeconds + 0.5) return videoRefusal(VIDEO_MESSAGES.tooLong(limits.maxSeconds));
  const recorded =
    picture.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? Number(picture.tags?.rotate ?? 0);
  const rotation = (((Math.round(recorded / 90) * 90) % 360) + 360) % 360;
  const turned = rotation === 90 || rotation === 270;
  const audio = parsed.streams.find((s) => s.codec_type === "audio");
  const allTags = [parsed.format.tags ?? {}, ...parsed.streams.map((s) => s.tags ?? {})];
  return {
    ok: true,
    video: {
      container,
      videoCodec: picture.codec_name,
      audioCodec: audio?.codec_name ?? null,
      width: turned ? height : width,
      height: turned ? width : height,
      rotation,
      durationSeconds,
      hasLocation: allTags.some((t) => Object.keys(t).some((k) => LOCATION_TAG.test(k))),
    },
  };
}
