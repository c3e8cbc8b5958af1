// @ts-check
// The operator commands written in TypeScript that use the app's own modules (the demo seed, the
// move to PostgreSQL) are loaded through Vite's module runner. The runner closes as soon as the
// import returns, and modules loaded on first use (the S3 client) must still find it open: so the
// module does its work while it is evaluated (top-level await) and exports its `exitCode`.

/**
 * Runs `entry` (a path from the project's root, e.g. "/db/seed/main.server.ts") and answers its exitCode.
 * @param {string} entry
 * @returns {Promise<number>}
 */
export async function runTypeScript(entry) {
  const { runnerImport } = await import("vite");
  const { module } = await runnerImport(entry, {
    configFile: false,
    root: new URL("..", import.meta.url).pathname,
    resolve: { alias: { "~": new URL("../app", import.meta.url).pathname } },
    logLevel: "error",
  });
  return /** @type {{ exitCode: number }} */ (module).exitCode;
}
