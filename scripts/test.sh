#!/usr/bin/env bash
# The one test command (README): typecheck, unit + integration tests (vitest, real temp SQLite;
# again on PostgreSQL when TEST_DATABASE_URL points at a server: `npm run test:pg` or .ci/run start
# one), production build, end-to-end tests (Playwright on Debian's Chromium, JavaScript on and off).
# Ends with one summary line "N passed, N failed" for the whole run.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p reports

fail=0
echo "== typecheck"
npx react-router typegen >/dev/null && npx tsc --noEmit || fail=1

echo "== unit and integration tests (vitest)"
TEST_DATABASE_URL= npx vitest run --reporter=default --reporter=json --outputFile=reports/vitest.json
[ $? -eq 0 ] || fail=1

rm -f reports/vitest-pg.json
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== the same tests on PostgreSQL (vitest, TEST_DATABASE_URL)"
  npx vitest run --reporter=default --reporter=json --outputFile=reports/vitest-pg.json
  [ $? -eq 0 ] || fail=1
fi

echo "== build"
npx react-router build >/dev/null || { echo "build failed"; fail=1; }

echo "== end-to-end tests (playwright: js and nojs)"
npx playwright test
[ $? -eq 0 ] || fail=1

node -e '
const fs = require("fs");
let passed = 0, failed = 0;
try {
  const v = JSON.parse(fs.readFileSync("reports/vitest.json", "utf8"));
  passed += v.numPassedTests; failed += v.numFailedTests + (v.numRuntimeErrorTestSuites ?? 0);
} catch { failed += 1; }
if (process.env.TEST_DATABASE_URL) {
  try {
    const v = JSON.parse(fs.readFileSync("reports/vitest-pg.json", "utf8"));
    passed += v.numPassedTests; failed += v.numFailedTests + (v.numRuntimeErrorTestSuites ?? 0);
  } catch { failed += 1; }
}
try {
  const p = JSON.parse(fs.readFileSync("reports/e2e.json", "utf8"));
  passed += p.stats.expected; failed += p.stats.unexpected + (p.stats.flaky ?? 0);
} catch { failed += 1; }
if (process.argv[1] === "1" && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
' "$fail"
exit $fail
