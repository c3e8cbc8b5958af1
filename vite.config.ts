import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";
import crypto from "node:crypto";
import path from "node:path";

// a new id per build: every page ETag carries it, so a release never answers 304 to an old page
// (app/lib/etag.server.ts, docs/decisions/0034-conditional-pages.md)
const buildId = process.env.SM_BUILD_ID || `${Date.now().toString(36)}-${crypto.randomBytes(4).toString("hex")}`;

export default defineConfig({
  plugins: [reactRouter()],
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  server: { port: Number(process.env.PORT ?? 3000) },
  build: { assetsInlineLimit: 0 },
  define: { "import.meta.env.SM_BUILD_ID": JSON.stringify(buildId) },
});
