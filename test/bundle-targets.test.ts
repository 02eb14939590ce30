// The package as a bundler that targets an older language sees it: bundled by esbuild at
// es2018 (Vite 6's default target, Babel and React Native lower as much), nothing in it may
// need a helper that rewrites class syntax (`#` fields into WeakMap lookups, class fields
// into `__publicField` calls, `static {}` blocks into functions): those run 2-8x slower.
// And each public class is named as it is exported, in every build a user may run.

import { readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { createContext, runInContext } from "node:vm";
import { build, transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, entryName, entrySubpaths, ROOT } from "./tools/harness.ts";

/**
 * The helpers esbuild writes when it lowers class syntax: private fields,
 * methods and accessors, `#x in o`, class fields, static blocks.
 */
const LOWERING = /\b__(private\w*|publicField|static\w*|accessCheck|defNormalProp)\b/g;

/** The lowering helpers `code` calls, each with how many times it is named. */
function helpersIn(code: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [name] of code.matchAll(LOWERING)) found[name] = (found[name] ?? 0) + 1;
  return found;
}

/** `entry` bundled by esbuild at `target`, as one ESM file's text. */
async function bundle(entry: string, target: string, minify = false): Promise<string> {
  const out = await build({ entryPoints: [entry], bundle: true, write: false, format: "esm", platform: "neutral", target, minify, logLevel: "silent" });
  return out.outputFiles[0]!.text;
}

/** Every .ts file under `dir`, as paths from the repository root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f))
    .sort();
}

/** The tsconfig's compiler options, as esbuild reads them (`useDefineForClassFields` among them). */
const TSCONFIG = readFileSync(join(ROOT, "tsconfig.json"), "utf8");

/** Each file of src/ (the command line aside) that esbuild at es2018 lowers with helpers, with the helpers. */
async function loweringSources(): Promise<Record<string, string[]>> {
  const lowering: Record<string, string[]> = {};
  for (const file of sources("src")) {
    if (file.startsWith(join("src", "cli", ""))) continue; // built for Node 18 on its own, never bundled by users
    const { code } = await transform(readFileSync(join(ROOT, file), "utf8"), { loader: "ts", target: "es2018", tsconfigRaw: TSCONFIG, sourcefile: file });
    const helpers = Object.keys(helpersIn(code));
    if (helpers.length > 0) lowering[file] = helpers.sort();
  }
  return lowering;
}

/** A readable list of the sources that lower, for a failure message. */
const listed = (lowering: Record<string, string[]>): string =>
  Object.entries(lowering)
    .map(([file, helpers]) => `  ${file}: ${helpers.join(", ")}`)
    .join("\n");

describe("nothing in the package needs a lowering helper at es2018", () => {
  beforeAll(() => assertBuilt());

  test("the check sees each kind of lowering: a # field, a # method, a class field, a static block", async () => {
    const { code } = await transform(
      "class A { #x = 1; y = 2; static { A.z = 3; } #m() { return this.#x; } get() { return this.#m() + this.y; } } export { A };",
      { loader: "ts", target: "es2018", tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } } },
    );
    const found = Object.keys(helpersIn(code));
    expect(found).toEqual(expect.arrayContaining(["__privateAdd", "__privateGet", "__privateMethod", "__publicField"]));
    // typed declarations without an initializer, assigned in the constructor, emit nothing
    const plain = await transform("class B { private x: number; constructor() { this.x = 1; } } export { B };", { loader: "ts", target: "es2018", tsconfigRaw: TSCONFIG });
    expect(helpersIn(plain.code)).toEqual({});
  });

  test.each(entrySubpaths().map(entryName))("dist/%s.js bundled at es2018 calls no lowering helper", async (name) => {
    const found = helpersIn(await bundle(join(ROOT, `dist/${name}.js`), "es2018"));
    expect(found, `helpers in dist/${name}.js at es2018: ${JSON.stringify(found)} (the sources that lower are listed by the next test)`).toEqual({});
  });

  test("no file of src/ lowers at es2018 (which one does, if a bundle above calls a helper)", async () => {
    const lowering = await loweringSources();
    if (Object.keys(lowering).length > 0) console.log(`sources that lower at es2018:\n${listed(lowering)}`);
    expect(lowering, `sources that lower at es2018:\n${listed(lowering)}`).toEqual({});
  });
});

/** The exports of a module namespace or object that are classes: functions whose export name is capitalised. */
function classesOf(exports: Record<string, unknown>): [string, { name: string }][] {
  return Object.entries(exports).filter((e): e is [string, { name: string }] => typeof e[1] === "function" && /^[A-Z]/.test(e[0]));
}

/** Each exported class whose `name` is not its export name, as "export: name". */
function misnamed(exports: Record<string, unknown>): string[] {
  return classesOf(exports)
    .filter(([exported, cls]) => cls.name !== exported)
    .map(([exported, cls]) => `${exported}: ${JSON.stringify(cls.name)}`);
}

/** The classes every build of the main entry, with the streams, must export. */
const PUBLIC_CLASSES = ["DecodeError", "Decoder", "DecoderStream", "EncodeError", "Encoder", "EncoderStream", "ExtData", "ExtensionCodec"];

describe("each public class is named as it is exported, in every build", () => {
  let dir = "";
  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), "bundle-targets-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The exports of the main entry and the streams entry from one build, merged. */
  const together = (...modules: Record<string, unknown>[]): Record<string, unknown> => Object.assign({}, ...modules);

  test("the check sees a class named otherwise than its export", () => {
    class Inner {}
    expect(misnamed({ Outer: Inner, Inner, helper: () => 0 })).toEqual(['Outer: "Inner"']);
  });

  test.each(entrySubpaths().map(entryName))("dist/%s, ESM and CJS", async (name) => {
    const esm = (await import(pathToFileURL(join(ROOT, `dist/${name}.js`)).href)) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)(join(ROOT, `dist/${name}.cjs`)) as Record<string, unknown>;
    expect(misnamed(esm), `dist/${name}.js`).toEqual([]);
    expect(misnamed(cjs), `dist/${name}.cjs`).toEqual([]);
  });

  test("the ESM and CJS builds of the main entry and the streams export the public classes", async () => {
    const esm = together(await import(pathToFileURL(join(ROOT, "dist/index.js")).href), await import(pathToFileURL(join(ROOT, "dist/streams.js")).href));
    const require = createRequire(import.meta.url);
    const cjs = together(require(join(ROOT, "dist/index.cjs")), require(join(ROOT, "dist/streams.cjs")));
    expect(classesOf(esm).map(([n]) => n).sort()).toEqual(PUBLIC_CLASSES);
    expect(classesOf(cjs).map(([n]) => n).sort()).toEqual(PUBLIC_CLASSES);
  });

  test("the browser bundles (minified ESM and IIFE)", async () => {
    for (const file of ["msgpack.min.js", "msgpack-streams.min.js"]) {
      const exports = (await import(pathToFileURL(join(ROOT, "dist/browser", file)).href)) as Record<string, unknown>;
      expect(classesOf(exports).length, file).toBeGreaterThanOrEqual(6);
      expect(misnamed(exports), file).toEqual([]);
    }
    const context = createContext({ TextEncoder, TextDecoder });
    runInContext(readFileSync(join(ROOT, "dist/browser/msgpack.iife.min.js"), "utf8"), context);
    expect(misnamed(context.ResizableMsgpack as Record<string, unknown>), "msgpack.iife.min.js").toEqual([]);
  });

  test.each([
    ["es2020", false],
    ["es2020", true],
    ["es2018", true],
  ] as const)("the main entry and the streams bundled from dist/ at %s (minified: %s), errors as thrown included", async (target, minify) => {
    const entry = join(dir, `entry-${target}-${minify}.mjs`);
    writeFileSync(entry, `export * from ${JSON.stringify(join(ROOT, "dist/index.js"))};\nexport * from ${JSON.stringify(join(ROOT, "dist/streams.js"))};\n`);
    const file = join(dir, `bundle-${target}-${minify}.mjs`);
    writeFileSync(file, await bundle(entry, target, minify));
    const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown> & { decode(b: Uint8Array): unknown; encode(v: unknown): Uint8Array };
    expect(classesOf(exports).map(([n]) => n).sort(), relative(ROOT, file)).toEqual(PUBLIC_CLASSES);
    expect(misnamed(exports)).toEqual([]);
    const thrown = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return (e as Error).constructor.name;
      }
      return "nothing";
    };
    expect(thrown(() => exports.decode(Uint8Array.of(0xc1)))).toBe("DecodeError");
    expect(thrown(() => exports.encode(() => 0))).toBe("EncodeError");
  });
});
