#!/usr/bin/env bash
# The one test command (README): lint (format check, lint rules, unused code), typecheck, production
# build, unit + integration tests (vitest, real temp SQLite; again on PostgreSQL when TEST_DATABASE_URL
# points at a server: `npm run test:pg` or .ci/run start one), end-to-end tests (Playwright on
# Debian's Chromium, JavaScript on and off).
# Ends with one summary line "N passed, N failed" for the whole run.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p reports

fail=0
echo "== lint: format check, lint rules and unused code (docs/decisions/0043-biome-formatter.md, 0044-knip-unused-code.md, 0045-biome-lint-rules.md)"
npm run --silent lint >reports/lint.txt 2>&1 || { cat reports/lint.txt | head -50; echo "lint failed (formatting: npx biome format --write .; lint findings: npx biome lint .; unused code: npx knip)"; fail=1; }

echo "== typecheck"
npx react-router typegen >/dev/null && npx tsc --noEmit || fail=1

# One production build for the whole run: the vitest files that start the real server use it
# (TEST_BUILD_DIR, both engines) and so do the end-to-end tests (docs/decisions/0069-ci-time.md).
echo "== build"
build_ok=1
npx react-router build >/dev/null || { echo "build failed"; fail=1; build_ok=0; }
if [ "$build_ok" = 1 ]; then export TEST_BUILD_DIR=build; else unset TEST_BUILD_DIR; fi

echo "== unit and integration tests (vitest)"
TEST_DATABASE_URL= npx vitest run --reporter=default --reporter=json --outputFile=reports/vitest.json
[ $? -eq 0 ] || fail=1

rm -f reports/vitest-pg.json
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== the same tests on PostgreSQL (vitest, TEST_DATABASE_URL)"
  npx vitest run --reporter=default --reporter=json --outputFile=reports/vitest-pg.json
  [ $? -eq 0 ] || fail=1
fi

echo "== end-to-end tests (playwright: js and nojs)"
npx playwright test
[ $? -eq 0 ] || fail=1

# The specs of the API and of who may see and change what (sign-up/log-in, friends, kids and
# moments, likes and comments, circles and audiences) and passkeys (its own second server on the same
# database), JavaScript on, against the production server on PostgreSQL
# (docs/decisions/0021-e2e-on-postgresql.md).
E2E_PG_SPECS="tests/e2e/auth.spec.ts tests/e2e/headers.spec.ts tests/e2e/friends.spec.ts tests/e2e/kids.spec.ts tests/e2e/social.spec.ts tests/e2e/circles.spec.ts tests/e2e/passkeys-js.spec.ts"
rm -f reports/e2e-pg.json
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== end-to-end tests against the server on PostgreSQL (playwright, js: ${E2E_PG_SPECS//tests\/e2e\//})"
  if e2e_db=$(node scripts/pg-database.mjs create "$TEST_DATABASE_URL" sm_e2e); then
    E2E_DATABASE_URL=$e2e_db E2E_REPORT=reports/e2e-pg.json npx playwright test --project=js --output=test-results-pg $E2E_PG_SPECS
    [ $? -eq 0 ] || fail=1
    node scripts/pg-database.mjs drop "$e2e_db" || true
  else
    fail=1
  fi
fi

node -e '
const fs = require("fs");
let passed = 0, failed = 0;
// what failed, named again at the very end: a long run'"'"'s log is often read from its tail
const names = [];
const why = (messages) => {
  const lines = (messages ?? []).join("\n").split("\n").map((l) => l.trim()).filter(Boolean).slice(0, 6);
  return lines.length ? ["", ...lines.map((l) => `      ${l.slice(0, 300)}`)].join("\n") : "";
};
const vitestReports = ["reports/vitest.json", ...(process.env.TEST_DATABASE_URL ? ["reports/vitest-pg.json"] : [])];
for (const file of vitestReports) {
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    passed += v.numPassedTests; failed += v.numFailedTests + (v.numRuntimeErrorTestSuites ?? 0);
    for (const suite of v.testResults ?? []) {
      const where = `${file}: ${require("path").relative(process.cwd(), suite.name)}`;
      const bad = (suite.assertionResults ?? []).filter((t) => t.status === "failed");
      // with the first lines of why: the summary is often all of a CI log that is kept
      for (const t of bad) names.push(`${where} > ${t.fullName}${why(t.failureMessages)}`);
      if (suite.status === "failed" && bad.length === 0) names.push(`${where}: ${(suite.message ?? "failed").split("\n")[0]}`);
    }
  } catch { failed += 1; names.push(`${file}: missing or unreadable`); }
}
// the page as it was when the test failed (the error context Playwright writes: its accessibility tree),
// since the files of a CI run are gone with it
const pageAt = (t) => {
  const at = (t.results ?? []).flatMap((r) => r.attachments ?? []).find((a) => a.name === "error-context" && a.path);
  try {
    const all = fs.readFileSync(at.path, "utf8").split("\n").filter((l) => l.trim());
    // the page snapshot itself, after the instructions and the error Playwright repeats above it
    const from = all.findIndex((l) => l.startsWith("```yaml"));
    const rest = all.slice(from + 1);
    const end = rest.findIndex((l) => l.startsWith("```"));
    const lines = rest.slice(0, end < 0 ? rest.length : end).slice(0, 80);
    return ["", "      the page then:", ...lines.map((l) => `        ${l.slice(0, 200)}`)].join("\n");
  } catch { return ""; }
};
const e2eReports = ["reports/e2e.json", ...(process.env.TEST_DATABASE_URL ? ["reports/e2e-pg.json"] : [])];
const walk = (suite, file) => {
  for (const spec of suite.specs ?? [])
    for (const t of spec.tests ?? [])
      if (t.status === "unexpected" || t.status === "flaky") names.push(`${file}: [${t.projectName}] ${spec.file}:${spec.line} ${spec.title} (${t.status})${why((t.results ?? []).map((r) => r.error?.message ?? "").slice(0, 1))}${pageAt(t)}`);
  for (const child of suite.suites ?? []) walk(child, file);
};
for (const file of e2eReports) {
  try {
    const p = JSON.parse(fs.readFileSync(file, "utf8"));
    passed += p.stats.expected; failed += p.stats.unexpected + (p.stats.flaky ?? 0);
    for (const suite of p.suites ?? []) walk(suite, file);
  } catch { failed += 1; names.push(`${file}: missing or unreadable`); }
}
if (process.argv[1] === "1" && failed === 0) failed = 1;
if (names.length > 0) console.log(["what failed:", ...names.map((n) => `  ${n}`)].join("\n"));
console.log(`${passed} passed, ${failed} failed`);
' "$fail"
exit $fail
