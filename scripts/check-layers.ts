// The layer check (docs/decisions/0013-layers.md). Reads every import of app/, db/ and server/
// (static `import … from`, `export … from`, dynamic `import("…")` with a literal path), resolves
// `~/` to app/ and relative paths to files, and reports
// - every import that points up the layer order (or sideways where the order forbids it), and
// - every import cycle among the modules (type-only imports do not count: they vanish at build).
// Test files (*.test.ts[x], tests/) are exempt. The parser is Vite's (oxc), so TypeScript and JSX
// are read as the compiler reads them, comments and strings included.
//
// Run by tests/unit/layers.test.ts (part of `npm test`); by hand: `npm run check:layers`.
import fs from "node:fs";
import path from "node:path";
import { parseSync } from "vite";

/** Where a file sits in the layer order. */
export type Zone =
  | "routes" // app/routes/**, app/root.tsx, app/entry.server.tsx
  | "route-config" // app/routes.ts
  | "api"
  | "web"
  | "components"
  | "domain" // app/models, app/images, app/forms, app/jobs, app/mail
  | "lib"
  | "seed" // db/seed/**, db/move/**: entry points that may use the domain
  | "base" // db/knexfile.mjs, db/migrations/**, server/env.mjs (and its client-address.mjs): config and schema, no app code
  | "server" // the rest of server/: the process around the build
  | "asset" // styles, icons: importable from anywhere
  | "test"
  | "other";

/** One import: `from` (a path relative to the root) at `line` names `to` (resolved, or the raw specifier). */
export type Edge = {
  from: string;
  line: number;
  to: string;
  /** `import type …` / `export type … from`: gone at build time. */
  typeOnly: boolean;
  /** false for packages (`react`, `node:fs`) and for paths that name no file. */
  resolved: boolean;
};

export type Violation = { edge: Edge; rule: string };

const SCANNED_DIRS = ["app", "db", "server"];
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const EXTENSIONS = [".ts", ".tsx", ".mjs", ".js", ".jsx", ".cjs", ".mts", ".cts"];

export function zoneOf(file: string): Zone {
  const f = file.split(path.sep).join("/");
  if (/\.test\.[cm]?[jt]sx?$/.test(f) || f.startsWith("tests/")) return "test";
  if (f === "app/routes.ts") return "route-config";
  if (f.startsWith("app/") && !CODE.test(f)) return "asset";
  if (f.startsWith("app/routes/") || f === "app/root.tsx" || f === "app/entry.server.tsx") return "routes";
  if (f.startsWith("app/api/")) return "api";
  if (f.startsWith("app/web/")) return "web";
  if (f.startsWith("app/components/")) return "components";
  if (
    f.startsWith("app/models/") ||
    f.startsWith("app/images/") ||
    f.startsWith("app/forms/") ||
    f.startsWith("app/jobs/") ||
    f.startsWith("app/mail/")
  ) {
    return "domain";
  }
  if (f.startsWith("app/lib/")) return "lib";
  if (f.startsWith("db/seed/") || f.startsWith("db/move/")) return "seed";
  if (f === "server/env.mjs" || f === "server/client-address.mjs" || f.startsWith("db/")) return "base";
  if (f.startsWith("server/")) return "server";
  return "other";
}

/** What each zone may import (besides packages and assets). */
const ALLOWED: Record<Zone, readonly Zone[]> = {
  routes: ["api", "web", "components", "domain", "lib", "seed", "base"],
  "route-config": ["routes"],
  api: ["api", "web", "domain", "lib", "base"],
  web: ["api", "web", "domain", "lib", "base"],
  // UI only: server modules (`*.server.*`) with `import type` alone (see `layerViolations`)
  components: ["components", "api", "web", "domain", "lib"],
  domain: ["domain", "lib", "base"],
  lib: ["lib", "base"],
  seed: ["seed", "domain", "lib", "base"],
  base: ["base"],
  server: ["server", "base"],
  asset: [],
  test: [],
  other: [],
};

const DESCRIPTION: Record<Zone, string> = {
  routes: "routes (app/routes/**, root.tsx, entry.server.tsx)",
  "route-config": "the route config (app/routes.ts)",
  api: "app/api",
  web: "app/web",
  components: "app/components",
  domain: "the domain (app/models, app/images, app/forms, app/jobs, app/mail)",
  lib: "app/lib",
  seed: "db/seed",
  base: "db/ and server/env.mjs",
  server: "server/",
  asset: "assets",
  test: "tests",
  other: "an unknown place",
};

function isServerModule(file: string): boolean {
  return /\.server\.[cm]?[jt]sx?$/.test(file) || file.includes("/.server/");
}

// The one access module is app/models/access.server.ts with its parts in app/models/access/: the
// parts are imported only by it and by each other, so everything else asks the module.
const ACCESS_MODULE = "app/models/access.server.ts";
const isAccessPart = (file: string) => file.startsWith("app/models/access/");

/** The rule an import breaks, or null. Tests import anything; everything may import packages and assets. */
export function ruleBroken(edge: Edge): string | null {
  const from = zoneOf(edge.from);
  if (from === "test") return null;
  if (!edge.resolved) {
    return edge.to.startsWith(".") || edge.to.startsWith("~/") ? "the import names no file" : null;
  }
  const to = zoneOf(edge.to);
  if (to === "asset") return null;
  if (to === "test") return "only tests import test files";
  if (from === "other") return `${edge.from} is in no layer: put it in one (docs/decisions/0013-layers.md)`;
  if (to === "other") return `${edge.to} is in no layer`;
  if (!ALLOWED[from].includes(to)) {
    const allowed = ALLOWED[from].map((z) => DESCRIPTION[z]).join(", ") || "nothing of the project";
    return `${DESCRIPTION[from]} may import only ${allowed}; not ${DESCRIPTION[to]}`;
  }
  if (from === "components" && isServerModule(edge.to) && !edge.typeOnly) {
    return "components may import a server module only with `import type`";
  }
  if (isAccessPart(edge.to) && !isAccessPart(edge.from) && edge.from !== ACCESS_MODULE) {
    return `the access module's parts are imported through ${ACCESS_MODULE} (docs/decisions/0012-refusal-and-access-module.md)`;
  }
  return null;
}

export function layerViolations(edges: readonly Edge[]): Violation[] {
  const out: Violation[] = [];
  for (const edge of edges) {
    const rule = ruleBroken(edge);
    if (rule) out.push({ edge, rule });
  }
  return out;
}

/**
 * Import cycles among the scanned modules (tests excluded, type-only imports ignored): each cycle
 * once, as the edges that close it, starting from its smallest file name.
 */
export function findCycles(edges: readonly Edge[]): Edge[][] {
  const graph = new Map<string, Edge[]>();
  for (const e of edges) {
    if (e.typeOnly || !e.resolved || zoneOf(e.from) === "test" || zoneOf(e.to) === "test" || e.from === e.to) continue;
    if (!CODE.test(e.to)) continue;
    const list = graph.get(e.from) ?? [];
    if (!list.some((x) => x.to === e.to)) list.push(e);
    graph.set(e.from, list);
  }
  // Tarjan: strongly connected components; each one with more than one file holds a cycle
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const e of graph.get(v) ?? []) {
      if (!index.has(e.to)) {
        visit(e.to);
        low.set(v, Math.min(low.get(v)!, low.get(e.to)!));
      } else if (onStack.has(e.to)) {
        low.set(v, Math.min(low.get(v)!, index.get(e.to)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);

  // one concrete cycle per component: the shortest way back to its first file
  return components
    .map((component) => {
      const members = new Set(component);
      const start = [...component].sort()[0]!;
      const previous = new Map<string, Edge>();
      const queue = [start];
      while (queue.length) {
        const v = queue.shift()!;
        for (const e of graph.get(v) ?? []) {
          if (!members.has(e.to)) continue;
          if (e.to === start) {
            const cycle = [e];
            for (let at = v; at !== start; at = previous.get(at)!.from) cycle.unshift(previous.get(at)!);
            return cycle;
          }
          if (!previous.has(e.to)) {
            previous.set(e.to, e);
            queue.push(e.to);
          }
        }
      }
      return [];
    })
    .filter((c) => c.length > 0)
    .sort((a, b) => a[0]!.from.localeCompare(b[0]!.from));
}

export function formatViolation({ edge, rule }: Violation): string {
  return `${edge.from}:${edge.line} → ${edge.to}${edge.typeOnly ? " (type)" : ""}: ${rule}`;
}

export function formatCycle(cycle: readonly Edge[]): string {
  return "cycle: " + cycle.map((e) => `${e.from}:${e.line}`).join(" → ") + ` → ${cycle[0]!.from}`;
}

// ---- reading the tree -------------------------------------------------------------------------

function listFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return out;
  for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(root, rel));
    else if (CODE.test(entry.name)) out.push(rel);
  }
  return out;
}

/** `specifier` as imported from `from`: a root-relative file, or null for packages and missing files. */
export function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  const bare = specifier.replace(/[?#].*$/, "");
  let target: string;
  if (bare.startsWith("~/")) target = path.posix.join("app", bare.slice(2));
  else if (bare.startsWith("./") || bare.startsWith("../")) target = path.posix.join(path.posix.dirname(from), bare);
  else return null;
  const candidates = [target, ...EXTENSIONS.map((x) => target + x), ...EXTENSIONS.map((x) => `${target}/index${x}`)];
  // `./x.js` written for `./x.ts`
  if (/\.[cm]?js$/.test(target))
    candidates.push(target.replace(/\.([cm]?)js$/, ".$1ts"), target.replace(/\.js$/, ".tsx"));
  return candidates.find((c) => fs.statSync(path.join(root, c), { throwIfNoEntry: false })?.isFile()) ?? null;
}

type Node = { type?: string; start?: number; [key: string]: unknown };

/** Every import of one file's source. */
export function importsOf(source: string, file: string): { specifier: string; offset: number; typeOnly: boolean }[] {
  const result = parseSync(file, source);
  if (result.errors.length) throw new Error(`${file}: cannot parse: ${result.errors[0]!.message}`);
  const out: { specifier: string; offset: number; typeOnly: boolean }[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    const n = node as Node;
    const source = n.source as { type?: string; value?: unknown } | null | undefined;
    if (n.type === "ImportDeclaration" && typeof source?.value === "string") {
      out.push({ specifier: source.value, offset: n.start ?? 0, typeOnly: n.importKind === "type" });
    } else if (
      (n.type === "ExportNamedDeclaration" || n.type === "ExportAllDeclaration") &&
      typeof source?.value === "string"
    ) {
      out.push({ specifier: source.value, offset: n.start ?? 0, typeOnly: n.exportKind === "type" });
    } else if (n.type === "ImportExpression") {
      // only a literal path can be checked; computed ones (the server loading its build) are not imports of the tree
      const s = n.source as Node & {
        value?: unknown;
        quasis?: { value: { cooked: string } }[];
        expressions?: unknown[];
      };
      if (s?.type === "Literal" && typeof s.value === "string")
        out.push({ specifier: s.value, offset: n.start ?? 0, typeOnly: false });
      else if (s?.type === "TemplateLiteral" && !s.expressions?.length && s.quasis?.length === 1) {
        out.push({ specifier: s.quasis[0]!.value.cooked, offset: n.start ?? 0, typeOnly: false });
      }
    }
    for (const key of Object.keys(n)) if (key !== "type") walk(n[key]);
  };
  walk(result.program);
  return out;
}

function lineAt(source: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < source.length; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

/** Every import of every code file under app/, db/ and server/ of `root`. */
export function collectEdges(root: string, dirs: readonly string[] = SCANNED_DIRS): Edge[] {
  const edges: Edge[] = [];
  for (const file of dirs.flatMap((d) => listFiles(root, d)).sort()) {
    const source = fs.readFileSync(path.join(root, file), "utf8");
    for (const imp of importsOf(source, file)) {
      // React Router's generated route types (rootDirs), not files of the tree
      if (imp.specifier.startsWith("./+types/")) continue;
      const to = resolveSpecifier(root, file, imp.specifier);
      edges.push({
        from: file,
        line: lineAt(source, imp.offset),
        to: to ?? imp.specifier,
        typeOnly: imp.typeOnly,
        resolved: to !== null,
      });
    }
  }
  return edges;
}

/** The whole check: one line per offending import and per cycle; empty when all is well. */
export function checkLayers(root: string): string[] {
  const edges = collectEdges(root);
  return [...layerViolations(edges).map(formatViolation), ...findCycles(edges).map(formatCycle)];
}

if (import.meta.filename === path.resolve(process.argv[1] ?? "")) {
  const root = path.resolve(import.meta.dirname, "..");
  const edges = collectEdges(root);
  const problems = checkLayers(root);
  const files = new Set(edges.map((e) => e.from)).size;
  if (problems.length) {
    console.log(problems.join("\n"));
    console.log(`layers: ${problems.length} problem(s) in ${edges.length} imports of ${files} files`);
    process.exitCode = 1;
  } else {
    console.log(`layers: ok (${edges.length} imports of ${files} files, no upward import, no cycle)`);
  }
}
