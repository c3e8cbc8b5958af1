// @ts-check
// The cluster primary's preparation (server/cluster.mjs), in a short-lived child process: it checks
// the settings and the data folders (server/preflight.mjs; a problem is printed and the exit code is
// 1), sends the primary the few settings it needs to supervise, then loads the app, runs the
// migrations and the demo seed (prepareDatabase), and exits, so the primary that stays for the
// server's lifetime never holds the app, the settings' parser or the database library in memory.
// Exit code 0 when the database is ready for the workers. With one process (WEB_CONCURRENCY=1) the
// primary serves itself and prepares its own database: this child only checks.
import { env } from "./env.mjs";
import { installLog } from "./log.mjs";
import { preflightOrExit, startFailure } from "./preflight.mjs";

await preflightOrExit();
const config = env();
/** @param {unknown} message */
const tell = (message) => new Promise((resolve) => process.send?.(message, undefined, undefined, resolve));
await tell({
  workers: config.webConcurrency,
  logFormat: config.logFormat,
  shutdownGraceSeconds: config.shutdownGraceSeconds,
});
if (config.webConcurrency === 1) process.exit(0);
installLog(config.logFormat);
try {
  const { loadBuild, prepareDatabase } = await import("./index.mjs");
  const { appVersion } = await import("./version.mjs");
  console.log(`[cluster] Sweet Moments ${appVersion()}: preparing the database, then ${config.webConcurrency} workers`);
  const build = await loadBuild();
  await prepareDatabase(build.entry.module);
  process.exit(0);
} catch (error) {
  console.error(`[prepare] ${startFailure(error)}`);
  process.exit(1);
}
