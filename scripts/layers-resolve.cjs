// How the layer check (.dependency-cruiser.cjs) resolves `~/`: app/, as vite.config.ts and
// tsconfig.json's paths do. Read through dependency-cruiser's webpackConfig option, its one way to
// take an alias without the TypeScript compiler's JavaScript API.
const path = require("node:path");

module.exports = { resolve: { alias: { "~": path.resolve(__dirname, "../app") } } };
