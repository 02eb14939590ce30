// The package.json that `npm pack` and `npm publish` put in the tarball has no
// "scripts" and no "devDependencies": a user's install then has no script to
// run or approve (npm lists a `prepare` in a tarball as an install script).
// The repository's package.json keeps `prepare`, which builds dist/ for a git
// install and after `npm ci`.
//
//   node test/tools/packed-manifest.mjs strip     (prepack, after the build)
//   node test/tools/packed-manifest.mjs restore   (postpack)
//
// strip keeps the original in .tmp/package.json; restore moves it back. A
// strip that finds a copy left by a pack that died first restores it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MANIFEST = join(ROOT, "package.json");
const KEPT = join(ROOT, ".tmp/package.json");

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

const command = process.argv[2];
if (command === "restore") {
  restore();
} else if (command === "strip") {
  restore();
  const text = readFileSync(MANIFEST, "utf8");
  const { scripts, devDependencies, ...packed } = JSON.parse(text);
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  writeFileSync(KEPT, text);
  writeFileSync(MANIFEST, `${JSON.stringify(packed, null, 2)}\n`);
} else {
  console.error("Usage: node test/tools/packed-manifest.mjs strip|restore");
  process.exit(2);
}
