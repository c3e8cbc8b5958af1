// Clip parts (field `video`) in the multipart parser, for the forms that take clips
// (docs/decisions/0064-video-clips.md): real multipart bodies, real temp files.
import { describe, expect, it } from "vitest";
import { VIDEO_MESSAGES } from "~/video/limits";
import { MULTIPART_MESSAGES, UPLOAD_LIMITS } from "./limits";
import { parseMultipart } from "./multipart.server";
import { tempFiles } from "./test-fixtures.server";

const post = (body: FormData) => new Request("http://localhost:3000/kids/1/dailyLogs/new", { method: "POST", body });

describe("clips (a form that takes them)", () => {
  const CLIPS = { maxVideoBytes: 20 * 1024 * 1024, maxBodyBytes: 64 * 1024 * 1024 };

  it("keeps a clip up to its own limit beside the photos, each photo still held to 15 MB", async () => {
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(UPLOAD_LIMITS.maxFileBytes + 1)]), "huge.jpg");
    form.append("image", new Blob([new Uint8Array(10)]), "small.jpg");
    form.append("video", new Blob([new Uint8Array(CLIPS.maxVideoBytes)]), "clip.mp4");
    form.append("video_description", "Ana's first steps");
    const { files, videos, errors, fields } = await parseMultipart(post(form), CLIPS, { maxFiles: 10, maxVideos: 1 });
    expect(errors).toEqual({ image: [MULTIPART_MESSAGES.imageTooBig] });
    expect(files.map((f) => [f.slot, f.file.size])).toEqual([[2, 10]]);
    expect(videos.map((v) => [v.slot, v.file.size, v.file.filename])).toEqual([[1, CLIPS.maxVideoBytes, "clip.mp4"]]);
    expect(fields).toEqual({ video_description: "Ana's first steps" });
    await Promise.all([...files, ...videos].map((f) => f.file.discard()));
    expect(tempFiles()).toEqual([]);
  });

  it("refuses a clip over its limit on the video field, and a second clip as one too many", async () => {
    const form = new FormData();
    form.append("video", new Blob([new Uint8Array(CLIPS.maxVideoBytes + 1)]), "long.mp4");
    form.append("video", new Blob([new Uint8Array(100)]), "second.mp4");
    const { videos, errors } = await parseMultipart(post(form), CLIPS, { maxVideos: 1 });
    expect(videos).toEqual([]);
    expect(errors).toEqual({
      video: [VIDEO_MESSAGES.tooBig(20), MULTIPART_MESSAGES.tooManyVideos],
    });
    expect(tempFiles()).toEqual([]);
  });

  it("throws clips away unread where the form takes none (the default)", async () => {
    const form = new FormData();
    form.append("video", new Blob([new Uint8Array(100)]), "clip.mp4");
    form.append("title", "after");
    const { videos, errors, fields } = await parseMultipart(post(form));
    expect([videos, errors, fields]).toEqual([[], {}, { title: "after" }]);
    expect(tempFiles()).toEqual([]);
  });
});
