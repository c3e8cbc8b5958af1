// The video tools on real clips made by ffmpeg (app/video/test-clips.server.ts): what is taken and
// refused, judged by the streams; what comes out of a transcode (upright, no place, no metadata,
// the index first, never upscaled). Debian's ffmpeg must be installed (.ci/run installs it).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { locateVideoTools, runTool, type VideoTools } from "./ffmpeg.server";
import { VIDEO_MESSAGES } from "./limits";
import { probeVideo } from "./probe.server";
import { makeTestClips, type TestClips } from "./test-clips.server";
import { makePoster, transcodeVideo } from "./transcode.server";

// ffmpeg on a busy machine: a few seconds per clip
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const tools = locateVideoTools(process.env.FFMPEG_PATH ?? null) as VideoTools;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-video-"));
let clips: TestClips;
beforeAll(() => {
  expect(tools, "ffmpeg and ffprobe on PATH (apt-get install ffmpeg)").not.toBeNull();
  clips = makeTestClips(tools, path.join(work, "clips"));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const LIMITS = { maxSeconds: 180 };

describe("finding ffmpeg", () => {
  it("is null without it, and ffprobe is found beside FFMPEG_PATH", () => {
    expect(locateVideoTools(null, path.join(work, "nothing-here"))).toBeNull();
    expect(locateVideoTools(path.join(work, "no-ffmpeg"))).toBeNull();
    expect(locateVideoTools(tools.ffmpeg, "")).toEqual(tools);
  });

  it("reports a binary that cannot start as a failed run", async () => {
    const run = await runTool(path.join(work, "missing"), [], { timeoutMs: 5000 });
    expect(run.code).toBeNull();
    expect(run.stderrTail).toMatch(/ENOENT/);
  });
});

describe("judging a clip by its streams", () => {
  it("takes a phone's MP4 and sees its place", async () => {
    const probed = await probeVideo(tools, clips.withPlace, LIMITS);
    expect(probed).toMatchObject({
      ok: true,
      video: {
        container: "mp4",
        videoCodec: "h264",
        audioCodec: "aac",
        width: 1280,
        height: 720,
        rotation: 0,
        hasLocation: true,
      },
    });
    if (probed.ok) expect(probed.video.durationSeconds).toBeCloseTo(2, 0);
  });

  it("sees a clip recorded turned as it is shown", async () => {
    const probed = await probeVideo(tools, clips.turned, LIMITS);
    expect(probed).toMatchObject({ ok: true, video: { width: 360, height: 640, hasLocation: false } });
    if (probed.ok) expect([90, 270]).toContain(probed.video.rotation);
  });

  it("takes HEVC in a MOV and WebM", async () => {
    expect(await probeVideo(tools, clips.hevc, LIMITS)).toMatchObject({
      ok: true,
      video: { container: "mp4", videoCodec: "hevc" },
    });
    expect(await probeVideo(tools, clips.webm, LIMITS)).toMatchObject({
      ok: true,
      video: { container: "webm", videoCodec: "vp8", audioCodec: "opus" },
    });
  });

  it.each([
    ["a file cut off while copying", () => clips.truncated],
    ["text named .mp4", () => clips.textNamedMp4],
    ["a photo", () => path.join(work, "photo.png")],
  ])("refuses %s on the video field", async (_what, file) => {
    fs.writeFileSync(
      path.join(work, "photo.png"),
      Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"),
    );
    expect(await probeVideo(tools, file(), LIMITS)).toEqual({
      ok: false,
      kind: "invalid",
      message: VIDEO_MESSAGES.notAVideo,
      fieldErrors: { video: [VIDEO_MESSAGES.notAVideo] },
    });
  });

  it("refuses a clip over the length limit, naming it", async () => {
    const probed = await probeVideo(tools, clips.withPlace, { maxSeconds: 1 });
    expect(probed).toMatchObject({
      ok: false,
      kind: "invalid",
      message: "This clip is longer than 1 seconds. Trim it on your phone first.",
    });
    expect(VIDEO_MESSAGES.tooLong(180)).toBe("This clip is longer than 3 minutes. Trim it on your phone first.");
  });
});

describe("transcoding", () => {
  it("makes two upright H.264/AAC renditions with the index first and nothing of the source's metadata", async () => {
    const probed = await probeVideo(tools, clips.withPlace, LIMITS);
    if (!probed.ok) throw new Error("probe");
    const out = path.join(work, "out-place");
    const result = await transcodeVideo(tools, clips.withPlace, probed.video, out, { threads: 1, nice: 10 });
    if (!result.ok) throw new Error(result.message);
    expect(result.renditions.map((r) => r.name)).toEqual(["small", "large"]);
    const [small, large] = await Promise.all(result.renditions.map((r) => probeVideo(tools, r.file, LIMITS)));
    expect(small).toMatchObject({
      ok: true,
      video: { videoCodec: "h264", audioCodec: "aac", width: 640, height: 360, hasLocation: false },
    });
    expect(large).toMatchObject({ ok: true, video: { width: 1280, height: 720, hasLocation: false } });
    for (const r of result.renditions) {
      const bytes = fs.readFileSync(r.file);
      expect(bytes.includes(clips.place)).toBe(false);
      expect(bytes.includes("2026-05-03")).toBe(false);
      expect(bytes.includes("Lavf")).toBe(false); // no encoder signature
      // faststart: the index (moov) before the media (mdat)
      expect(bytes.indexOf("moov")).toBeLessThan(bytes.indexOf("mdat"));
    }
  });

  it("applies the recorded rotation to the pixels and never upscales", async () => {
    const probed = await probeVideo(tools, clips.turned, LIMITS);
    if (!probed.ok) throw new Error("probe");
    const result = await transcodeVideo(tools, clips.turned, probed.video, path.join(work, "out-turned"), {
      threads: 1,
      nice: 10,
    });
    if (!result.ok) throw new Error(result.message);
    for (const r of result.renditions) {
      expect(await probeVideo(tools, r.file, LIMITS)).toMatchObject({
        ok: true,
        video: { width: 360, height: 640, rotation: 0 },
      });
    }
    // the poster, a frame straight from the upload, is upright too
    const poster = await makePoster(tools, clips.turned, probed.video, path.join(work, "turned.png"), {
      threads: 1,
      nice: 10,
    });
    if (!poster.ok) throw new Error(poster.message);
    expect(await sharp(poster.file).metadata()).toMatchObject({ format: "png", width: 360, height: 640 });
  });

  it("transcodes HEVC and WebM too", async () => {
    for (const [name, file] of [
      ["hevc", clips.hevc],
      ["webm", clips.webm],
    ] as const) {
      const probed = await probeVideo(tools, file, LIMITS);
      if (!probed.ok) throw new Error("probe");
      const result = await transcodeVideo(tools, file, probed.video, path.join(work, `out-${name}`), {
        threads: 1,
        nice: 10,
      });
      expect(result.ok).toBe(true);
    }
  });

  it("says a damaged clip is damaged", async () => {
    // a clip whose index comes first survives the probe when cut off; the transcode finds the damage
    const faststart = path.join(work, "faststart.mp4");
    const cut = path.join(work, "faststart-cut.mp4");
    await runTool(
      tools.ffmpeg,
      ["-v", "error", "-y", "-i", clips.withPlace, "-c", "copy", "-movflags", "+faststart", faststart],
      { timeoutMs: 30_000 },
    );
    const whole = fs.readFileSync(faststart);
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const probed = await probeVideo(tools, cut, LIMITS);
    if (!probed.ok) throw new Error("the probe should take a clip cut after its index");
    const result = await transcodeVideo(tools, cut, probed.video, path.join(work, "out-cut"), { threads: 1, nice: 10 });
    expect(result).toMatchObject({ ok: false, kind: "invalid" });
  });
});
