// Runs before `npm start`, `npm run serve` and `npm run dev`, after check-node.cjs: when the
// installed packages are not the ones package.json pins (a `git pull` without `npm install`), one
// line saying to run `npm install`, instead of a build or start failing on a missing module.
// package.json pins exact versions, so "the same version" is a string compare. Kept to syntax that
// every Node version parses.
var fs = require("node:fs");
var path = require("node:path");

var root = path.join(__dirname, "..");
var pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
var wanted = pkg.dependencies || {};
var wrong = [];
Object.keys(wanted).forEach((name) => {
  var version = wanted[name];
  if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) return; // not a pin: nothing to compare
  var installed = null;
  try {
    installed = JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    // not installed
  }
  if (installed !== version)
    wrong.push(name + " " + version + " (" + (installed ? installed + " installed" : "missing") + ")");
});
if (wrong.length) {
  console.error(
    "The installed packages are not the ones package.json names: " +
      wrong.slice(0, 3).join(", ") +
      (wrong.length > 3 ? " and " + (wrong.length - 3) + " more" : "") +
      '. Run npm install, then start again (README, "Upgrading").',
  );
  process.exit(1);
}
