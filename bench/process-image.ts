// The photo pipeline for `npm run bench` (bench/run.mjs loads it through Vite's module runner,
// which closes once the import is done): sharp is loaded here, during the import, because the
// pipeline loads it on first use (app/images/sharp.server.ts) and the closed runner could not.
import { loadSharp } from "~/images/sharp.server";

export { processImage } from "~/images/process.server";

await loadSharp();
