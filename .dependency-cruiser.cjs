// @ts-check
// The layer rules of docs/decisions/0013-layers.md, checked by dependency-cruiser
// (docs/decisions/0049-dependency-cruiser-layers.md): `npm run check:layers` by hand, and
// tests/unit/layers.test.ts on every test run. Paths are relative to the root. Test files
// (`*.test.ts[x]`, `tests/`) are exempt; everything may import packages and assets (styles, icons).
const path = require("node:path");

const TEST = "(^tests/|\\.test\\.[cm]?[jt]sx?$)";
/** A code file of the project: the only kind of import a layer rule looks at. */
const CODE = "^(app|db|server)/.+\\.[cm]?[jt]sx?$";

/** Where a file sits in the layer order. */
const ZONES = {
  routes: {
    path: "^app/(routes/|root\\.tsx$|entry\\.server\\.tsx$)",
    name: "routes (app/routes/**, root.tsx, entry.server.tsx)",
  },
  "route-config": { path: "^app/routes\\.ts$", name: "the route config (app/routes.ts)" },
  api: { path: "^app/api/", name: "app/api" },
  web: { path: "^app/web/", name: "app/web" },
  components: { path: "^app/components/", name: "app/components" },
  domain: {
    path: "^app/(models|images|imports|video|forms|jobs|mail)/",
    name: "the domain (app/models, app/images, app/imports, app/video, app/forms, app/jobs, app/mail)",
  },
  lib: { path: "^app/lib/", name: "app/lib" },
  // entry points that may use the domain
  seed: { path: "^db/(seed|move)/", name: "db/seed" },
  // config and schema, no app code
  base: {
    path: "^(db/(?!seed/|move/)|server/(env|client-address|zip-read)\\.mjs$)",
    name: "db/ and server/env.mjs (and the ZIP reader)",
  },
  // the process around the build
  server: { path: "^server/(?!(env|client-address|zip-read)\\.mjs$)", name: "server/" },
};

/** @typedef {keyof typeof ZONES} Zone */

/** What each zone may import (besides packages and assets). Changing it means changing 0013 too. */
/** @type {Record<Zone, Zone[]>} */
const ALLOWED = {
  routes: ["api", "web", "components", "domain", "lib", "seed", "base"],
  "route-config": ["routes"],
  api: ["api", "web", "domain", "lib", "base"],
  web: ["api", "web", "domain", "lib", "base"],
  // UI only: server modules (`*.server.*`) with `import type` alone (the rule below)
  components: ["components", "api", "web", "domain", "lib"],
  domain: ["domain", "lib", "base"],
  lib: ["lib", "base"],
  seed: ["seed", "domain", "lib", "base"],
  base: ["base"],
  server: ["server", "base"],
};

const zones = /** @type {Zone[]} */ (Object.keys(ZONES));
const everyZone = zones.map((z) => ZONES[z].path);

/** @type {import("dependency-cruiser").IForbiddenRuleType[]} */
const layerRules = zones.map((zone) => ({
  name: `layer-${zone}`,
  severity: "error",
  comment: `${ZONES[zone].name} may import only ${ALLOWED[zone].map((z) => ZONES[z].name).join(", ")}`,
  from: { path: ZONES[zone].path, pathNot: TEST },
  to: { path: CODE, pathNot: [TEST, ...ALLOWED[zone].map((z) => ZONES[z].path)] },
}));

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "components-server-types-only",
      severity: "error",
      comment: "components may import a server module only with `import type`",
      from: { path: ZONES.components.path, pathNot: TEST },
      to: { path: "(\\.server\\.[cm]?[jt]sx?$|/\\.server/)", dependencyTypesNot: ["type-only"] },
    },
    {
      // the one access module is app/models/access.server.ts with its parts in app/models/access/:
      // the parts are imported only by it and by each other, so everything else asks the module
      name: "access-through-its-module",
      severity: "error",
      comment:
        "the access module's parts are imported through app/models/access.server.ts (docs/decisions/0012-refusal-and-access-module.md)",
      from: { pathNot: [TEST, "^app/models/access\\.server\\.ts$", "^app/models/access/"] },
      to: { path: "^app/models/access/" },
    },
    {
      name: "in-no-layer",
      severity: "error",
      comment: "this file is in no layer: put it in one (docs/decisions/0013-layers.md)",
      from: { path: CODE, pathNot: [TEST, ...everyZone] },
      to: { path: CODE },
    },
    {
      name: "only-tests-import-tests",
      severity: "error",
      comment: "only tests import test files",
      from: { pathNot: TEST },
      to: { path: TEST },
    },
    {
      name: "import-names-no-file",
      severity: "error",
      comment: "the import names no file",
      from: { pathNot: TEST },
      // React Router's generated route types (`./+types/…`, tsconfig's rootDirs) are not files of the tree
      to: { couldNotResolve: true, path: "^(\\.|~/)", pathNot: "^\\./\\+types/" },
    },
    {
      name: "no-cycle",
      severity: "error",
      comment: "an import cycle (`import type` does not count: it is gone at build time)",
      from: { pathNot: TEST },
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { pathNot: TEST, dependencyTypesNot: ["type-only"] },
      },
    },
  ],
  options: {
    // swc reads TypeScript and JSX as a compiler does and tells `import type` apart; dependency-cruiser's
    // own TypeScript support needs the compiler's JavaScript API, which TypeScript 7 no longer has
    // (it keeps `import type` as a "type-only" dependency as it is: tsPreCompilationDeps would ask for that compiler)
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|build|\\.react-router)/" },
    moduleSystems: ["es6", "cjs"],
    // `~/` is app/, as in vite.config.ts and tsconfig.json's paths
    webpackConfig: { fileName: path.join(__dirname, "scripts/layers-resolve.cjs") },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".tsx", ".mjs", ".js", ".jsx", ".cjs", ".mts", ".cts"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
