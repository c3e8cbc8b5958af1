// The benchmarks README tells a developer to run (`npm run bench`, `bench:matrix`, `bench:network`),
// run as README says but briefly: one case for a second, one engine and one process, one visit per
// mode on the slow link. They print figures and assert nothing themselves; here each must finish and
// write its figures, so a change that breaks one fails this test instead of the next measurement.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "./support/built-server";
import { runNpmScript } from "./support/npm-script";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-bench-scripts-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Runs the script (a second per case, no warm-up) and answers what it printed and the figures it wrote. */
async function briefly(script: string, args: string[], env: Record<string, string>, resultsVariable: string) {
  const file = path.join(work, `${script.replace(":", "-")}.json`);
  const { code, out } = await runNpmScript(script, args, {
    BENCH_SECONDS: "1",
    BENCH_WARMUP: "0",
    ...env,
    [resultsVariable]: file,
  });
  expect(code, out).toBe(0);
  return { printed: out, figures: JSON.parse(fs.readFileSync(file, "utf8")) };
}

type Figures = { case: string; reqPerSec?: number | null };
const rate = (cases: Figures[] | undefined, name: string) => cases?.find((c) => c.case === name)?.reqPerSec;

describe("the benchmarks, briefly", () => {
  it("npm run bench: the landing page on one process and on every core, its figures written", async () => {
    const { printed, figures } = await briefly("bench", [], { BENCH_CASES: "landing page" }, "BENCH_RESULTS");
    expect(printed).toMatch(/landing page \(reference\)\s+\d+ req\/s/);
    expect(rate(figures.results, "landing page (reference)")).toBeGreaterThan(0);
    expect(rate(figures.results, "landing page (reference) (2 workers)")).toBeGreaterThan(0);
  }, 300_000);

  it("npm run bench:matrix: its table on SQLite with one process", async () => {
    const { printed, figures } = await briefly("bench:matrix", [], { BENCH_MATRIX: "sqlite:1" }, "BENCH_RESULTS");
    expect(printed).toMatch(/\| landing page \(reference\) \| \d+ req\/s, p99 [\d.]+ ms \|/);
    expect(rate(figures.results["SQLite ×1"], "landing page (reference)")).toBeGreaterThan(0);
  }, 300_000);

  it("npm run bench:network: the kid page's first visit on the slow link, with JavaScript and without", async () => {
    const { figures } = await briefly("bench:network", ["1"], { BUILD_DIR: await buildApp() }, "BENCH_NETWORK_RESULTS");
    const summary = figures.summary as { js: boolean; firstMomentMsMedian: number }[];
    expect(summary.map((s) => s.js)).toEqual([true, false]);
    for (const s of summary) expect(s.firstMomentMsMedian).toBeGreaterThan(0);
  }, 300_000);
});
