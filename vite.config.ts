import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import crypto from "node:crypto";
import path from "node:path";
import { precompressFiles } from "./server/static-files.mjs";

// a new id per build: every page ETag carries it, so a release never answers 304 to an old page
// (app/lib/etag.server.ts, docs/decisions/0034-conditional-pages.md)
const buildId = process.env.SM_BUILD_ID || `${Date.now().toString(36)}-${crypto.randomBytes(4).toString("hex")}`;

/** The client build's text files get their brotli and gzip copies once, here (server/static-files.mjs). */
const precompressClientFiles: Plugin = {
  name: "sweet-moments:precompress",
  apply: "build",
  applyToEnvironment: (environment) => environment.name === "client",
  writeBundle(options) {
    if (options.dir) precompressFiles(options.dir);
  },
};

export default defineConfig({
  plugins: [reactRouter(), precompressClientFiles],
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  server: { port: Number(process.env.PORT ?? 3000) },
  build: { assetsInlineLimit: 0 },
  define: { "import.meta.env.SM_BUILD_ID": JSON.stringify(buildId) },
});
