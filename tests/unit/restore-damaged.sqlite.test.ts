// npm run restore checks the whole archive before it touches anything (server/restore.mjs): a
// damaged database entry, a photo whose bytes no longer match its checksum, a truncated archive and
// one missing a photo each fail with the entry named, and leave the data folder exactly as it was.
// The commands run as README says, through npm.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import yauzl from "yauzl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "../../app/lib/config.server";
import { makeUser } from "../helpers";
import { insertKid, storePhoto } from "./friends-fixtures";
import { runNpmScript } from "./support/npm-script";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-restore-damaged-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Every file under `dir` with its SHA-256, so "as it was" is byte for byte. */
function snapshot(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out[path.relative(dir, file)] = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  }
  return out;
}

/** Where an entry's bytes start in the archive, and how many there are. */
function entrySpan(archive: string, name: string): Promise<{ start: number; size: number }> {
  return new Promise((resolve, reject) => {
    yauzl.open(archive, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on("entry", (e: yauzl.Entry) => {
        if (e.fileName !== name) return zip.readEntry();
        const header = Buffer.alloc(30);
        const fd = fs.openSync(archive, "r");
        fs.readSync(fd, header, 0, 30, e.relativeOffsetOfLocalHeader);
        fs.closeSync(fd);
        zip.close();
        const start = e.relativeOffsetOfLocalHeader + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
        resolve({ start, size: e.compressedSize });
      });
      zip.on("end", () => reject(new Error(`no entry ${name}`)));
      zip.readEntry();
    });
  });
}

/** A copy of the good archive with 64 bytes in the middle of `name`'s data overwritten. */
async function damaged(good: string, name: string, label: string): Promise<string> {
  const copy = path.join(work, `${label}.zip`);
  const bytes = fs.readFileSync(good);
  const { start, size } = await entrySpan(good, name);
  const at = start + Math.floor(size / 2) - 32;
  for (let i = 0; i < 64; i++) bytes[at + i] = (bytes[at + i]! + 0x5a + i) & 0xff;
  fs.writeFileSync(copy, bytes);
  return copy;
}

describe("npm run restore of a damaged archive", () => {
  const good = path.join(work, "good.zip");
  // a data folder with its own database, photos and secret: what a failed restore must leave alone
  const target = {
    DATABASE_FILE: path.join(work, "target", "data", "db.sqlite"),
    UPLOADS_DIR: path.join(work, "target", "uploads"),
  };
  const targetRoot = path.join(work, "target");
  let photoEntry = "";

  beforeAll(async () => {
    const cfg = config();
    const parent = await makeUser();
    for (const color of ["#a11", "#1b1", "#11c"])
      await insertKid(parent, "Kid", (await storePhoto("kid", parent.id, color)).imageId);
    const made = await runNpmScript("backup", [good], { DATABASE_FILE: cfg.databaseFile, UPLOADS_DIR: cfg.uploadsDir });
    expect(made.out).toMatch(/Backed up the database and \d+ photo files/);
    expect(made.code).toBe(0);
    const restored = await runNpmScript("restore", [good], target);
    expect(restored.out).toContain("Restored the database");
    expect(restored.code).toBe(0);
    photoEntry = await new Promise<string>((resolve, reject) =>
      yauzl.open(good, { lazyEntries: true }, (err, zip) => {
        if (err || !zip) return reject(err);
        zip.on("entry", (e: yauzl.Entry) => {
          if (!e.fileName.startsWith("uploads/")) return zip.readEntry();
          zip.close();
          resolve(e.fileName);
        });
        zip.readEntry();
      }),
    );
  }, 120_000);

  async function expectRefusedAndUnchanged(archive: string, named: string) {
    const before = snapshot(targetRoot);
    expect(Object.keys(before).length).toBeGreaterThan(3);
    const result = await runNpmScript("restore", [archive, "--force"], target);
    expect(result.code).toBe(1);
    expect(result.out).toContain("restore failed:");
    expect(result.out).toContain(named);
    expect(result.out).not.toMatch(/\n\s+at /); // one line, no stack trace
    expect(snapshot(targetRoot)).toEqual(before);
  }

  it("a database entry with 64 bytes overwritten: names it, the old data stays", async () => {
    await expectRefusedAndUnchanged(await damaged(good, "database.sqlite", "bad-db"), "database.sqlite");
  });

  it("a photo whose bytes do not match its checksum: names it, the old data stays", async () => {
    await expectRefusedAndUnchanged(await damaged(good, photoEntry, "bad-photo"), photoEntry);
  });

  it("a truncated archive: says so, the old data stays", async () => {
    const cut = path.join(work, "cut.zip");
    fs.writeFileSync(cut, fs.readFileSync(good).subarray(0, Math.floor(fs.statSync(good).size / 2)));
    await expectRefusedAndUnchanged(cut, "cut.zip");
  });

  it("a damaged archive into an empty place leaves nothing behind", async () => {
    const empty = path.join(work, "empty");
    const result = await runNpmScript("restore", [await damaged(good, photoEntry, "bad-photo-2")], {
      DATABASE_FILE: path.join(empty, "data", "db.sqlite"),
      UPLOADS_DIR: path.join(empty, "uploads"),
      SESSION_SECRET: undefined,
    });
    expect(result.code).toBe(1);
    expect(result.out).toContain(photoEntry);
    expect(snapshot(empty)).toEqual({});
    expect(fs.existsSync(path.join(empty, "data"))).toBe(false);
    expect(fs.existsSync(path.join(empty, "uploads"))).toBe(false);
  });

  it("the good archive still restores over the data with --force", async () => {
    const result = await runNpmScript("restore", [good, "--force"], target);
    expect(result.out).toContain("Restored the database");
    expect(result.code).toBe(0);
    // nothing staged or set aside is left behind
    for (const dir of ["uploads", "data"]) {
      const names = fs.readdirSync(path.join(targetRoot, dir));
      expect(names.filter((n) => n.includes("restoring") || n.includes("before-restore"))).toEqual([]);
    }
    expect(fs.existsSync(target.DATABASE_FILE)).toBe(true);
  });
});
