// The layer order of docs/decisions/0013-layers.md, checked on the whole tree (scripts/check-layers.ts),
// and the checker itself: it must fail on upward imports and on cycles, and name each one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkLayers,
  collectEdges,
  findCycles,
  formatCycle,
  layerViolations,
  type Edge,
} from "../../scripts/check-layers";

const root = path.resolve(import.meta.dirname, "../..");

describe("the tree", () => {
  it("imports only down the layers, with no cycle", () => {
    const problems = checkLayers(root);
    // each offending import on its own line: file:line → target: rule
    expect(problems, `\n${problems.join("\n")}\n`).toEqual([]);
  });

  it("reads the imports of every part (static, re-exports, dynamic)", () => {
    const edges = collectEdges(root);
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    expect(has("app/entry.server.tsx", "db/seed/demo.server.ts")).toBe(true); // export … from
    expect(has("app/lib/config.server.ts", "server/env.mjs")).toBe(true);
    expect(has("server/index.mjs", "server/env.mjs")).toBe(true);
    expect(has("db/seed/cli.server.ts", "db/seed/demo.server.ts")).toBe(true);
    expect(
      edges.some(
        (e) => e.from === "app/components/moment-social.tsx" && e.to === "app/models/social.server.ts" && e.typeOnly,
      ),
    ).toBe(true);
  });
});

const edge = (from: string, to: string, extra: Partial<Edge> = {}): Edge => ({
  from,
  line: 1,
  to,
  typeOnly: false,
  resolved: true,
  ...extra,
});
const broken = (...edges: Edge[]) => layerViolations(edges).map((v) => `${v.edge.from} → ${v.edge.to}`);

describe("the layer rules", () => {
  it("refuse upward imports", () => {
    expect(
      broken(
        edge("app/forms/photo-form.server.ts", "app/api/read-body.server.ts"),
        edge("app/lib/seed.server.ts", "app/models/users.server.ts"),
        edge("app/lib/seed.server.ts", "app/images/storage.server.ts"),
        edge("app/models/kids.server.ts", "app/web/auth.server.ts"),
        edge("app/api/serializers.server.ts", "app/components/photo.tsx"),
        edge("app/images/photo.ts", "db/seed/demo.server.ts"),
        edge("db/knexfile.mjs", "app/lib/config.server.ts"),
        edge("server/index.mjs", "app/entry.server.tsx"),
      ),
    ).toEqual([
      "app/forms/photo-form.server.ts → app/api/read-body.server.ts",
      "app/lib/seed.server.ts → app/models/users.server.ts",
      "app/lib/seed.server.ts → app/images/storage.server.ts",
      "app/models/kids.server.ts → app/web/auth.server.ts",
      "app/api/serializers.server.ts → app/components/photo.tsx",
      "app/images/photo.ts → db/seed/demo.server.ts",
      "db/knexfile.mjs → app/lib/config.server.ts",
      "server/index.mjs → app/entry.server.tsx",
    ]);
  });

  it("let nothing import a route module but the route config and tests", () => {
    expect(
      broken(
        edge("app/components/moment-social.tsx", "app/routes/moment-social.tsx", { typeOnly: true }),
        edge("app/routes/kid-new.tsx", "app/routes/my-kids.tsx"),
        edge("app/routes.ts", "app/routes/my-kids.tsx"),
        edge("app/routes/images.test.ts", "app/routes/images.ts"),
        edge("tests/unit/x.test.ts", "app/root.tsx"),
      ),
    ).toEqual([
      "app/components/moment-social.tsx → app/routes/moment-social.tsx",
      "app/routes/kid-new.tsx → app/routes/my-kids.tsx",
    ]);
  });

  it("let components import server modules for their types only", () => {
    expect(
      broken(
        edge("app/components/moment-social.tsx", "app/models/social.server.ts"),
        edge("app/components/moment-social.tsx", "app/models/social.server.ts", { typeOnly: true }),
        edge("app/components/kids.tsx", "app/forms/kid.ts"),
        edge("app/components/kids.tsx", "app/lib/dates.ts"),
        edge("app/components/kids.tsx", "app/styles/kids.css"),
      ),
    ).toEqual(["app/components/moment-social.tsx → app/models/social.server.ts"]);
  });

  it("let only the access module import its parts", () => {
    expect(
      broken(
        edge("app/models/access.server.ts", "app/models/access/guards.server.ts"),
        edge("app/models/access/guards.server.ts", "app/models/access/facts.server.ts"),
        edge("tests/unit/x.test.ts", "app/models/access/lists.server.ts"),
        edge("app/models/kids.server.ts", "app/models/access.server.ts"),
        edge("app/models/kids.server.ts", "app/models/access/lists.server.ts"),
        edge("app/web/conditional.server.ts", "app/models/access/stamp.server.ts", { typeOnly: true }),
      ),
    ).toEqual([
      "app/models/kids.server.ts → app/models/access/lists.server.ts",
      "app/web/conditional.server.ts → app/models/access/stamp.server.ts",
    ]);
  });

  it("allow what goes down: adapters, domain, lib, the seed's entry points", () => {
    expect(
      broken(
        edge("app/routes/kid-new.tsx", "app/api/read-body.server.ts"),
        edge("app/entry.server.tsx", "db/seed/demo.server.ts"),
        edge("app/api/route.server.ts", "app/web/auth.server.ts"),
        edge("app/web/auth.server.ts", "app/api/responses.server.ts"),
        edge("app/forms/photo-form.server.ts", "app/images/multipart.server.ts"),
        edge("app/models/kids.server.ts", "app/lib/db.server.ts"),
        edge("app/lib/db.server.ts", "db/knexfile.mjs"),
        edge("app/lib/config.server.ts", "server/env.mjs"),
        edge("db/seed/demo.server.ts", "app/models/users.server.ts"),
        edge("app/lib/db.server.ts", "knex", { resolved: false }),
      ),
    ).toEqual([]);
  });

  it("refuse test code in the app and imports that name no file", () => {
    expect(
      broken(
        edge("app/models/kids.server.ts", "tests/helpers.ts"),
        edge("app/lib/x.ts", "./missing", { resolved: false }),
      ),
    ).toEqual(["app/models/kids.server.ts → tests/helpers.ts", "app/lib/x.ts → ./missing"]);
  });
});

describe("the cycle check", () => {
  it("finds each cycle once, as the imports that close it", () => {
    const cycles = findCycles([
      edge("app/models/b.server.ts", "app/models/c.server.ts", { line: 2 }),
      edge("app/models/a.server.ts", "app/models/b.server.ts", { line: 1 }),
      edge("app/models/c.server.ts", "app/models/a.server.ts", { line: 3 }),
      edge("app/models/c.server.ts", "app/lib/d.ts", { line: 4 }),
      edge("app/lib/d.ts", "app/lib/e.ts", { line: 5 }),
      edge("app/lib/e.ts", "app/lib/d.ts", { line: 6 }),
    ]);
    expect(cycles.map(formatCycle)).toEqual([
      "cycle: app/lib/d.ts:5 → app/lib/e.ts:6 → app/lib/d.ts",
      "cycle: app/models/a.server.ts:1 → app/models/b.server.ts:2 → app/models/c.server.ts:3 → app/models/a.server.ts",
    ]);
  });

  it("ignores type-only imports and tests", () => {
    expect(
      findCycles([
        edge("app/root.tsx", "app/components/root-data.ts"),
        edge("app/components/root-data.ts", "app/root.tsx", { typeOnly: true }),
        edge("app/lib/x.ts", "app/lib/x.test.ts"),
        edge("app/lib/x.test.ts", "app/lib/x.ts"),
      ]),
    ).toEqual([]);
  });
});

describe("on a tree of files", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };

  it("reads every kind of import and prints each offence as file:line → target", () => {
    write(
      "app/lib/a.ts",
      `// a floor module that reaches up
import { m } from "~/models/m.server";
export const a = () => m;
`,
    );
    write(
      "app/models/m.server.ts",
      `/* the domain: "image/*" is a string, import("~/routes/r") a comment */
export const m = "image/*";
export * from "../api/x.server";
export const later = () => import("../lib/a");
`,
    );
    write("app/api/x.server.ts", `import type { m } from "~/models/m.server";\nexport type X = typeof m;\n`);
    write(
      "app/components/c.tsx",
      `import { type X } from "~/api/x.server";
import type { m } from "~/models/m.server";
export const C = (p: { x?: X; m?: typeof m }) => <p>Don't {"import('~/routes/r')"}</p>;
`,
    );
    write("app/routes/r.tsx", `import { C } from "~/components/c";\nexport default C;\n`);
    write("app/routes/r.test.ts", `import r from "./r";\nimport "~/lib/a";\nexport default r;\n`);

    expect(checkLayers(dir)).toEqual([
      "app/components/c.tsx:1 → app/api/x.server.ts: components may import a server module only with `import type`",
      "app/lib/a.ts:2 → app/models/m.server.ts: app/lib may import only app/lib, db/ and server/env.mjs; not the domain (app/models, app/images, app/forms, app/jobs, app/mail)",
      "app/models/m.server.ts:3 → app/api/x.server.ts: the domain (app/models, app/images, app/forms, app/jobs, app/mail) may import only the domain (app/models, app/images, app/forms, app/jobs, app/mail), app/lib, db/ and server/env.mjs; not app/api",
      "cycle: app/lib/a.ts:2 → app/models/m.server.ts:4 → app/lib/a.ts",
    ]);
  });
});
