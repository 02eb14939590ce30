// The package from a fresh clone, where dist/ is not in the repository:
// `npm pack` there must build dist/ (the `prepare` script) and ship it, and
// the tarball must install into a new project and work from `import` and
// `require`. The clone is `git clone` of this checkout, so it holds what is
// committed (HEAD), not uncommitted changes; it borrows this checkout's
// node_modules instead of installing its own.
//
// Also: the command that docs/contributing.md gives for running this
// package's `msgpack` command inside the repository runs ours, not
// msgpack-lite's (whose `bin` has the same name).
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Packed, ROOT, cleanEnv, explain, installTarball, npmPack, readJson, run } from "./tools/harness.ts";

const NAME = "@resizable/msgpack";

describe("a fresh clone: npm pack builds dist/ and the tarball installs", () => {
  let work: string;
  let clone: string;
  let app: string;
  let packed: Packed;
  let distBeforePack: boolean;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "msgpack-clone-"));
    clone = join(work, "clone");
    const cloned = await run("git", ["clone", "--quiet", ROOT, clone]);
    if (cloned.code !== 0) throw new Error(explain("git clone", cloned));
    distBeforePack = existsSync(join(clone, "dist"));
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(clone, "node_modules"));
    packed = await npmPack(clone, work, false);
    app = join(work, "app");
    await installTarball(join(work, packed.filename), app);
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the clone has no dist/ until npm pack builds it", () => {
    expect(distBeforePack).toBe(false);
    expect(existsSync(join(clone, "dist/index.js"))).toBe(true);
  });

  test("the tarball ships dist/: both module formats, types, the command and the browser bundles", () => {
    const paths = packed.files.map((f) => f.path);
    for (const file of ["index.js", "index.cjs", "index.d.ts", "streams.js", "inspect.js", "bin/msgpack.js", "browser/msgpack.min.js", "browser/msgpack.iife.min.js"]) {
      expect(paths).toContain(`dist/${file}`);
    }
  });

  test("the build runs on `prepare`, the one script npm runs for a git dependency (not `prepack`)", () => {
    // npm runs prepack and prepare for `npm pack`, but only prepare when it
    // installs a package from git, so a build on prepack alone would pack
    // well and install from git without dist/.
    expect(readJson("package.json").scripts.prepare).toMatch(/\brun build$/);
  });

  test("the installed tarball imports (ESM) and requires (CJS) encode and decode", async () => {
    writeFileSync(
      join(app, "esm.mjs"),
      `import { encode, decode } from "${NAME}";\nconst v = decode(encode({ a: [1, "x", 2n ** 60n] }));\nif (v.a[2] !== 2n ** 60n || v.a[1] !== "x") throw new Error("round trip");\nconsole.log("ESM_OK");\n`,
    );
    writeFileSync(
      join(app, "cjs.cjs"),
      `const { encode, decode } = require("${NAME}");\nif (decode(encode([true, null]))[0] !== true) throw new Error("round trip");\nconsole.log("CJS_OK", require.resolve("${NAME}"));\n`,
    );
    const esm = await run(process.execPath, ["esm.mjs"], { cwd: app, env: cleanEnv() });
    expect(esm.code, explain("esm.mjs", esm)).toBe(0);
    expect(esm.stdout).toContain("ESM_OK");
    const cjs = await run(process.execPath, ["cjs.cjs"], { cwd: app, env: cleanEnv() });
    expect(cjs.code, explain("cjs.cjs", cjs)).toBe(0);
    expect(cjs.stdout).toMatch(/CJS_OK .*\/node_modules\/@resizable\/msgpack\/dist\/index\.cjs/);
  });

  test("each `npm run msgpack` command of docs/contributing.md runs this package's command", async () => {
    const doc = readFileSync(join(clone, "docs/contributing.md"), "utf8");
    const section = doc.slice(doc.indexOf("## The command line from a checkout"));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const commands = block
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter((line) => line.includes("npm run") && line.includes("msgpack"));
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const outputs: string[] = [];
    for (const command of commands) {
      const r = await run("sh", ["-c", command], { cwd: clone, env: cleanEnv({ NO_COLOR: "1" }) });
      expect(r.code, explain(command, r)).toBe(0);
      outputs.push(r.stdout);
    }
    expect(outputs[0]).toMatch(/^Usage: msgpack <command>/m); // msgpack-lite's starts "Usage: msgpack-lite"
    expect(outputs.join("\n")).not.toContain("msgpack-lite");
    expect(outputs[1]).toMatch(/fixmap \(1 entry\)[\s\S]*fixarray \(2 items\)/);
  });
});
