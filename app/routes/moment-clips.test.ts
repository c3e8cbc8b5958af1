// A clip through the moment pages' forms and the /api, as a browser and a client send them:
// multipart with a `video` part and its description; the parent's errors on the clip's fields.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/lib/db.server";
import { VIDEO_MESSAGES } from "~/video/limits";
import { videoTools } from "~/video/clips.server";
import { makeTestClips, type TestClips } from "~/video/test-clips.server";
import { args, formErrorsOf, req, statusOf } from "../../tests/helpers";
import { people, thrown } from "../../tests/kit/kid-pages";
import * as apiNew from "./api/kids-daily-logs-new";
import * as momentNew from "./moment-new";
import * as momentPhoto from "./moment-photo";
import * as momentUpdate from "./moment-update";
import * as videosRoute from "./videos";
import { prepareWaitingClips } from "~/video/worker.server";
import { makeImage } from "~/images/test-fixtures.server";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-clip-routes-"));
let clips: TestClips;
beforeAll(() => {
  clips = makeTestClips(videoTools()!, path.join(work, "clips"));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function form(fields: Record<string, string>, clip?: { file: string; name?: string }, photo?: Buffer) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append("image", new Blob(photo ? [new Uint8Array(photo)] : []), photo ? "photo.jpg" : "");
  if (clip) body.append("video", new Blob([fs.readFileSync(clip.file)]), clip.name ?? path.basename(clip.file));
  return body;
}

describe("a clip on the moment forms", () => {
  it("posts a moment of a clip alone and goes to its page; the clip waits to be prepared", async () => {
    const { kid, cookies } = await people();
    const post = (body: FormData) =>
      momentNew.action(
        args(req(`/kids/${kid.id}/dailyLogs/new`, { cookie: cookies.owner, form: body }), { kidId: String(kid.id) }),
      );
    const ok = await post(
      form({ title: "Steps", content: "Look!", video_description: "Elsa walks" }, { file: clips.webm }),
    );
    expect(statusOf(ok)).toBe(302);
    const id = Number((ok as Response).headers.get("Location")!.split("/").pop());
    expect(await db()("videos").where("daily_log_id", id).select("description", "status")).toEqual([
      { description: "Elsa walks", status: "processing" },
    ]);
  });

  it("answers the form with the clip's problems on its fields, nothing written", async () => {
    const { kid, cookies } = await people();
    const post = (body: FormData) =>
      momentNew.action(
        args(req(`/kids/${kid.id}/dailyLogs/new`, { cookie: cookies.owner, form: body }), { kidId: String(kid.id) }),
      );
    const before = await db()("videos").count("* as n").first();
    expect(formErrorsOf(await post(form({ title: "t", content: "c" }, { file: clips.webm })))).toMatchObject({
      video_description: [VIDEO_MESSAGES.descriptionRequired],
    });
    expect(
      formErrorsOf(
        await post(form({ title: "t", content: "c", video_description: "x" }, { file: clips.textNamedMp4 })),
      ),
    ).toMatchObject({ video: [VIDEO_MESSAGES.notAVideo] });
    // neither a photo nor a clip: the spec's message stays
    expect(formErrorsOf(await post(form({ title: "t", content: "c" })))).toMatchObject({
      image: ["Image is required"],
    });
    expect(await db()("videos").count("* as n").first()).toEqual(before);
  });

  it("an update adds a clip and removes one", async () => {
    const { kid, cookies } = await people();
    const made = await momentNew.action(
      args(
        req(`/kids/${kid.id}/dailyLogs/new`, {
          cookie: cookies.owner,
          form: form({ title: "Park", content: "c", video_description: "Swing" }, { file: clips.webm }),
        }),
        { kidId: String(kid.id) },
      ),
    );
    const id = (made as Response).headers.get("Location")!.split("/").pop()!;
    const [first] = await db()("videos").where("daily_log_id", id);
    const updated = await momentUpdate.action(
      args(
        req(`/dailyLogs/${id}/update`, {
          cookie: cookies.owner,
          form: form(
            { title: "Park", content: "c", video_description: "Slide", [`clip_${first.id}_remove`]: "on" },
            { file: clips.hevc },
          ),
        }),
        { momentId: id },
      ),
    );
    expect(statusOf(updated)).toBe(302);
    expect(await db()("videos").where("daily_log_id", id).pluck("description")).toEqual(["Slide"]);
  });

  it("the parent adds captions as timed lines; they are served as WebVTT to whoever sees the clip", async () => {
    const { kid, cookies } = await people();
    const made = await momentNew.action(
      args(
        req(`/kids/${kid.id}/dailyLogs/new`, {
          cookie: cookies.owner,
          form: form({ title: "Words", content: "c", video_description: "Elsa talks" }, { file: clips.webm }),
        }),
        { kidId: String(kid.id) },
      ),
    );
    const id = (made as Response).headers.get("Location")!.split("/").pop()!;
    // this clip, and any the tests before left waiting
    expect(await prepareWaitingClips()).toContain("ready");
    const [clip] = await db()("videos").where("daily_log_id", id);
    expect(clip.status).toBe("ready");
    const update = (captions: string) =>
      momentUpdate.action(
        args(
          req(`/dailyLogs/${id}/update`, {
            cookie: cookies.owner,
            form: form({ title: "Words", content: "c", [`clip_${clip.id}_captions`]: captions }),
          }),
          { momentId: id },
        ),
      );
    expect(formErrorsOf(await update("Hello"))).toMatchObject({
      [`clip_${clip.id}_captions`]: ["Line 1: start with the time, like 0:05, then the words."],
    });
    expect(statusOf(await update("0:00 Mama\n0:01 Ball!"))).toBe(302);
    const vtt = await videosRoute.loader(
      args(req(`/videos/${clip.key}/captions.vtt`, { cookie: cookies.friend }), {
        key: clip.key,
        file: "captions.vtt",
      }),
    );
    expect(vtt.status).toBe(200);
    expect(vtt.headers.get("Content-Type")).toBe("text/vtt; charset=utf-8");
    expect(await vtt.text()).toContain("00:00:00.000 --> 00:00:01.000\nMama");
    const stranger = await videosRoute.loader(
      args(req(`/videos/${clip.key}/captions.vtt`, { cookie: cookies.stranger }), {
        key: clip.key,
        file: "captions.vtt",
      }),
    );
    expect(stranger.status).toBe(404);
    expect(
      (await momentUpdate.loader(args(req(`/dailyLogs/${id}/update`, { cookie: cookies.owner }), { momentId: id })))
        .captions,
    ).toEqual({
      [clip.id]: "0:00 Mama\n0:01 Ball!",
    });
  });

  it("the photo viewer steps from the photos to the clips, as posted; a failed clip is no step", async () => {
    const { kid, cookies } = await people();
    const made = await momentNew.action(
      args(
        req(`/kids/${kid.id}/dailyLogs/new`, {
          cookie: cookies.owner,
          form: form(
            { title: "Beach", content: "c", video_description: "Waves" },
            { file: clips.webm },
            await makeImage("jpeg", 40, 30),
          ),
        }),
        { kidId: String(kid.id) },
      ),
    );
    const id = (made as Response).headers.get("Location")!.split("/").pop()!;
    const add = (file: string, description: string) =>
      momentUpdate.action(
        args(
          req(`/dailyLogs/${id}/update`, {
            cookie: cookies.owner,
            form: form({ title: "Beach", content: "c", video_description: description }, { file }),
          }),
          { momentId: id },
        ),
      );
    expect(statusOf(await add(clips.hevc, "Sand"))).toBe(302);
    expect(statusOf(await add(clips.turned, "Shells"))).toBe(302);
    const [waves, sand] = await db()("videos").where("daily_log_id", id).orderBy("position");
    await db()("videos").where("id", sand.id).update({ status: "failed", failure: "damaged", source_key: null });
    const view = (n: number, who: "friend" | "stranger" = "friend") =>
      momentPhoto.loader(
        args(req(`/dailyLogs/${id}/photos/${n}`, { cookie: cookies[who] }), { momentId: id, n: String(n) }),
      );

    const photo = await view(1);
    expect(photo).toMatchObject({ n: 1, count: 3, item: { kind: "photo" }, next: { n: 2, label: "Next video" } });
    // being prepared: the viewer says so (the page shows its poster once it has one)
    expect(await view(2)).toMatchObject({
      count: 3,
      item: { kind: "clip", clip: { id: waves.id, status: "processing", description: "Waves" } },
      prev: { n: 1, label: "Previous photo" },
      next: { n: 3, label: "Next video" },
    });
    expect(await view(3)).toMatchObject({ item: { kind: "clip", clip: { description: "Shells" } }, next: null });
    expect((await thrown(() => view(4))).status).toBe(404);
    expect((await thrown(() => view(2, "stranger"))).status).toBe(404);

    expect(await prepareWaitingClips()).toEqual(["ready", "ready"]); // Waves and Shells
    expect(await view(2)).toMatchObject({
      item: { kind: "clip", clip: { status: "ready", poster: { key: expect.any(String) } } },
    });
  });

  it("the API takes a video part on create", async () => {
    const { kid, cookies } = await people();
    const response = await apiNew.action(
      args(
        req(`/api/kids/${kid.id}/daily_logs/new`, {
          cookie: cookies.owner,
          form: form({ title: "API", content: "c", video_description: "From the app" }, { file: clips.hevc }),
        }),
        { kidId: String(kid.id) },
      ),
    );
    expect(statusOf(response)).toBe(201);
  });
});
