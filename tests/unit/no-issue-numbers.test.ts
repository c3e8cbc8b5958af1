// Comments and test names never cite issue numbers: a reader of the repository has no issue
// tracker, so a citation explains nothing. A comment says the reason in plain words or links the
// decision record that does (docs/README.md lists them). This test reads every code file git tracks
// under app/, server/, db/, scripts/, tests/ and bench/ (and the config files at the top) and names
// file:line for each citation: a hash and one or two digits, optionally a dotted point (not a CSS
// colour, an HTML character reference or a URL fragment), or the word "issue" before a number. The
// rule is checked on samples first, so it can fail. Markdown is not read: the decision records may
// keep the history they were written in.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["app", "server", "db", "scripts", "tests", "bench"];
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|sh|css)$/;

// A hash, one or two digits, an optional ".digits": not after a letter, digit or "&" (an HTML
// character reference), and not followed by more of a word (a hex colour, a fragment such as
// "#comments-5" starts with a letter anyway). Then "issue" or "issues" before a number, with or
// without the hash.
const HASH_NUMBER = /(?<![&\w])#\d{1,2}(?:\.\d+)?(?![\w-])/;
const ISSUE_WORD = /\bissues? #?\d/i;

/** The lines of `text` that cite an issue: each line's number (1-based) and text. */
function citations(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (HASH_NUMBER.test(line) || ISSUE_WORD.test(line)) found.push({ line: i + 1, text: line.trim() });
  });
  return found;
}

/**
 * Root-relative paths of the code files git tracks, or would (new and not ignored, so a file is
 * checked before its first commit); outside a git checkout, those on disk.
 */
function codeFiles(): string[] {
  let files: string[];
  try {
    files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\0")
      .filter(Boolean);
  } catch {
    files = walk("");
  }
  return files.filter(
    (f) =>
      CODE.test(f) && (!f.includes("/") || FOLDERS.includes(f.split("/")[0]!)) && fs.existsSync(path.join(root, f)),
  );
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "tmp" || entry.name.startsWith(".")) continue;
    const rel = dir ? path.posix.join(dir, entry.name) : entry.name;
    if (entry.isDirectory()) {
      if (dir || FOLDERS.includes(entry.name)) out.push(...walk(rel));
    } else out.push(rel);
  }
  return out;
}

describe("the rule", () => {
  // built from parts, so that this file holds no citation of its own
  const hash = "#";
  const issue = "issue";
  it("finds a citation in a comment, a test name or a block comment", () => {
    for (const sample of [
      `// ${hash}21.2: the comments stay closed`,
      `// The photo viewer (${hash}20 point 3): one photo`,
      `/* a friendly list (${hash}7) */`,
      `  it("several photos (${hash}15.3): slots", async () => {`,
      `// The crash test (${issue} 19): the real server`,
      `// In-app notifications (Issue ${hash}16.5)`,
      `// the limits of ${issue}s 16 and 18`,
      `// at the end of a sentence, ${hash}9.`,
    ])
      expect(citations(sample), sample).toEqual([{ line: 1, text: sample.trim() }]);
  });

  it("names the line of each citation", () => {
    expect(citations(`const a = 1;\n// fine\n// not fine (${hash}16)\n`).map((c) => c.line)).toEqual([3]);
  });

  it("leaves colours, character references, fragments and section numbers alone", () => {
    for (const sample of [
      `background: ${hash}888;`,
      `color: ${hash}fff; border-color: ${hash}3a3; fill: ${hash}123456`,
      `storePhoto("kid", gone.id, "${hash}222")`,
      `'"': "&quot;", "'": "&${hash}39;"`,
      `"/kids/1/dailyLogs?showComments=5${hash}comments-5"`,
      `// Weak comparison (RFC 9110 §13.1.2)`,
      `// docs/decisions/0026-*: the one wrapper`,
      `for (const issue of parsed.error.issues) out.push(issue.message);`,
      `// the issue was written down`,
    ])
      expect(citations(sample), sample).toEqual([]);
  });
});

describe("the tree", () => {
  it("reads the code files of every folder, and this file among them", () => {
    const files = codeFiles();
    for (const folder of FOLDERS.filter((f) => fs.existsSync(path.join(root, f))))
      expect(
        files.some((f) => f.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    expect(files).toContain("tests/unit/no-issue-numbers.test.ts");
    expect(files).toContain("app/app.css");
    expect(files).toContain("vite.config.ts");
  });

  it("cites no issue number in a comment or a string", () => {
    const problems = codeFiles().flatMap((file) =>
      citations(fs.readFileSync(path.join(root, file), "utf8")).map((c) => `${file}:${c.line}: ${c.text}`),
    );
    expect(problems, `\n${problems.join("\n")}\n`).toEqual([]);
  });
});
