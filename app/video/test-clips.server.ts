import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { VideoTools } from "./ffmpeg.server";

// Clips for the tests, made by ffmpeg itself (its test source and a tone), so every kind the
// server must take or refuse is real: a phone's MP4 with a place on it, a portrait clip recorded
// turned, iPhone-style HEVC in a MOV, WebM, a file cut off while copying, text named ".mp4".

const PLACE = "+48.8577+002.2950/";

export type TestClips = {
  /** H.264/AAC MP4, 1280×720, 2 s, with a location atom and a creation date. */
  withPlace: string;
  /** H.264 MP4 640×360 recorded turned by 90° (a portrait clip): shown 360×640. */
  turned: string;
  /** HEVC (hvc1) in a MOV, as an iPhone films. */
  hevc: string;
  webm: string;
  /** An MP4 whose index comes last (as a phone writes it), cut in half. */
  truncated: string;
  /** Text in a file named .mp4. */
  textNamedMp4: string;
  /** The place written into `withPlace`, to look for in outputs. */
  place: string;
};

function ffmpeg(tools: VideoTools, args: string[]) {
  execFileSync(tools.ffmpeg, ["-v", "error", "-nostdin", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

const SOURCE = (size: string, seconds: number) => [
  "-f",
  "lavfi",
  "-i",
  `testsrc=size=${size}:rate=25:duration=${seconds}`,
  "-f",
  "lavfi",
  "-i",
  `sine=frequency=440:duration=${seconds}`,
];

/** Makes the clips in `dir` (a few hundred milliseconds of ffmpeg). */
export function makeTestClips(tools: VideoTools, dir: string): TestClips {
  fs.mkdirSync(dir, { recursive: true });
  const at = (name: string) => path.join(dir, name);
  const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"];
  ffmpeg(tools, [
    ...SOURCE("1280x720", 2),
    ...h264,
    "-metadata",
    `location=${PLACE}`,
    "-metadata",
    "creation_time=2026-05-03T10:00:00Z",
    at("with-place.mp4"),
  ]);
  ffmpeg(tools, [...SOURCE("640x360", 1), ...h264, at("upright.mp4")]);
  ffmpeg(tools, ["-i", at("upright.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", at("turned.mp4")]);
  ffmpeg(tools, [
    ...SOURCE("640x360", 1),
    "-c:v",
    "libx265",
    "-preset",
    "ultrafast",
    "-x265-params",
    "log-level=error",
    "-tag:v",
    "hvc1",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    at("hevc.mov"),
  ]);
  ffmpeg(tools, [...SOURCE("320x240", 1), "-c:v", "libvpx", "-b:v", "200k", "-c:a", "libopus", at("clip.webm")]);
  const whole = fs.readFileSync(at("with-place.mp4"));
  fs.writeFileSync(at("truncated.mp4"), whole.subarray(0, Math.floor(whole.length / 2)));
  fs.writeFileSync(at("text.mp4"), "This is not a video, whatever its name says.\n");
  return {
    withPlace: at("with-place.mp4"),
    turned: at("turned.mp4"),
    hevc: at("hevc.mov"),
    webm: at("clip.webm"),
    truncated: at("truncated.mp4"),
    textNamedMp4: at("text.mp4"),
    place: PLACE,
  };
}
