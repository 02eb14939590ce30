// The `prepare` script: builds dist/ (`npm run build`) unless it is newer
// than everything the build reads. npm runs `prepare` twice for a git
// install (once in its clone's own `npm install`, once before packing it),
// so the second run returns at once; `npm ci` in a fresh clone builds.
// `npm run build` always builds.
//
// Bun installs a git dependency without its devDependencies and runs its
// `prepare` only once trusted (`bun pm trust`); then the two build tools
// are installed here first, and removed after the build.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const INPUTS = ["src", "package.json", "tsconfig.json", "test/tools/cjs-from-esm.mjs", "test/tools/fix-dts.mjs", "test/tools/playground.mjs"];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const marker = join(ROOT, "dist/ts5.0/index.d.ts"); // the build's last step writes dist/ts5.0/
const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
if (built === 0 || Math.max(...INPUTS.map((p) => newest(join(ROOT, p)))) > built) {
  const cli = process.env.npm_execpath;
  const [file, args] = cli && /npm-cli\.c?js$/.test(cli) ? [process.execPath, [cli]] : ["npm", []];
  const tools = join(ROOT, "node_modules");
  const missing = !existsSync(join(tools, "esbuild")) || !existsSync(join(tools, "typescript"));
  if (missing) {
    const { esbuild, typescript } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies;
    const flags = ["--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund"];
    execFileSync(file, [...args, "install", ...flags, `esbuild@${esbuild}`, `typescript@${typescript}`], { stdio: "inherit", cwd: ROOT });
  }
  execFileSync(file, [...args, "run", "build"], { stdio: "inherit", cwd: ROOT });
  if (missing) rmSync(tools, { recursive: true, force: true });
}
