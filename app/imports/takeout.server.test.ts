import fs from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { withArchive } from "./archive.server";
import { importArchive } from "./imports.server";
import { createKid } from "~/models/kids.server";
import { listDrafts } from "~/models/drafts/read.server";
import { makeUser } from "../../tests/helpers";
import { emptySummary } from "./summary";
import { looksLikeTakeout, readTakeout, sidecarOf, sidecarStem, unpackTakeout } from "./takeout.server";

// A Google Takeout album read into the items the drafts take (docs/decisions/0066-imports.md): a
// Takeout-shaped ZIP made here, with the sidecar names Google writes (whole, cut short at 51
// characters, "supplemental-metadata", a duplicate's "(1)", an edited copy), a video and the
// album's own metadata.json.

async function someoneSeesMoments(userId: number, kidId: number): Promise<number> {
  const { listMoments } = await import("~/models/moments.server");
  const page = await listMoments(userId, kidId);
  return page.ok ? page.moments.length : -1;
}

const seconds = (iso: string) => String(Date.parse(iso) / 1000);
const sidecar = (taken: string, description = "") =>
  Buffer.from(
    JSON.stringify({ title: "x", description, photoTakenTime: { timestamp: seconds(taken), formatted: "…" } }),
  );

describe("a Google Takeout album", () => {
  it("names each photo's sidecar as Google writes them", () => {
    expect(sidecarStem("A/IMG_1.jpg.json")).toBe("IMG_1.jpg");
    expect(sidecarStem("A/IMG_1.jpg.supplemental-metadata.json")).toBe("IMG_1.jpg");
    expect(sidecarStem("A/IMG_1.jpg.supplemental-me.json")).toBe("IMG_1.jpg");
    expect(sidecarStem("A/IMG_1.jpg(1).json")).toBe("IMG_1(1).jpg");
    expect(sidecarStem("A/metadata.json")).toBe("metadata");
    const long = "PXL_20240714_101112345.PORTRAIT.ORIGINAL_long.jpg"; // 49 characters
    const stems = new Map([
      [sidecarStem(`A/${long.slice(0, 46)}.json`), "cut"],
      [sidecarStem("A/IMG_2.jpg.json"), "two"],
    ]);
    expect(sidecarOf(`A/${long}`, stems)).toBe("cut");
    expect(sidecarOf("A/IMG_2-edited.jpg", stems)).toBe("two");
    expect(sidecarOf("A/IMG_3.jpg", stems)).toBeUndefined();
  });

  it("becomes draft moments grouped by day, with the descriptions as text, for the kid chosen", async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#1a9" } })
      .jpeg()
      .toBuffer();
    const dir = "Takeout/Google Photos/Weekend/";
    const zip = new ZipFile();
    const photos: [string, string, string][] = [
      ["IMG_1.jpg", "2024-06-01T09:00:00Z", "Breakfast outside"],
      ["IMG_2.jpg", "2024-06-01T15:00:00Z", "The park"],
      ["IMG_3.jpg", "2024-06-02T10:00:00Z", ""],
    ];
    for (const [name, taken, description] of photos) {
      zip.addBuffer(jpeg, `${dir}${name}`);
      zip.addBuffer(sidecar(taken, description), `${dir}${name}.supplemental-metadata.json`);
    }
    zip.addBuffer(Buffer.from("not a photo"), `${dir}IMG_4.jpg`);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);

    const me = await makeUser();
    const kid = await createKid(me.id, { name: "Ada", birth_date: "2023-01-01", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("kid");
    const noKid = await importArchive(me.id, await uploadFromBuffer(bytes, "album.zip"));
    expect(noKid).toMatchObject({
      ok: false,
      kind: "invalid",
      fieldErrors: { kid_id: [expect.stringMatching(/Choose the kid/)] },
    });
    const done = await importArchive(me.id, await uploadFromBuffer(bytes, "album.zip"), { kidId: kid.kid.id });
    if (!done.ok) throw new Error(done.message);
    expect(done.summary).toMatchObject({ kind: "takeout", kidId: kid.kid.id, moments: 2, photos: 3 });
    expect(done.summary.skipped).toEqual([expect.stringMatching(/^IMG_4\.jpg: /)]);
    const drafts = await listDrafts(me.id, kid.kid.id);
    if (!drafts.ok) throw new Error("drafts");
    const seen = drafts.drafts
      .map((d) => ({ day: d.takenOn, text: d.content, photos: d.photos.map((p) => p.name) }))
      .sort((a, b) => a.day.localeCompare(b.day));
    expect(seen).toEqual([
      { day: "2024-06-01", text: "Breakfast outside\n\nThe park", photos: ["IMG_1.jpg", "IMG_2.jpg"] },
      { day: "2024-06-02", text: "", photos: ["IMG_3.jpg"] },
    ]);
    // nothing published: no moment yet
    expect(await someoneSeesMoments(me.id, kid.kid.id)).toBe(0);
  });

  it("reads a Takeout-shaped ZIP into photos with the instant taken and the description, each unpacked to a temp file", async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#e91" } })
      .jpeg()
      .toBuffer();
    const dir = "Takeout/Google Photos/Summer 2024/";
    const long = "PXL_20240714_101112345.PORTRAIT.ORIGINAL_long.jpg";
    const zip = new ZipFile();
    zip.addBuffer(jpeg, `${dir}IMG_1.jpg`);
    zip.addBuffer(sidecar("2024-07-13T09:30:00Z", "First swim!"), `${dir}IMG_1.jpg.json`);
    zip.addBuffer(jpeg, `${dir}IMG_1(1).jpg`);
    zip.addBuffer(sidecar("2024-07-13T18:00:00Z"), `${dir}IMG_1.jpg(1).json`);
    zip.addBuffer(jpeg, `${dir}${long}`);
    zip.addBuffer(sidecar("2024-07-14T10:11:12Z", "Portrait"), `${dir}${long.slice(0, 46)}.json`);
    zip.addBuffer(jpeg, `${dir}IMG_2.jpg`);
    zip.addBuffer(sidecar("2024-07-15T08:00:00Z", "Sandcastle"), `${dir}IMG_2.jpg.supplemental-metadata.json`);
    zip.addBuffer(jpeg, `${dir}IMG_2-edited.jpg`);
    zip.addBuffer(jpeg, `${dir}IMG_9.jpg`); // no sidecar: no date, no text
    zip.addBuffer(Buffer.from("not really a video"), `${dir}VID_1.mp4`);
    zip.addBuffer(Buffer.from(JSON.stringify({ title: "Summer 2024" })), `${dir}metadata.json`);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const file = await uploadFromBuffer(Buffer.concat(chunks), "takeout.zip");
    const summary = emptySummary("takeout");
    const result = await withArchive(file.path, async (archive) => {
      expect(looksLikeTakeout(archive)).toBe(true);
      const read = await readTakeout(archive, summary);
      if (!read.ok) return read;
      const at = (iso: string) => new Date(iso);
      expect(read.photos).toEqual([
        { entry: `${dir}IMG_1.jpg`, name: "IMG_1.jpg", takenAt: at("2024-07-13T09:30:00Z"), text: "First swim!" },
        { entry: `${dir}IMG_1(1).jpg`, name: "IMG_1(1).jpg", takenAt: at("2024-07-13T18:00:00Z") },
        { entry: `${dir}${long}`, name: long, takenAt: at("2024-07-14T10:11:12Z"), text: "Portrait" },
        { entry: `${dir}IMG_2.jpg`, name: "IMG_2.jpg", takenAt: at("2024-07-15T08:00:00Z"), text: "Sandcastle" },
        {
          entry: `${dir}IMG_2-edited.jpg`,
          name: "IMG_2-edited.jpg",
          takenAt: at("2024-07-15T08:00:00Z"),
          text: "Sandcastle",
        },
        { entry: `${dir}IMG_9.jpg`, name: "IMG_9.jpg" },
      ]);
      const { items, files } = await unpackTakeout(archive, read.photos, summary);
      expect(items.map((i) => i.name)).toEqual(read.photos.map((p) => p.name));
      for (const item of items) expect(fs.readFileSync(item.path).equals(jpeg)).toBe(true);
      await Promise.all(files.map((f) => f.discard()));
      for (const item of items) expect(fs.existsSync(item.path)).toBe(false);
      return { ok: true };
    });
    expect(result.ok).toBe(true);
    expect(summary.skipped).toEqual(["A video was not imported: add clips to a moment on its page."]);
    await file.discard();
  });
});
