import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// One isolated server for the whole run: a fresh temp database and uploads folder. The directory
// is made once in the main process; workers inherit it through the environment.
process.env.E2E_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "sm-e2e-"));
const dir = process.env.E2E_DIR;
const port = Number(process.env.E2E_PORT ?? 3311);
// E2E_DATABASE_URL: run the server on that (fresh, empty) PostgreSQL database instead of a SQLite
// file in E2E_DIR; the helpers that write test data use it too (tests/e2e/e2e-db.ts). scripts/test.sh
// makes one in CI and runs the API and access specs against it (docs/decisions/0021-*).
const databaseUrl = process.env.E2E_DATABASE_URL?.trim() ?? "";
export const baseURL = `http://127.0.0.1:${port}`;
// The test SMTP server (tests/e2e/global-smtp.ts, started by the global setup, which Playwright runs
// after starting the web server: hence a fixed port, 10000 above the server's unless set).
process.env.E2E_SMTP_PORT ??= String(port + 10_000);
const smtpUrl = `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`;

// Debian's headless shell (`chromium-headless-shell`, the old headless mode built from the same
// Chromium) when it is installed, else Debian's full chromium in its headless mode: the whole run took
// 5.7 minutes against 9.8–10.8 with the full browser, whose browser process and Chrome's own WebUI
// renderers spent about as much CPU as the pages under test (docs/decisions/0070-headless-shell.md).
// CHROMIUM_PATH picks another.
const chromiumPath =
  process.env.CHROMIUM_PATH ??
  (fs.existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");

const chromiumArgs = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/global-smtp.ts",
  // Two workers, each a browser against the one server: the specs share no state but the server
  // (every test signs up its own accounts from random names and addresses; the SMTP inbox is read by
  // address). A spec file's tests run in order in one worker (fullyParallel off): some build on a
  // seeded account in beforeAll. E2E_WORKERS overrides (docs/decisions/0051-test-kit-and-a-faster-suite.md).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: true,
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: process.env.E2E_REPORT ?? "reports/e2e.json" }]],
  use: {
    baseURL,
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
    trace: "off",
    screenshot: "off",
  },
  projects: [
    // history.spec.ts is about the browser's history cache without JavaScript: nojs only
    { name: "js", use: { javaScriptEnabled: true }, testIgnore: /history\.spec\.ts/ },
    // nojs leaves out what JavaScript in the page plays no part in, run once in js:
    // - dialogs-js.spec.ts, passkeys-js.spec.ts and uploads-js.spec.ts are about what only the
    //   page's scripts do;
    // - headers.spec.ts asks the server over plain HTTP, with no browser page;
    // - budgets.spec.ts weighs the HTML and CSS over plain HTTP, measures the photos on a phone with
    //   JavaScript on (Chromium lazy-loads only with it), and checks that every image of the
    //   server's markup has its size (the same markup whether hydrated or not);
    // - the tests tagged @once (ONCE in tests/e2e/utils.ts): forged requests and the server's answers.
    {
      name: "nojs",
      use: { javaScriptEnabled: false },
      testIgnore: /(dialogs-js|passkeys-js|uploads-js|headers|budgets)\.spec\.ts/,
      grepInvert: /@once/,
    },
  ],
  webServer: {
    command: "node server/index.mjs",
    url: `${baseURL}/favicon.svg`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      // the site's address, reached by the browser and in every mailed link (docs/decisions/0038-the-site-address.md)
      ORIGIN: baseURL,
      DATABASE_FILE: path.join(dir, "e2e.sqlite"),
      // the helpers read that file (or E2E_DATABASE_URL): never a database from the caller's DATABASE_URL
      DATABASE_URL: databaseUrl,
      UPLOADS_DIR: path.join(dir, "uploads"),
      SESSION_SECRET: "e2e-only-secret-not-for-production",
      DEMO: "true",
      BUILD_DIR: process.env.BUILD_DIR ?? "build",
      TIME_ZONE: "UTC",
      LOGIN_MAX_FAILURES_PER_ADDRESS: "100000",
      LOGIN_MAX_FAILURES_PER_ACCOUNT: "5",
      // every spec signs up new accounts from this one address
      SIGNUP_MAX_PER_ADDRESS: "100000",
      // every log-in page the js project opens begins a passkey sign-in (autofill), all from this address
      PASSKEY_OPTIONS_MAX_PER_ADDRESS: "100000",
      PHOTO_UPLOADS_PER_HOUR: "100000",
      // every message goes over SMTP to the test server (never the .eml outbox)
      SMTP_URL: smtpUrl,
      // the digest scheduler looks every second, so a digest made due by a test (tests/e2e/digests.spec.ts) goes out at once
      DIGEST_CHECK_SECONDS: "1",
      // clips are prepared at once after posting (woken in the same process); a slow round is quick too
      VIDEO_CHECK_SECONDS: "1",
    },
  },
});
