// Runs before `npm start`, `npm run serve` and `npm run dev`: one clear line and a non-zero exit on a
// Node older than package.json's engines range, instead of an obscure crash later. Kept to syntax
// that every Node version parses.
var required = require("../package.json").engines.node; // ">=22.22"
var want = required
  .replace(/[^0-9.]/g, "")
  .split(".")
  .map(Number);
var have = process.versions.node.split(".").map(Number);
var ok = have[0] > want[0] || (have[0] === want[0] && (have[1] || 0) >= (want[1] || 0));
if (!ok) {
  console.error(
    "Sweet Moments needs Node " +
      required +
      " (the current LTS line, Node 24, is what it is tested on); this is Node " +
      process.versions.node +
      '. See README, "Run it".',
  );
  process.exit(1);
}
