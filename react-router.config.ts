import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The route manifest once, as a cached file, instead of a partial manifest matched and written
  // into every page: a fixed 0.1-0.2 ms less of each page's CPU, and no manifest requests before a
  // client navigation (docs/decisions/0071-route-discovery.md).
  routeDiscovery: { mode: "initial" },
  // BUILD_DIR lets tests and benchmarks build into a folder of their own (default: build/).
  buildDirectory: process.env.BUILD_DIR || "build",
} satisfies Config;
