// package.json (npm) and deno.json (JSR) describe the same package: same name,
// version and export subpaths, each subpath backed by the same src/ module.
// JSR rejects slow types (exports without explicit types), so `deno publish
// --dry-run` runs here; it needs no network. Node-style fields are checked
// too: `types` first in every condition, main/module/types match ".".
// Then src/ and the tests themselves must type-check (test/tsconfig.json).
// Last, the public surface of each entry is pinned, from the built dist/:
// the runtime names (ESM, CJS, the browser bundles and their IIFE globals),
// the type names other than the option types, and the public members of
// the exported classes, so an internal that leaks out (a new export, a
// class field the library itself needs) fails here.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createContext, runInContext } from "node:vm";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";
import { ROOT, RUNTIMES, assertBuilt, entryName, entrySubpaths, explain, readJson, requireBinary, run } from "./tools/harness.ts";

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

  test("every npm condition lists its types first (TypeScript < 5.7: dist/ts5.0/) and names dist/<entry>.{js,d.ts,d.cts} or entries/<entry>.{js,cjs}", () => {
    for (const [key, target] of Object.entries<any>(pkg.exports)) {
      if (key === "./package.json") {
        expect(target).toBe("./package.json");
        continue;
      }
      const name = entryName(key);
      expect(Object.keys(target)).toEqual(["import", "require"]);
      // Bundlers ("module") load dist/ directly; Node, Bun and Deno ("node") and every `require` load
      // entries/, which loads dist/ or says that the build is missing (test/install.test.ts).
      expect(target.import).toEqual({ "types@<5.7": `./dist/ts5.0/${name}.d.ts`, types: `./dist/${name}.d.ts`, module: `./dist/${name}.js`, node: `./entries/${name}.js`, default: `./dist/${name}.js` });
      expect(target.require).toEqual({ "types@<5.7": `./dist/ts5.0/${name}.d.cts`, types: `./dist/${name}.d.cts`, default: `./entries/${name}.cjs` });
      // TypeScript takes the first condition that matches: the versioned one must come first.
      expect(Object.keys(target.import)).toEqual(["types@<5.7", "types", "module", "node", "default"]);
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
    // only the records, schema and compatibility entries have an effect (installing records, the
    // schema checks or the drop-in behaviours), which a bundler must keep
    expect(pkg.sideEffects).toEqual([
      "./dist/records.js",
      "./dist/records.cjs",
      "./dist/schema.js",
      "./dist/schema.cjs",
      "./dist/compat/*.js",
      "./dist/compat/*.cjs",
      "./entries/records.js",
      "./entries/records.cjs",
      "./entries/schema.js",
      "./entries/schema.cjs",
      "./entries/compat/*.js",
      "./entries/compat/*.cjs",
      "./src/records.ts",
      "./src/schema.ts",
      "./src/compat/*.ts",
    ]);
    expect(pkg.files).toEqual(["dist", "docs", "entries"]);
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
  const denoBin = () => requireBinary(RUNTIMES.deno, "deno is in test/package.json");
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

// ---- the public surface of each entry --------------------------------------

/** The stream decoders, which the main entry has as @msgpack/msgpack does, and its core (the small browser bundle) leaves out. */
const STREAM_DECODERS = ["decodeArrayStream", "decodeAsync", "decodeMultiStream"];

/** The values each entry exports (functions, classes, constants), sorted. */
const RUNTIME_NAMES: Record<string, string[]> = {
  ".": [
    "DecodeError",
    "DecodeErrorCode",
    "Decoder",
    "EXT_TIMESTAMP",
    "EncodeError",
    "EncodeErrorCode",
    "Encoder",
    "ExtData",
    "ExtensionCodec",
    "decode",
    "decodeArrayStream",
    "decodeAsync",
    "decodeMulti",
    "decodeMultiStream",
    "decodeTimestampExtension",
    "decodeTimestampToTimeSpec",
    "encode",
    "encodeDateToTimeSpec",
    "encodeTimeSpecToTimestamp",
    "encodeTimestampExtension",
    "encodedSize",
    "estimateSize",
  ],
  "./streams": [
    "DecoderStream",
    "EncoderStream",
    "createStreamStats",
    "decodeArrayStream",
    "decodeAsync",
    "decodeMultiStream",
    "encodeIterable",
    "encodeToReadableStream",
    "encodeToStream",
  ],
  "./inspect": ["fromJson", "inspect", "nodeValue", "renderText", "toJson"],
};
// the records entry installs records and exports exactly the main entry's API
RUNTIME_NAMES["./records"] = RUNTIME_NAMES["."]!;
// so does the schema entry, which installs the schema checks
RUNTIME_NAMES["./schema"] = RUNTIME_NAMES["."]!;
// @msgpack/msgpack's programs get the main entry's API; notepack.io's get its two functions (and its default export)
RUNTIME_NAMES["./compat/msgpack"] = RUNTIME_NAMES["."]!;
RUNTIME_NAMES["./compat/notepack"] = ["decode", "default", "encode"];

/**
 * The types each entry exports besides its values, sorted, leaving out the
 * option types (names ending in "Options"): those are checked apart, as
 * types with no value of the same name.
 */
const TYPE_NAMES: Record<string, string[]> = {
  ".": [
    "DecodeInput",
    "Extension",
    "ExtensionCodecType",
    "ExtensionDecoderType",
    "ExtensionEncoderType",
    "Int64Mode",
    "SchemaIssue",
    "StandardSchemaV1",
    "TimeSpec",
  ],
  // ByteChunk and ReadableStreamLike are in the stream decoders' signatures, StreamStats in the
  // `stats` option and DecoderStream#stats
  "./streams": ["ByteChunk", "ReadableStreamLike", "StreamStats"],
  // the tree of inspect(); InspectOptions and RenderOptions are option types
  "./inspect": ["InspectNode", "InspectResult", "InspectType"],
};
TYPE_NAMES["./records"] = TYPE_NAMES["."]!;
TYPE_NAMES["./schema"] = TYPE_NAMES["."]!;
TYPE_NAMES["./compat/msgpack"] = TYPE_NAMES["."]!;
TYPE_NAMES["./compat/notepack"] = [];

/** The public members of the exported classes, instance then static, as their declarations give them. */
const CLASS_MEMBERS: Record<string, { instance: string[]; static: string[] }> = {
  DecodeError: { instance: ["cause", "code", "issues", "message", "name", "needed", "offset", "stack"], static: [] },
  Decoder: { instance: ["decode", "decodeArrayStream", "decodeAsync", "decodeMulti", "decodeStream"], static: [] },
  DecoderStream: { instance: ["readable", "stats", "writable"], static: [] },
  EncodeError: { instance: ["cause", "code", "message", "name", "stack"], static: [] },
  Encoder: { instance: ["encode", "encodeChunks", "encodeInto", "encodeSharedRef", "encodedSize"], static: [] },
  EncoderStream: { instance: ["readable", "writable"], static: [] },
  ExtData: { instance: ["data", "type"], static: [] },
  // __brand carries the context type, as in @msgpack/msgpack; it is never set
  ExtensionCodec: { instance: ["__brand", "decode", "register", "tryToEncode"], static: ["defaultCodec"] },
};

/** Every export of dist/<entry>.d.ts with what it is, read by the TypeScript compiler as a user's would. */
function declaredSurface(entry: string): { values: string[]; types: string[]; options: string[]; classes: Record<string, { instance: string[]; static: string[] }> } {
  const file = join(ROOT, `dist/${entry}.d.ts`);
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, lib: ["lib.es2024.d.ts", "lib.dom.d.ts"], types: [], noEmit: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const out = { values: [] as string[], types: [] as string[], options: [] as string[], classes: {} as Record<string, { instance: string[]; static: string[] }> };
  // members a user can reach: not `private`/`protected`, not `#private`
  const visible = (p: ts.Symbol): boolean =>
    !p.name.startsWith("#") && p.name !== "prototype" && !(p.declarations ?? []).some((d) => ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
  const names = (type: ts.Type): string[] => checker.getPropertiesOfType(type).filter(visible).map((p) => p.name).sort();
  // `export { type X }` (or `export type { X }`) anywhere along a re-export chain exports X's type only, even when X is also a value
  const typeOnly = (d: ts.Declaration): boolean => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly);
  const exportsValue = (symbol: ts.Symbol): boolean => {
    let s: ts.Symbol | undefined = symbol;
    while (s && s.flags & ts.SymbolFlags.Alias) {
      if ((s.declarations ?? []).some(typeOnly)) return false;
      s = checker.getImmediateAliasedSymbol(s);
    }
    return s !== undefined && (s.flags & ts.SymbolFlags.Value) !== 0;
  };
  for (const exported of checker.getExportsOfModule(module)) {
    const s = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (exportsValue(exported)) out.values.push(exported.name);
    else if (exported.name.endsWith("Options")) out.options.push(exported.name);
    else out.types.push(exported.name);
    if (s.flags & ts.SymbolFlags.Class) out.classes[exported.name] = { instance: names(checker.getDeclaredTypeOfSymbol(s)), static: names(checker.getTypeOfSymbol(s)) };
  }
  for (const list of [out.values, out.types, out.options]) list.sort();
  return out;
}

describe("the public surface of each entry (dist/)", () => {
  beforeAll(() => assertBuilt());

  test("the entries pinned here are package.json's", () => {
    expect(Object.keys(RUNTIME_NAMES).sort()).toEqual(entrySubpaths().sort());
  });

  test.each(Object.keys(RUNTIME_NAMES))("%s: its ESM and CJS builds export exactly the pinned values", async (subpath) => {
    const name = entryName(subpath);
    const esm = await import(pathToFileURL(join(ROOT, `dist/${name}.js`)).href);
    expect(Object.keys(esm).sort()).toEqual(RUNTIME_NAMES[subpath]);
    const cjs = createRequire(import.meta.url)(join(ROOT, `dist/${name}.cjs`));
    expect(Object.keys(cjs).sort()).toEqual(RUNTIME_NAMES[subpath]);
  });

  test("the browser bundles export what their entries do: the core (no stream decoders), main plus streams, inspect", async () => {
    const exportsOf = async (file: string): Promise<string[]> => Object.keys(await import(pathToFileURL(join(ROOT, "dist/browser", file)).href)).sort();
    const main = RUNTIME_NAMES["."]!;
    expect(await exportsOf("msgpack.min.js")).toEqual(main.filter((n) => !STREAM_DECODERS.includes(n)));
    expect(await exportsOf("msgpack-streams.min.js")).toEqual([...new Set([...main, ...RUNTIME_NAMES["./streams"]!])].sort());
    expect(await exportsOf("msgpack-inspect.min.js")).toEqual(RUNTIME_NAMES["./inspect"]);
  });

  test("the IIFE bundle defines one global, with what its entry exports: ResizableMsgpack", () => {
    const globalsOf = (file: string): Record<string, string[]> => {
      const context = createContext({ TextEncoder, TextDecoder });
      runInContext(readFileSync(join(ROOT, "dist/browser", file), "utf8"), context);
      const defined = Object.keys(context).filter((k) => k !== "TextEncoder" && k !== "TextDecoder");
      return Object.fromEntries(defined.map((k) => [k, Object.keys(context[k]).sort()]));
    };
    expect(globalsOf("msgpack.iife.min.js")).toEqual({ ResizableMsgpack: RUNTIME_NAMES["."] });
  });

  test.each(Object.keys(RUNTIME_NAMES))("%s: its declarations export exactly the pinned values and types; option types are types only", (subpath) => {
    const surface = declaredSurface(entryName(subpath));
    expect(surface.values).toEqual(RUNTIME_NAMES[subpath]);
    expect(surface.types).toEqual(TYPE_NAMES[subpath]);
    for (const option of surface.options) expect(RUNTIME_NAMES[subpath], option).not.toContain(option);
  }, 60_000);

  test("the exported classes show exactly the pinned public members (no registries, no internal state)", () => {
    const seen: Record<string, { instance: string[]; static: string[] }> = {};
    for (const subpath of Object.keys(RUNTIME_NAMES)) {
      for (const [name, members] of Object.entries(declaredSurface(entryName(subpath)).classes)) {
        // a class that two entries export is the same class
        if (seen[name]) expect(members, `${subpath} ${name}`).toEqual(seen[name]);
        seen[name] = members;
      }
    }
    expect(seen).toEqual(CLASS_MEMBERS);
  }, 60_000);
});
