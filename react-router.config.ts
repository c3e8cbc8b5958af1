import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // BUILD_DIR lets tests and benchmarks build into a folder of their own (default: build/).
  buildDirectory: process.env.BUILD_DIR || "build",
} satisfies Config;
