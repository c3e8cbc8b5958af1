// @ts-check
// `npm run db:seed`: (re)creates the demo accounts and their data; never touches other accounts.
import { migrate } from "./migrate.mjs";

const { knex } = await migrate();
await knex.destroy();
// The seed is TypeScript that uses the app's own modules: load it through Vite's module runner.
const { runnerImport } = await import("vite");
const { module } = await runnerImport("/db/seed/cli.server.ts", {
  configFile: false,
  root: new URL("..", import.meta.url).pathname,
  resolve: { alias: { "~": new URL("../app", import.meta.url).pathname } },
  logLevel: "error",
});
await /** @type {any} */ (module).run();
process.exit(0);
