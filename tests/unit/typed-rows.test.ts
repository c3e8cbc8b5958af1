// Rows are typed (docs/decisions/0046-typed-rows.md): every table's row is written once in
// app/lib/tables.ts, each query states the row it answers, and what differs between SQLite and
// PostgreSQL is settled in db/knexfile.mjs. So code reads a row's fields as they are and never casts
// them by hand. This test counts the hand casts left in the code of app/ and db/ (test files and
// test support apart): `Number(x.field)`, `String(x.field)`, `Boolean(x.field)`, and fails above
// MAX_CASTS, so they cannot creep back. The count is of the pattern, not of its meaning, with one
// exception: `String(x.id)` on a line that builds a URL with href() or a form's hidden fields is a
// typed number written as the text a URL holds (href() takes its parameters as strings), not a cast
// of a row. What else matches (a header's length, Intl's date parts) counts, which is why the bound
// is not zero. The rule is checked on samples first, so it can fail.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["app", "db"];
const CODE = /\.(ts|tsx|mts|js|mjs)$/;
const TEST = /(\.test\.|\/tests?\/|\.spec\.|\/support\/)/;
const MAX_CASTS = 20;

/** A cast of one field of a value: `Number(row.count)`, `String(r?.id)`, `Boolean(row.is_demo)`. */
const CAST = /\b(Number|String|Boolean)\([a-zA-Z_]+\??\.[a-zA-Z_]+\)/g;

/** A line that writes numbers into a URL or a form: href(…, { kidId: String(kid.id) }), hidden={{ … }}. */
const URL_TEXT = /\bhref\(|\bhidden=\{\{/;

function casts(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split("\n").forEach((line, i) => {
    for (const match of line.matchAll(CAST)) {
      if (match[1] === "String" && URL_TEXT.test(line)) continue;
      found.push({ line: i + 1, text: match[0] });
    }
  });
  return found;
}

/** Root-relative paths of the non-test code files git tracks, or would, under app/ and db/. */
function codeFiles(): string[] {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", ...FOLDERS], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  return files.filter((f) => CODE.test(f) && !TEST.test(f) && fs.existsSync(path.join(root, f)));
}

describe("the rule", () => {
  it("finds a cast of a field, each one on a line", () => {
    expect(casts("const id = Number(row.id);").map((c) => c.text)).toEqual(["Number(row.id)"]);
    expect(casts("f(String(r?.key), Boolean(row.is_demo))").map((c) => c.text)).toEqual([
      "String(r?.key)",
      "Boolean(row.is_demo)",
    ]);
    expect(casts("a\nNumber(x.count)").map((c) => c.line)).toEqual([2]);
  });

  it("leaves a number written into a URL or a form's hidden fields alone, but not a cast beside it", () => {
    expect(casts(`<Link to={href("/kids/:kidId", { kidId: String(kid.id) })} />`)).toEqual([]);
    expect(casts(`hidden={{ commentId: String(confirming.id) }}`)).toEqual([]);
    expect(casts(`href("/kids/:kidId", { kidId: String(kid.id) }); Number(row.count)`).map((c) => c.text)).toEqual([
      "Number(row.count)",
    ]);
    expect(casts(`const id = String(row.id);`).map((c) => c.text)).toEqual(["String(row.id)"]);
  });

  it("leaves other calls alone", () => {
    for (const sample of ["Number(value)", "Number.parseInt(row.id, 10)", "String(a.b.c)", "toNumber(row.id)"])
      expect(casts(sample), sample).toEqual([]);
  });
});

describe("the tree", () => {
  it("reads the code of app/ and db/, and not the tests", () => {
    const files = codeFiles();
    expect(files).toContain("app/lib/query.server.ts");
    expect(files).toContain("db/knexfile.mjs");
    expect(files.some((f) => f.endsWith(".test.ts"))).toBe(false);
  });

  it(`casts at most ${MAX_CASTS} row fields by hand`, () => {
    const found = codeFiles().flatMap((file) =>
      casts(fs.readFileSync(path.join(root, file), "utf8")).map((c) => `${file}:${c.line}: ${c.text}`),
    );
    expect(found.length, `\n${found.join("\n")}\n`).toBeLessThanOrEqual(MAX_CASTS);
  });
});
