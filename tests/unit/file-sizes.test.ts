// Code files in app/ stay small enough to read whole: at most 400 lines each, tests included. A file that
// grows past it is split along what it does (a model's reads apart from its writes, a page's
// sections into components), not squeezed. Reads every code file git tracks under app/.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const MAX_LINES = 400;
// code files; the stylesheets are sections of one design (docs/decisions/0032-design-tokens-and-dark-theme.md)
const CODE = /\.(ts|tsx|mts|js|jsx|mjs)$/;

/** The number of lines of `text` (a last line without a newline counts). */
const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

describe("file sizes in app/", () => {
  it("counts lines as an editor shows them", () => {
    expect([lineCount(""), lineCount("a\n"), lineCount("a\nb"), lineCount("a\nb\n")]).toEqual([0, 1, 2, 2]);
  });

  it(`no file is over ${MAX_LINES} lines`, () => {
    const files = execFileSync("git", ["ls-files", "app"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter((f) => CODE.test(f) && fs.existsSync(path.join(root, f)));
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((f) => ({ file: f, lines: lineCount(fs.readFileSync(path.join(root, f), "utf8")) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });
});
