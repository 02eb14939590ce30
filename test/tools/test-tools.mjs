// Installs what the tests and benchmarks need beyond the build (test/package.json:
// vitest, Bun, Deno, Node 18/22/24, Playwright, TypeScript 5.0, the compared
// libraries) into test/node_modules, with `npm ci --prefix test`, when they are
// missing or differ from test/package-lock.json; returns at once otherwise.
// `npm test`, `npm run fuzz` and the benchmark scripts that need them run it
// first, so `npm ci` (the build's tools only) then `npm test` stay the two
// commands. The root package.json lists esbuild and TypeScript only: a git
// install of the package builds dist/ with them and downloads nothing else.
//
// Also links the package into test/node_modules under its own name, and
// benchmarks/node_modules to test/node_modules (see LINKS below).
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TEST = join(ROOT, "test");

/** The reason test/node_modules must be (re)installed, or "" when it matches test/package-lock.json. */
function staleness() {
  const installedPath = join(TEST, "node_modules/.package-lock.json");
  if (!existsSync(installedPath)) return "test/node_modules is not installed";
  const wanted = JSON.parse(readFileSync(join(TEST, "package-lock.json"), "utf8")).packages;
  const installed = JSON.parse(readFileSync(installedPath, "utf8")).packages;
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === "") continue;
    const have = installed[path];
    if (!have ? !entry.optional : have.version !== entry.version) return `test/${path} is ${have ? have.version : "missing"}, test/package-lock.json wants ${entry.version}`;
  }
  return "";
}

const reason = staleness();
if (reason) {
  console.error(`${reason}: npm ci --prefix test`);
  const cli = process.env.npm_execpath;
  const [file, args] = cli && /\.c?js$/.test(cli) ? [process.execPath, [cli]] : ["npm", []];
  execFileSync(file, [...args, "ci", "--prefix", TEST, "--no-audit", "--no-fund"], { stdio: "inherit", cwd: ROOT });
}

/** Symbolic links this script keeps: path -> target, relative to the link's folder. */
const LINKS = [
  // The test files import the package by its name ("@resizable/msgpack/records"):
  // test/package.json makes test/ a package of its own, so the name no longer
  // refers to the root package by itself.
  ["test/node_modules/@resizable/msgpack", "../../.."],
  // The benchmark scripts import the compared libraries by name.
  ["benchmarks/node_modules", "../test/node_modules"],
];
for (const [path, target] of LINKS) {
  const link = join(ROOT, path);
  let exists = false;
  try {
    lstatSync(link);
    exists = true;
  } catch {}
  if (exists) continue;
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(target, link, "dir");
}
