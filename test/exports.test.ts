// package.json (npm) and deno.json (JSR) describe the same package: same name,
// version and export subpaths, each subpath backed by the same src/ module.
// JSR rejects slow types (exports without explicit types), so `deno publish
// --dry-run` runs here; it needs no network. Node-style fields are checked
// too: `types` first in every condition, main/module/types match ".".
// Last, src/ and the tests themselves must type-check (test/tsconfig.json).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT, RUNTIMES, entryName, explain, readJson, requireBinary, run } from "./tools/harness.ts";

const pkg = readJson("package.json");
const deno = readJson("deno.json");

describe("package.json scripts", () => {
  test("run Node and npm through the Node that started npm, never node_modules/.bin/node (the node22 devDependency)", () => {
    // npm puts node_modules/.bin first on PATH; a bare `node` or `npm run` in a script would run Node 22 there
    for (const [name, script] of Object.entries<string>(pkg.scripts)) {
      const bare = script.split("&&").map((s) => s.trim()).filter((s) => /^(node|npm|npx)\s/.test(s));
      expect(bare, `script "${name}"`).toEqual([]);
    }
  });
});

describe("package.json and deno.json agree", () => {
  test("name and version", () => {
    expect(deno.name).toBe(pkg.name);
    expect(deno.version).toBe(pkg.version);
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  test("export subpaths, each pointing at src/<entry>.ts", () => {
    const npmKeys = Object.keys(pkg.exports).filter((k) => k !== "./package.json").sort();
    const denoKeys = Object.keys(deno.exports).sort();
    expect(denoKeys).toEqual(npmKeys);
    for (const key of denoKeys) {
      expect(deno.exports[key]).toBe(`./src/${entryName(key)}.ts`);
      expect(existsSync(join(ROOT, deno.exports[key])), `${deno.exports[key]} exists`).toBe(true);
    }
  });

  test("every npm condition lists its types first (TypeScript < 5.7: dist/ts5.0/) and names dist/<entry>.{js,cjs,d.ts,d.cts}", () => {
    for (const [key, target] of Object.entries<any>(pkg.exports)) {
      if (key === "./package.json") {
        expect(target).toBe("./package.json");
        continue;
      }
      const name = entryName(key);
      expect(Object.keys(target)).toEqual(["import", "require"]);
      expect(target.import).toEqual({ "types@<5.7": `./dist/ts5.0/${name}.d.ts`, types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` });
      expect(target.require).toEqual({ "types@<5.7": `./dist/ts5.0/${name}.d.cts`, types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` });
      // TypeScript takes the first condition that matches: the versioned one must come first.
      expect(Object.keys(target.import)).toEqual(["types@<5.7", "types", "default"]);
      expect(Object.keys(target.require)).toEqual(["types@<5.7", "types", "default"]);
    }
    expect(pkg.main).toBe(pkg.exports["."].require.default);
    expect(pkg.module).toBe(pkg.exports["."].import.default);
    expect(pkg.types).toBe(pkg.exports["."].import.types);
  });

  test("typesVersions gives moduleResolution \"node\" the same declarations: dist/ts5.0/ before 5.7, every subpath after", () => {
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== "./package.json" && k !== ".").map((k) => k.slice(2));
    expect(pkg.typesVersions).toEqual({
      "<5.7": { "dist/*": ["dist/ts5.0/*"], "*": ["dist/ts5.0/*"] },
      "*": Object.fromEntries(subpaths.map((name) => [name, [`dist/${name}.d.ts`]])),
    });
    expect(Object.keys(pkg.typesVersions)[0]).toBe("<5.7");
  });

  test("npm package metadata", () => {
    expect(pkg.type).toBe("module");
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.files).toEqual(["dist", "src"]);
    expect(pkg.engines?.node).toBe(">=18");
  });

  test("deno.json publishes src/ (no tests) and lints with the jsr rules", () => {
    expect(deno.publish.include).toContain("src/**/*.ts");
    expect(deno.publish.include.some((p: string) => p.startsWith("test"))).toBe(false);
    expect(deno.lint.rules.tags).toEqual(expect.arrayContaining(["recommended", "jsr"]));
    // Each task runs: test/deno-tasks.test.ts.
    expect(Object.keys(deno.tasks).sort()).toEqual(["bench", "smoke", "test"]);
  });
});

describe("JSR readiness (deno)", () => {
  const denoBin = () => requireBinary(RUNTIMES.deno, "run `npm ci` (deno is a devDependency)");
  const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };

  test("deno publish --dry-run passes (type check + slow types), offline", async () => {
    const r = await run(denoBin(), ["publish", "--dry-run", "--allow-dirty"], { env, timeout: 240_000 });
    expect(r.code, explain("deno publish --dry-run --allow-dirty", r)).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/Success Dry run complete/);
    // It published the src/ entry points and no tests.
    for (const target of Object.values<string>(deno.exports)) expect(out).toContain(target.slice(2));
    expect(out).not.toMatch(/\/test\//);
  });
});

describe("type checking", () => {
  test("src/ and the tests type-check (tsc -p test/tsconfig.json)", async () => {
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const r = await run(process.execPath, [tsc, "-p", "test/tsconfig.json", "--noEmit"], { timeout: 240_000 });
    expect(r.code, explain("tsc -p test/tsconfig.json --noEmit", r)).toBe(0);
  });
});
