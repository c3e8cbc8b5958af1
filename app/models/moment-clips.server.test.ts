// Moments with clips through the same model functions the forms and /api call (createMoment,
// updateMoment, deleteMoment): a moment of clips alone, clips beside photos, the description a clip
// needs, at most ten items, a clip that is no video refused on its field with nothing kept, and a
// clip removed with its files. Real clips from Debian's ffmpeg; runs on disk and S3.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { isStored, listStored } from "~/images/test-fixtures.server";
import { VIDEO_MESSAGES } from "~/video/limits";
import { makeTestClips, type TestClips } from "~/video/test-clips.server";
import { videoTools } from "~/video/clips.server";
import { prepareWaitingClips } from "~/video/worker.server";
import { makeUser } from "../../tests/helpers";
import { createKid } from "./kids.server";
import { jpegUpload } from "./kids-test-helpers.server";
import { createMoment, deleteMoment, updateMoment } from "./moment-changes.server";
import type { User } from "./users.server";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-moment-clips-"));
let clips: TestClips;
let owner: User;
let kidId = 0;

beforeAll(async () => {
  clips = makeTestClips(videoTools()!, path.join(work, "clips"));
  owner = await makeUser();
  const kid = await createKid(owner.id, { name: "Ana", birth_date: "2021-03-04", relationship: "Mom" }, null);
  if (!kid.ok) throw new Error(kid.message);
  kidId = kid.kid.id;
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const clipUpload = async (file: string, description: string, slot = 1) => ({
  file: await uploadFromBuffer(fs.readFileSync(file), path.basename(file)),
  description,
  slot,
});
const videosOf = (momentId: number) => db()("videos").where("daily_log_id", momentId).orderBy("position");

describe("a moment with clips", () => {
  it("may hold clips alone, each waiting to be prepared, counted on the moment", async () => {
    const made = await createMoment(
      owner.id,
      kidId,
      { title: "First steps", content: "" },
      { added: [], clips: [await clipUpload(clips.turned, "Ana walks to Grandma")] },
    );
    if (!made.ok) throw new Error(made.message);
    const rows = await videosOf(made.moment.id);
    expect(rows).toMatchObject([{ position: 0, description: "Ana walks to Grandma", status: "processing" }]);
    expect(await db()("daily_logs").where("id", made.moment.id).first("video_count", "photo_count")).toEqual({
      video_count: 1,
      photo_count: 0,
    });
    expect(await prepareWaitingClips()).toEqual(["ready"]);
  });

  it("takes clips beside photos, and an update adds and removes them", async () => {
    const made = await createMoment(
      owner.id,
      kidId,
      { title: "Park", content: "" },
      {
        added: [{ file: await jpegUpload(), alt: "The swings", slot: 1 }],
        clips: [await clipUpload(clips.hevc, "Swinging")],
      },
    );
    if (!made.ok) throw new Error(made.message);
    const [first] = await videosOf(made.moment.id);
    const updated = await updateMoment(
      owner.id,
      made.moment.id,
      { title: "Park", content: "" },
      { added: [], edits: [], clips: [await clipUpload(clips.webm, "Sliding")], removeClips: [first.id] },
    );
    expect(updated.ok).toBe(true);
    expect((await videosOf(made.moment.id)).map((v) => [v.description, v.position])).toEqual([["Sliding", 0]]);
    expect(await isStored(first.key)).toBe(false);
    expect(await isStored(first.source_key)).toBe(false);
    expect((await db()("daily_logs").where("id", made.moment.id).first("video_count")).video_count).toBe(1);
  });

  it("refuses a clip without a description, or one that is no video, keeping nothing", async () => {
    const before = await listStored();
    const count = async () => (await db()("daily_logs").where("kid_id", kidId).count("* as n").first())?.n;
    const moments = await count();
    expect(
      await createMoment(
        owner.id,
        kidId,
        { title: "t", content: "" },
        { added: [], clips: [await clipUpload(clips.webm, "  ")] },
      ),
    ).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { video_description: [VIDEO_MESSAGES.descriptionRequired] },
    });
    expect(
      await createMoment(
        owner.id,
        kidId,
        { title: "t", content: "" },
        { added: [], clips: [await clipUpload(clips.textNamedMp4, "Text")] },
      ),
    ).toMatchObject({ ok: false, kind: "invalid", fieldErrors: { video: [VIDEO_MESSAGES.notAVideo] } });
    expect(await count()).toEqual(moments);
    expect(await listStored()).toEqual(before);
  });

  it("holds at most ten photos and clips together", async () => {
    const photos = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => ({ file: await jpegUpload(), alt: `Photo ${i + 1}`, slot: i + 1 })),
    );
    expect(
      await createMoment(
        owner.id,
        kidId,
        { title: "t", content: "" },
        { added: photos, clips: [await clipUpload(clips.webm, "One more")] },
      ),
    ).toMatchObject({ ok: false, kind: "invalid", fieldErrors: { video: [VIDEO_MESSAGES.tooManyItems] } });
  });

  it("goes with its moment", async () => {
    const made = await createMoment(
      owner.id,
      kidId,
      { title: "Bye", content: "" },
      { added: [], clips: [await clipUpload(clips.webm, "Waving")] },
    );
    if (!made.ok) throw new Error(made.message);
    const [row] = await videosOf(made.moment.id);
    expect(await deleteMoment(owner.id, made.moment.id)).toMatchObject({ ok: true });
    expect(await isStored(row.source_key)).toBe(false);
    expect(await db()("videos").where("id", row.id).first()).toBeUndefined();
  });
});
