// Every test that reaches stored photos runs on both photo store backends (disk and S3,
// docs/decisions/0015-photo-store.md): vitest.config.ts's PHOTO_TEST_FILES must name each test file
// that reads, lists, serves, sweeps or deletes stored photos, and the S3 project must run them.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import config, { PHOTO_TEST_FILES, PHOTO_TEST_FILES_ON_BOTH_ENGINES } from "../../vitest.config";

const root = path.resolve(import.meta.dirname, "../..");

/** What marks a test file as reaching stored photos: the store, its test fixtures, the image route. */
const REACHES_PHOTOS =
  /\b(photoStore|isStored|listStored|listAllUploads|readStored|storedFiles|sweepUploads|deleteImageFiles)\b|["'](~\/routes\/images|\.\/images)["']|["']routes\/images\.ts["']/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...testFiles(rel));
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

describe("photo tests on both backends", () => {
  it("every test file that reaches stored photos is in the S3 project", () => {
    const reaching = [...testFiles("app"), ...testFiles("tests/unit")]
      .filter((f) => f !== "tests/unit/photo-tests-on-s3.test.ts")
      .filter((f) => REACHES_PHOTOS.test(fs.readFileSync(path.join(root, f), "utf8")))
      .sort();
    expect(reaching.filter((f) => !PHOTO_TEST_FILES.includes(f))).toEqual([]);
    for (const f of PHOTO_TEST_FILES) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
  });

  it("the S3 project runs them with the S3 setup after the database setup", () => {
    const projects = (config.test?.projects ?? []) as {
      test?: { name?: string; include?: string[]; setupFiles?: string[] };
    }[];
    const s3 = projects.find((p) => p.test?.name === "s3");
    const onPostgres = Boolean(process.env.TEST_DATABASE_URL?.trim());
    expect(s3?.test?.include).toEqual(onPostgres ? PHOTO_TEST_FILES_ON_BOTH_ENGINES : PHOTO_TEST_FILES);
    expect(s3?.test?.setupFiles).toEqual(["./tests/setup-s3.ts"]);
    expect(config.test?.setupFiles).toEqual(["./tests/setup-db.ts"]);
  });

  it("on PostgreSQL too, S3 runs the files where the store's writes meet the database's transaction", () => {
    expect(PHOTO_TEST_FILES_ON_BOTH_ENGINES.filter((f) => !PHOTO_TEST_FILES.includes(f))).toEqual([]);
    // the store itself, the sweeper of objects without a row, and a crash between the two
    const sweeping = [...testFiles("app"), ...testFiles("tests/unit")].filter((f) =>
      /\bsweepUploads\b/.test(fs.readFileSync(path.join(root, f), "utf8")),
    );
    expect(sweeping.length).toBeGreaterThan(0);
    for (const f of [
      "app/images/photo-store.test.ts",
      "tests/unit/crash.test.ts",
      ...sweeping.filter((f) => f !== "tests/unit/photo-tests-on-s3.test.ts"),
    ])
      expect(PHOTO_TEST_FILES_ON_BOTH_ENGINES, f).toContain(f);
  });
});
