// @ts-check
// The preparation of `npm start` (server/supervise.sh), in a short-lived Node process: it checks the
// settings and the data folders (server/preflight.mjs; a problem is printed and the exit code is 1),
// writes the few settings the supervisor needs into SM_SETTINGS_FILE, then loads the app, runs the
// migrations and the demo seed (prepareDatabase), and exits, so the supervisor that stays for the
// server's lifetime never holds Node, the app or the database library in memory. Exit code 0 when the
// database is ready for the workers. With one process (WEB_CONCURRENCY=1) the supervisor becomes the
// server, which prepares its own database: this process only checks.
import fs from "node:fs";
import net from "node:net";
import { env } from "./env.mjs";
import { installLog } from "./log.mjs";
import { preflightOrExit, startFailure } from "./preflight.mjs";

await preflightOrExit();
const config = env();

/**
 * The port the workers share: PORT, or with PORT=0 one free port chosen here (each worker asking for
 * port 0 would get a port of its own). null where this system cannot share a port between processes
 * (SO_REUSEPORT: Linux, FreeBSD; not macOS or Windows).
 * @returns {Promise<number | null>}
 */
function sharedPort() {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(null));
    probe.listen({ port: config.port, host: config.host, reusePort: true }, () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : config.port;
      probe.close(() => resolve(port));
    });
  });
}

let workers = config.webConcurrency;
let port = config.port;
if (workers > 1) {
  const shared = await sharedPort();
  if (shared === null) {
    console.log(
      `WEB_CONCURRENCY=${workers}: this system cannot share a port between processes (SO_REUSEPORT), so one server process runs`,
    );
    workers = 1;
  } else port = shared;
}
const settingsFile = process.env.SM_SETTINGS_FILE;
if (settingsFile) {
  fs.writeFileSync(
    settingsFile,
    `workers=${workers} log_format=${config.logFormat} grace=${config.shutdownGraceSeconds} port=${port}\n`,
  );
}
if (workers === 1) process.exit(0);
installLog(config.logFormat);
try {
  const { loadBuild, prepareDatabase } = await import("./index.mjs");
  const { appVersion } = await import("./version.mjs");
  console.log(`[cluster] Sweet Moments ${appVersion()}: preparing the database, then ${workers} workers`);
  const build = await loadBuild();
  await prepareDatabase(build.entry.module);
  process.exit(0);
} catch (error) {
  console.error(`[prepare] ${startFailure(error)}`);
  process.exit(1);
}
