// The package from a fresh clone, where dist/ is not in the repository, by
// every route the README's Install section gives: npm, pnpm, yarn and bun
// from git (each builds dist/ with the `prepare` script, yarn with `prepack`)
// and from the tarball `npm pack` writes (which runs no script at all); an
// install with scripts turned off fails at import with a message that says
// how to fix it. The clone is `git clone` of this checkout, so it holds what
// is committed (HEAD), not uncommitted changes. The package managers come
// from test/package.json; they fetch esbuild and TypeScript from the npm
// registry (or npm's cache) for the builds.
//
// Also: the command that docs/contributing.md gives for running this
// package's `msgpack` command inside the repository runs ours, not
// msgpack-lite's (whose `bin` has the same name).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Packed, ROOT, cleanEnv, explain, npmCommand, readJson, requireBinary, run } from "./tools/harness.ts";
import { entryGuards } from "./tools/entry-guards.mjs";

const NAME = "@resizable/msgpack";
const TOOLS = join(ROOT, "test/node_modules/.bin");
const pnpm = () => requireBinary(join(TOOLS, "pnpm"), "pnpm is in test/package.json");
const yarn = () => requireBinary(join(TOOLS, "yarn"), "yarn (@yarnpkg/cli-dist) is in test/package.json");
const bun = () => requireBinary(join(TOOLS, "bun"), "bun is in test/package.json");
const deno = () => requireBinary(join(TOOLS, "deno"), "deno is in test/package.json");

/** A program that uses the installed package from `import` and `require` and prints what it saw. */
const CHECK = `
import { createRequire } from "node:module";
import { encode, decode } from "${NAME}";
const v = decode(encode({ a: [1, "x", 2n ** 60n] }));
if (v.a[2] !== 2n ** 60n || v.a[1] !== "x") throw new Error("ESM round trip");
const cjs = createRequire(import.meta.url)("${NAME}");
if (cjs.decode(cjs.encode([true, null]))[0] !== true) throw new Error("CJS round trip");
console.log("INSTALL_OK");
`;

/** Writes a new ESM project in `dir`, with `extra` merged into its package.json. */
function project(dir: string, extra: object = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, type: "module", ...extra }, null, 2));
  writeFileSync(join(dir, "check.mjs"), CHECK);
  return dir;
}

/** Runs check.mjs in `dir` with Node and expects it to work. */
async function expectWorks(dir: string, what: string): Promise<void> {
  const r = await run(process.execPath, ["check.mjs"], { cwd: dir, env: cleanEnv() });
  expect(r.code, explain(`${what}: node check.mjs`, r)).toBe(0);
  expect(r.stdout).toContain("INSTALL_OK");
}

/** The installed package's package.json. */
const installedManifest = (dir: string) => JSON.parse(readFileSync(join(dir, "node_modules", NAME, "package.json"), "utf8"));

/** An unused local TCP port. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

describe("installs from a fresh clone", () => {
  let work: string;
  let clone: string;
  let gitUrl: string;
  let tarball: string;
  let packed: Packed & { size: number; unpackedSize: number };
  let packOutput: string;
  let daemon: ChildProcess | undefined;
  const env = (extra: NodeJS.ProcessEnv = {}) => cleanEnv({ NO_COLOR: "1", ...extra });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "msgpack-install-"));
    clone = join(work, "clone");
    const cloned = await run("git", ["clone", "--quiet", ROOT, clone]);
    if (cloned.code !== 0) throw new Error(explain("git clone", cloned));
    gitUrl = `git+file://${clone}`;
    // npm pack in the clone builds (prepack) in a clone of its own, so that
    // the git installs below start from a clone without dist/.
    const packClone = join(work, "pack-clone");
    const again = await run("git", ["clone", "--quiet", clone, packClone]);
    if (again.code !== 0) throw new Error(explain("git clone", again));
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(packClone, "node_modules"));
    const [npm, npmArgs] = npmCommand();
    const pack = await run(npm, [...npmArgs, "pack", "--json", "--pack-destination", work], { cwd: packClone, env: env(), timeout: 300_000 });
    if (pack.code !== 0) throw new Error(explain("npm pack in a fresh clone", pack));
    packOutput = pack.stdout + pack.stderr;
    packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0];
    tarball = join(work, packed.filename);
  }, 360_000);

  afterAll(() => {
    daemon?.kill();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the repository's package.json lists only the build's tools: a git install fetches esbuild and TypeScript", () => {
    expect(Object.keys(readJson("package.json").devDependencies).sort()).toEqual(["esbuild", "typescript"]);
    expect(readJson("package.json").dependencies ?? {}).toEqual({});
  });

  test("npm pack builds dist/ and packs a package.json without scripts or devDependencies, then restores the clone's", async () => {
    expect(packOutput).toMatch(/fix-dts: \d+ declaration files checked/); // the build ran
    const paths = packed.files.map((f) => f.path);
    for (const file of ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/bin/msgpack.js", "entries/index.js", "entries/index.cjs", "package.json"]) {
      expect(paths).toContain(file);
    }
    const tar = await run("tar", ["-xzOf", tarball, "package/package.json"]);
    const manifest = JSON.parse(tar.stdout);
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.exports["."]).toEqual(readJson("package.json").exports["."]);
    const status = await run("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: join(work, "pack-clone") });
    expect(status.stdout, "npm pack left the clone's files as they were").toBe("");
    expect(existsSync(join(work, "pack-clone/.tmp/package.json")), "and no copy of package.json").toBe(false);
  });

  // The installs below run at once: most of their time is waiting (on the registry, on the
  // package managers' disk work), and each has a project of its own. The deno test after
  // them uses the npm tarball install.
  test.concurrent("npm: the tarball installs with no install script and no notice about one", async () => {
    const app = project(join(work, "npm-tarball"));
    const [npm, npmArgs] = npmCommand();
    const r = await run(npm, [...npmArgs, "install", "--no-audit", "--no-fund", tarball], { cwd: app, env: env() });
    expect(r.code, explain("npm install <tarball>", r)).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/install-scripts|allowScripts/);
    expect(installedManifest(app).scripts).toBeUndefined();
    await expectWorks(app, "npm tarball");
  }, 120_000);

  test.concurrent("npm: `npm install git+<url>` builds dist/ and installs the package", async () => {
    const app = project(join(work, "npm-git"));
    const [npm, npmArgs] = npmCommand();
    const r = await run(npm, [...npmArgs, "install", "--no-audit", "--no-fund", gitUrl], { cwd: app, env: env(), timeout: 400_000 });
    expect(r.code, explain("npm install git+file://...", r)).toBe(0);
    expect(existsSync(join(app, "node_modules", NAME, "dist/index.js"))).toBe(true);
    await expectWorks(app, "npm git");
  }, 420_000);

  test.concurrent("npm --ignore-scripts from git: installs without dist/, and import and require say so and how to fix it", async () => {
    const app = project(join(work, "npm-ignore-scripts"));
    const [npm, npmArgs] = npmCommand();
    const r = await run(npm, [...npmArgs, "install", "--ignore-scripts", "--no-audit", "--no-fund", gitUrl], { cwd: app, env: env(), timeout: 400_000 });
    expect(r.code, explain("npm install --ignore-scripts git+file://...", r)).toBe(0);
    expect(existsSync(join(app, "node_modules", NAME, "dist"))).toBe(false);
    writeFileSync(join(app, "esm.mjs"), `import "${NAME}";`);
    writeFileSync(join(app, "cjs.cjs"), `require("${NAME}/streams");`);
    for (const file of ["esm.mjs", "cjs.cjs"]) {
      const used = await run(process.execPath, [file], { cwd: app, env: env() });
      expect(used.code).toBe(1);
      expect(used.stderr).toMatch(/Error: @resizable\/msgpack is installed without its build \(dist\/ is missing\)/);
      expect(used.stderr).toMatch(/--ignore-scripts/);
      expect(used.stderr).toContain("npm install git+https://github.com/resizable/msgpack.git");
    }
  }, 420_000);

  test.concurrent("pnpm: from git with the package in allowBuilds (pnpm-workspace.yaml), and from the tarball", async () => {
    const git = project(join(work, "pnpm-git"));
    writeFileSync(join(git, "pnpm-workspace.yaml"), `allowBuilds:\n  "${NAME}@${gitUrl}": true\n`);
    const r = await run(pnpm(), ["add", gitUrl], { cwd: git, env: env({ CI: "1" }), timeout: 400_000 });
    expect(r.code, explain("pnpm add git+file://...", r)).toBe(0);
    await expectWorks(git, "pnpm git");

    const refused = project(join(work, "pnpm-git-refused"));
    const no = await run(pnpm(), ["add", gitUrl], { cwd: refused, env: env({ CI: "1" }), timeout: 400_000 });
    expect(no.code, "without allowBuilds pnpm refuses to build a git dependency").not.toBe(0);
    expect(no.stdout + no.stderr).toMatch(/allowBuilds/);

    const tgz = project(join(work, "pnpm-tarball"));
    const t = await run(pnpm(), ["add", tarball], { cwd: tgz, env: env({ CI: "1" }), timeout: 200_000 });
    expect(t.code, explain("pnpm add <tarball>", t)).toBe(0);
    await expectWorks(tgz, "pnpm tarball");
  }, 900_000);

  test.concurrent("yarn: from git with the repository in approvedGitRepositories (.yarnrc.yml), and from the tarball", async () => {
    // Yarn takes git over git://, https:// or ssh://, not file://: serve the clone with git daemon.
    const port = await freePort();
    daemon = spawn("git", ["daemon", "--export-all", `--base-path=${work}`, `--port=${port}`, "--listen=127.0.0.1", "--reuseaddr", work], { stdio: "ignore" });
    const url = `git://127.0.0.1:${port}/clone`;
    let listed = { code: 1 as number | null, stdout: "", stderr: "" };
    for (let i = 0; i < 50 && listed.code !== 0; i++) {
      listed = await run("git", ["ls-remote", url]);
      if (listed.code !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed.code, explain("git ls-remote of the git daemon", listed)).toBe(0);
    const yarnEnv = env({ YARN_ENABLE_TELEMETRY: "0", YARN_ENABLE_GLOBAL_CACHE: "0" });

    const git = project(join(work, "yarn-git"));
    writeFileSync(join(git, ".yarnrc.yml"), `approvedGitRepositories:\n  - "${url}"\nnodeLinker: node-modules\n`);
    const r = await run(yarn(), ["add", `${NAME}@${url}`], { cwd: git, env: yarnEnv, timeout: 400_000 });
    expect(r.code, explain("yarn add <git url>", r)).toBe(0);
    expect(installedManifest(git).scripts, "yarn packs the git dependency with prepack: no scripts").toBeUndefined();
    await expectWorks(git, "yarn git");

    const tgz = project(join(work, "yarn-tarball"));
    writeFileSync(join(tgz, ".yarnrc.yml"), "nodeLinker: node-modules\n");
    const t = await run(yarn(), ["add", `${NAME}@file:${tarball}`], { cwd: tgz, env: yarnEnv, timeout: 200_000 });
    expect(t.code, explain("yarn add <tarball>", t)).toBe(0);
    await expectWorks(tgz, "yarn tarball");
  }, 900_000);

  test.concurrent("bun: from git with the package in trustedDependencies, and from the tarball", async () => {
    const git = project(join(work, "bun-git"), { trustedDependencies: [NAME] });
    const r = await run(bun(), ["add", `${NAME}@${gitUrl}`], { cwd: git, env: env(), timeout: 400_000 });
    expect(r.code, explain("bun add git+file://...", r)).toBe(0);
    await expectWorks(git, "bun git");
    const b = await run(bun(), ["check.mjs"], { cwd: git, env: env() });
    expect(b.stdout, explain("bun check.mjs", b)).toContain("INSTALL_OK");

    const tgz = project(join(work, "bun-tarball"));
    const t = await run(bun(), ["add", tarball], { cwd: tgz, env: env(), timeout: 200_000 });
    expect(t.code, explain("bun add <tarball>", t)).toBe(0);
    await expectWorks(tgz, "bun tarball");
  }, 900_000);

  test("deno: a project with the package in node_modules (here npm's tarball install) imports it", async () => {
    const app = join(work, "npm-tarball");
    expect(existsSync(join(app, "node_modules", NAME)), "the npm tarball test installed it").toBe(true);
    const r = await run(deno(), ["run", "--allow-read", "--allow-env", "check.mjs"], { cwd: app, env: env({ DENO_NO_UPDATE_CHECK: "1" }) });
    expect(r.code, explain("deno run check.mjs", r)).toBe(0);
    expect(r.stdout).toContain("INSTALL_OK");
  }, 120_000);
});

test("entries/ is what test/tools/entry-guards.mjs writes from the built dist/", async () => {
  const expected = await entryGuards();
  const list = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
  expect(list("entries").sort()).toEqual([...expected.keys()].sort());
  for (const [path, text] of expected) expect(readFileSync(join(ROOT, path), "utf8"), `${path}: run node test/tools/entry-guards.mjs`).toBe(text);
});

test("each `npm run msgpack` command of docs/contributing.md runs this package's command", async () => {
  const doc = readFileSync(join(ROOT, "docs/contributing.md"), "utf8");
  const section = doc.slice(doc.indexOf("## The command line from a checkout"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const commands = block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.includes("npm run") && line.includes("msgpack"));
  expect(commands.length).toBeGreaterThanOrEqual(2);
  const outputs: string[] = [];
  for (const command of commands) {
    const r = await run("sh", ["-c", command], { cwd: ROOT, env: cleanEnv({ NO_COLOR: "1" }) });
    expect(r.code, explain(command, r)).toBe(0);
    outputs.push(r.stdout);
  }
  expect(outputs[0]).toMatch(/^Usage: msgpack <command>/m); // msgpack-lite's starts "Usage: msgpack-lite"
  expect(outputs.join("\n")).not.toContain("msgpack-lite");
  expect(outputs[1]).toMatch(/fixmap \(1 entry\)[\s\S]*fixarray \(2 items\)/);
});
