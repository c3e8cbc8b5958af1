// @ts-check
// The cluster primary's preparation (server/cluster.mjs), in a short-lived child process: it loads
// the app, runs the migrations and the demo seed (prepareDatabase), and exits, so the primary that
// stays for the server's lifetime never holds the app in memory. Exit code 0 when the database is
// ready for the workers.
import { loadBuild, prepareDatabase } from "./index.mjs";
import { startFailure } from "./preflight.mjs";

try {
  const build = await loadBuild();
  await prepareDatabase(build.entry.module);
  process.exit(0);
} catch (error) {
  console.error(`[prepare] ${startFailure(error)}`);
  process.exit(1);
}
