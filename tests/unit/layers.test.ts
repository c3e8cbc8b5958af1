// The layer order of docs/decisions/0013-layers.md, checked by dependency-cruiser with the rules of
// .dependency-cruiser.cjs (docs/decisions/0049-dependency-cruiser-layers.md): on the whole tree, and
// on a small tree of files that breaks each rule once, to prove the check can fail and names each offence.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cruise, type ICruiseResult, type IResolveOptions } from "dependency-cruiser";
import extractDepcruiseConfig from "dependency-cruiser/config-utl/extract-depcruise-config";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** The layer check on `dirs` of `baseDir`, `~/` resolving to its app/. */
async function check(baseDir: string, dirs: string[]): Promise<ICruiseResult> {
  const ruleSet = await extractDepcruiseConfig(path.join(root, ".dependency-cruiser.cjs"));
  const { webpackConfig: _cliOnly, ...options } = ruleSet.options ?? {};
  const alias = { "~": path.join(baseDir, "app") } as unknown as IResolveOptions["alias"];
  const { output } = await cruise(dirs, { ...options, ruleSet, validate: true, baseDir }, { alias });
  return output as ICruiseResult;
}

/** Each offence as `from → to: rule`, a cycle as its files in order. */
function offences(result: ICruiseResult): string[] {
  return result.summary.violations
    .map((v) =>
      v.cycle
        ? `${v.from} → ${v.cycle.map((c) => c.name).join(" → ")}: ${v.rule.name}`
        : `${v.from} → ${v.to}: ${v.rule.name}`,
    )
    .sort();
}

describe("the tree", () => {
  it("imports only down the layers, with no cycle", async () => {
    const result = await check(root, ["app", "db", "server"]);
    expect(offences(result), "\nrun `npm run check:layers` for the rule each one breaks\n").toEqual([]);

    // every part is read: static imports, re-exports, `import type`, with `~/` resolved
    const dependency = (from: string, to: string) =>
      result.modules.find((m) => m.source === from)?.dependencies.find((d) => d.resolved === to);
    expect(dependency("app/entry.server.tsx", "db/seed/demo.server.ts")?.dependencyTypes).toContain("export");
    expect(dependency("app/lib/config.server.ts", "server/env.mjs")).toBeDefined();
    expect(dependency("server/index.mjs", "server/env.mjs")).toBeDefined();
    expect(dependency("db/seed/cli.server.ts", "db/seed/demo.server.ts")).toBeDefined();
    expect(dependency("app/components/moment-social.tsx", "app/models/social.server.ts")?.dependencyTypes).toContain(
      "type-only",
    );
  }, 120_000);
});

describe("on a tree of files that breaks each rule", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    // upward imports
    "app/forms/photo-form.server.ts": `import "../api/read-body.server";\n`,
    "app/api/read-body.server.ts": `export const read = 1;\n`,
    "app/lib/seed.server.ts": `import { u } from "~/models/users.server";\nexport const s = u;\n`,
    "app/models/users.server.ts": `export const u = 1;\n`,
    "app/models/kids.server.ts": `import "~/web/auth.server";\nimport "../../tests/helpers";\nimport "~/lib/db.server";\n`,
    "app/web/auth.server.ts": `import "~/api/read-body.server";\nexport const a = 1;\n`,
    "app/api/serializers.server.ts": `import "~/components/photo";\nimport "~/web/auth.server";\n`,
    "app/components/photo.tsx": `export const Photo = () => <img alt="" />;\n`,
    "app/images/photo.ts": `import "../../db/seed/demo.server";\n`,
    "db/seed/demo.server.ts": `import "~/models/users.server";\nexport const demo = 1;\n`,
    "db/knexfile.mjs": `import "../app/lib/config.server";\n`,
    "app/lib/config.server.ts": `import "../../server/env.mjs";\nexport const c = 1;\n`,
    "server/env.mjs": `export const env = 1;\n`,
    "server/index.mjs": `import "../app/entry.server";\nimport "./env.mjs";\n`,
    "app/entry.server.tsx": `export { demo } from "../db/seed/demo.server";\n`,
    // route modules: only the route config (and tests) import them
    "app/routes.ts": `export default ["routes/my-kids.tsx"];\nimport "./routes/my-kids";\n`,
    "app/routes/my-kids.tsx": `import "~/api/read-body.server";\nexport default function MyKids() { return null; }\n`,
    "app/routes/kid-new.tsx": `import "./my-kids";\nimport "./+types/kid-new";\n`,
    "app/routes/images.test.ts": `import "./my-kids";\n`,
    "tests/helpers.ts": `import "../app/routes/my-kids";\nexport const h = 1;\n`,
    "tests/unit/x.test.ts": `import "../helpers";\nimport "../../app/routes/my-kids";\n`,
    // components: server modules for their types only
    "app/components/moment-social.tsx": [
      `import type { Moment } from "~/routes/moment-social";`,
      `import { social } from "~/models/social.server";`,
      `import type { Social } from "~/models/social.server";`,
      `import { kid } from "~/forms/kid";`,
      `import { today } from "~/lib/dates";`,
      `import "~/styles/kids.css";`,
      `// import("~/routes/r") in a comment, and in a string: "import('~/routes/r')"`,
      `export const C = (p: { m?: Moment; s?: Social }) => <p>{"import('~/routes/r')"}{social}{kid}{today}</p>;`,
    ].join("\n"),
    "app/routes/moment-social.tsx": `export type Moment = { id: number };\n`,
    "app/models/social.server.ts": `export const social = 1;\nexport type Social = number;\n`,
    "app/forms/kid.ts": `export const kid = 1;\n`,
    "app/lib/dates.ts": `export const today = 1;\n`,
    "app/styles/kids.css": `p { color: red; }\n`,
    // a file in no layer, an import of no file, packages
    "app/misc.ts": `import "./lib/dates";\n`,
    "app/lib/x.ts": `import "./missing";\nimport "knex";\nimport "node:fs";\n`,
    // cycles: a real one closed by a dynamic import (each reported once); one closed by `import type`, which does not count
    "app/lib/a.ts": `import { m } from "~/models/m.server";\nexport const a = () => m;\n`,
    "app/models/m.server.ts": `export const m = 1;\nexport * from "./n.server";\nexport const later = () => import("../lib/a");\n`,
    "app/models/n.server.ts": `export const n = 1;\n`,
    "app/lib/d.ts": `import "./e";\n`,
    "app/lib/e.ts": `import "./d";\n`,
    "app/lib/f.ts": `import { g } from "./g";\nexport type F = number;\nexport const f = g;\n`,
    "app/lib/g.ts": `import type { F } from "./f";\nexport const g: F = 1;\n`,
    "app/lib/db.server.ts": `export const db = 1;\n`,
    // the access module's parts: through the module only
    "app/models/access.server.ts": `import "./access/guards.server";\nexport const can = 1;\n`,
    "app/models/access/guards.server.ts": `import "./facts.server";\nexport const guard = 1;\n`,
    "app/models/access/facts.server.ts": `export const fact = 1;\n`,
    "app/models/moments.server.ts": `import "./access.server";\nimport "./access/facts.server";\n`,
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }

  it("names every offence and nothing else", async () => {
    expect(offences(await check(dir, ["app", "db", "server", "tests"]))).toEqual([
      "app/api/serializers.server.ts → app/components/photo.tsx: layer-api",
      "app/components/moment-social.tsx → app/models/social.server.ts: components-server-types-only",
      "app/components/moment-social.tsx → app/routes/moment-social.tsx: layer-components",
      "app/forms/photo-form.server.ts → app/api/read-body.server.ts: layer-domain",
      "app/images/photo.ts → db/seed/demo.server.ts: layer-domain",
      "app/lib/a.ts → app/models/m.server.ts → app/lib/a.ts: no-cycle",
      "app/lib/a.ts → app/models/m.server.ts: layer-lib",
      "app/lib/d.ts → app/lib/e.ts → app/lib/d.ts: no-cycle",
      "app/lib/seed.server.ts → app/models/users.server.ts: layer-lib",
      "app/lib/x.ts → ./missing: import-names-no-file",
      "app/misc.ts → app/lib/dates.ts: in-no-layer",
      "app/models/kids.server.ts → app/web/auth.server.ts: layer-domain",
      "app/models/kids.server.ts → tests/helpers.ts: only-tests-import-tests",
      "app/models/moments.server.ts → app/models/access/facts.server.ts: access-through-its-module",
      "app/routes/kid-new.tsx → app/routes/my-kids.tsx: layer-routes",
      "db/knexfile.mjs → app/lib/config.server.ts: layer-base",
      "server/index.mjs → app/entry.server.tsx: layer-server",
    ]);
  }, 60_000);
});
