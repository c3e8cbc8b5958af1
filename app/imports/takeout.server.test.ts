import fs from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { withArchive } from "./archive.server";
import { emptySummary } from "./summary";
import { looksLikeTakeout, readTakeout, sidecarOf, sidecarStem, unpackTakeout } from "./takeout.server";

// A Google Takeout album read into the items the drafts take (docs/decisions/0066-imports.md): a
// Takeout-shaped ZIP made here, with the sidecar names Google writes (whole, cut short at 51
// characters, "supplemental-metadata", a duplicate's "(1)", an edited copy), a video and the
// album's own metadata.json.

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
