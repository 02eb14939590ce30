// The published package as a user gets it: `npm pack`, install the tarball
// into a fresh project, then use it from ESM `import`, CJS `require` (on the
// test's Node and on Node 18) and TypeScript 5.0 and 5.9 (`tsc --noEmit`,
// moduleResolution nodenext, bundler and node, skipLibCheck off,
// exactOptionalPropertyTypes on) against the published .d.ts/.d.cts files.
// Also: the shipped code never uses eval, new Function, Buffer or process.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Packed, ROOT, RUNTIMES, assertBuilt, cleanEnv, entryName, entrySubpaths, explain, installTarball, npmCommand, npmPack, requireBinary, run } from "./tools/harness.ts";

const NAME = "@resizable/msgpack";

/** Subpaths that must not resolve: the internal module (src/internal.ts, which the tests use) and deep paths, also to files that exist. */
const REFUSED = ["internal", "dist/internal.js", "dist/index.js", "dist/index.cjs", "dist/extensions.d.ts", "entries/index.js", "entries/index.cjs", "src/internal.ts", "src/index.ts"];

const ESM_CONSUMER = (streams: boolean) => `
import assert from "node:assert/strict";
import { createRequire } from "node:module";
const REFUSED = ${JSON.stringify(REFUSED)};
import * as lib from "${NAME}";
${streams ? `import * as streams from "${NAME}/streams";` : ""}
const value = { a: 1, b: [true, null, "x", -1.5], c: new Uint8Array([1, 2, 3]), d: 2n ** 63n };
const bytes = lib.encode(value);
assert.ok(bytes instanceof Uint8Array);
assert.deepEqual({ ...lib.decode(bytes) }, value);
assert.deepEqual([...lib.decodeMulti(new Uint8Array([...lib.encode(1), ...lib.encode("two")]))], [1, "two"]);
assert.throws(() => lib.decode(Uint8Array.of(0xc1)), lib.DecodeError);
const ext = new lib.ExtData(5, Uint8Array.of(9));
assert.deepEqual(lib.decode(new lib.Encoder().encode(ext)), ext);
${streams ? `assert.equal(typeof streams.decodeAsync, "function");
assert.deepEqual({ ...(await streams.decodeAsync((async function* () { yield bytes.subarray(0, 3); yield bytes.subarray(3); })())) }, value);
// One copy of the core: errors from "./streams" are the DecodeError of ".".
await assert.rejects(streams.decodeAsync((async function* () { yield Uint8Array.of(0xc1); })()), lib.DecodeError);` : ""}
// The inspect entry: its errors are the DecodeError of ".".
const insp = await import("${NAME}/inspect");
assert.equal(insp.inspect(bytes).nodes.length, 1);
assert.ok(insp.inspect(Uint8Array.of(0xc1)).error instanceof lib.DecodeError);
assert.deepEqual(insp.fromJson(insp.toJson(bytes)), bytes);
const require = createRequire(import.meta.url);
const resolved = import.meta.resolve("${NAME}");
assert.match(resolved, /\\/node_modules\\/@resizable\\/msgpack\\/entries\\/index\\.js$/);
assert.equal(require("${NAME}/package.json").name, "${NAME}");
// Only the entries resolve: the internal module and deep paths into dist/ and src/ are refused.
for (const path of REFUSED) {
  await assert.rejects(import("${NAME}/" + path), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }, path);
  assert.throws(() => require.resolve("${NAME}/" + path), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }, path);
}
console.log("ESM_OK " + process.version);
`;

const CJS_CONSUMER = (streams: boolean) => `
"use strict";
const assert = require("node:assert/strict");
const lib = require("${NAME}");
assert.match(require.resolve("${NAME}"), /\\/node_modules\\/@resizable\\/msgpack\\/entries\\/index\\.cjs$/);
const value = { a: 1, b: [true, null, "x", -1.5], c: new Uint8Array([1, 2, 3]), d: 2n ** 63n };
const bytes = lib.encode(value);
assert.ok(bytes instanceof Uint8Array);
assert.deepEqual({ ...lib.decode(bytes) }, value);
assert.throws(() => lib.decode(Uint8Array.of(0xc1)), lib.DecodeError);
assert.deepEqual(lib.decode(lib.encode(new lib.ExtData(5, Uint8Array.of(9)))), new lib.ExtData(5, Uint8Array.of(9)));
assert.equal(require("${NAME}/inspect").inspect(bytes).nodes[0].type, "map");
for (const path of ${JSON.stringify(REFUSED)}) assert.throws(() => require("${NAME}/" + path), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }, path);
(async () => {
${streams ? `  const streams = require("${NAME}/streams");
  assert.equal(typeof streams.decodeAsync, "function");
  // One copy of the core: errors from "./streams" are the DecodeError of ".".
  await assert.rejects(streams.decodeAsync((async function* () { yield Uint8Array.of(0xc1); })()), lib.DecodeError);` : ""}
  console.log("CJS_OK " + process.version);
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;

const TS_ESM_CONSUMER = (streams: boolean) => `
import { decode, decodeMulti, encode, Decoder, DecodeError, Encoder, ExtData, ExtensionCodec, EncodeError } from "${NAME}";
${streams ? `import { decodeAsync } from "${NAME}/streams";` : ""}
import { inspect, renderText, type InspectNode } from "${NAME}/inspect";

const bytes: Uint8Array = encode({ a: 1, b: [1, 2, 3] });
const tree: InspectNode[] = inspect(bytes, { maxDepth: 8, offset: 0 }).nodes;
const treeText: string = renderText(inspect(bytes), { maxItems: 3, color: false });
const small: Uint8Array = encode({ a: 1 }, { sortKeys: true, extensionCodec: new ExtensionCodec() });
const fromSmall: unknown = decode(small, { useMap: true, maxDepth: 8 });
const value: unknown = decode(bytes);
const asMap: unknown = decode(bytes, { useMap: true, int64: "bigint" });
const many: unknown[] = [...decodeMulti(bytes)];
const reused: Uint8Array = new Encoder().encode([value, asMap, many]);
const again: unknown = new Decoder().decode(reused);
const ext = new ExtData(1, new Uint8Array(2));
const extType: number = ext.type;
const extData: Uint8Array = ext.data;
const codec = new ExtensionCodec();
const isError: boolean = again instanceof DecodeError || again instanceof EncodeError;
${streams ? `const later: Promise<unknown> = decodeAsync((async function* () { yield bytes; })());` : ""}

// @ts-expect-error int64 accepts only "auto" | "number" | "bigint"
decode(bytes, { int64: "sometimes" });
// @ts-expect-error encode returns bytes, not a string
const wrong: string = encode(1);
// @ts-expect-error the internal module is no entry
import("${NAME}/internal");
// @ts-expect-error nor is a deep path into dist/
import("${NAME}/dist/extensions.js");
// @ts-expect-error an ExtensionCodec's registries are private
codec.encoders;

export { codec, extData, extType, fromSmall, isError, tree, treeText, wrong${streams ? ", later" : ""} };
`;

const TS_CJS_CONSUMER = `
import msgpack = require("${NAME}");
const bytes: Uint8Array = msgpack.encode([1, "two", null]);
const value: unknown = msgpack.decode(bytes, { useMap: true });
// @ts-expect-error decode takes bytes, not a number
msgpack.decode(42);
export = { bytes, value };
`;

/** A consumer for `moduleResolution: "node"` (node10) and "bundler": the main entry and the streams subpath. */
const TS_PLAIN_CONSUMER = `
import { decode, encode, Encoder } from "${NAME}";
import { decodeAsync } from "${NAME}/streams";
const bytes: Uint8Array = encode({ a: [1, 2] });
const value: unknown = decode(new Encoder().encode(bytes));
const later: Promise<unknown> = decodeAsync((async function* () { yield bytes; })());
// @ts-expect-error encode returns bytes, not a string (fails as "unused" if the types decay to any)
const wrong: string = encode(1);
export { value, later, wrong };
`;

/**
 * Options written with \`undefined\` for "not set", as code under
 * \`exactOptionalPropertyTypes\` often does.
 */
const TS_EXACT_OPTIONAL_CONSUMER = `
import { decode, encode, Decoder, Encoder } from "${NAME}";
import { decodeAsync, decodeMultiStream, DecoderStream, EncoderStream, encodeIterable } from "${NAME}/streams";
const maxDepth: number | undefined = Math.random() > 2 ? 8 : undefined;
const bytes: Uint8Array = encode({ a: 1 }, { maxDepth, sortKeys: undefined, extensionCodec: undefined });
const value: unknown = decode(bytes, { maxDepth: undefined, useMap: undefined, maxStrLength: undefined });
const again: Uint8Array = new Encoder({ ignoreUndefined: undefined }).encode(new Decoder({ int64: undefined }).decode(bytes));
async function* chunks() { yield bytes; }
const streamed: Promise<unknown> = decodeAsync(chunks(), { maxValueBytes: undefined, stats: undefined, useMap: undefined });
const many: AsyncGenerator<unknown> = decodeMultiStream(chunks(), { lengthPrefixed: undefined, maxValueBytes: undefined });
const transforms = [new DecoderStream({ lengthPrefixed: undefined, stats: undefined }), new EncoderStream({ lengthPrefixed: undefined })];
const pieces: Iterable<Uint8Array> = encodeIterable({ a: 1 }, { chunkSize: undefined });
export { value, again, streamed, many, transforms, pieces };
`;

/**
 * A project with \`lib: ["es2022"]\`: neither the DOM lib nor Node's types.
 * The main and streams entries, the stream classes and functions included, must type-check
 * (the declarations type the WHATWG streams they name themselves); the
 * options of programs written for other libraries too.
 */
const TS_NO_DOM_CONSUMER = `
import { decode, decodeAsync, encode, Decoder, Encoder, ExtensionCodec } from "${NAME}";
import { decodeArrayStream, decodeMultiStream, DecoderStream, EncoderStream, encodeIterable, encodeToReadableStream, encodeToStream, type ReadableStreamLike } from "${NAME}/streams";
const bytes: Uint8Array = encode({ a: 1 }, { undefinedAsExtension: true, ignoreUndefined: true });
const asBuffer: Uint8Array = encode(1, { buffers: true });
const value: unknown = decode(bytes, { invalidUtf8: "replace", undefinedAsExtension: true, buffers: false });
const codec = new ExtensionCodec<{ tag: string }>();
const positional: Uint8Array = new Encoder(codec, { tag: "t" }, 100, 2048, true).encode(value);
const positionalDecoder = new Decoder(codec, { tag: "t" }, 10, 10, 10, 10, 10);
async function* chunks() { yield bytes; }
const later: Promise<unknown> = decodeAsync(chunks(), { invalidUtf8: "replace" });
const items: AsyncGenerator<unknown> = decodeArrayStream(chunks());
const many: AsyncGenerator<unknown> = decodeMultiStream(chunks(), { lengthPrefixed: true });
const viaReader: ReadableStreamLike<Uint8Array> = { getReader: () => ({ read: async () => ({ done: true }), releaseLock() {}, cancel: async () => {} }) };
const streams = [new DecoderStream(), new EncoderStream({ buffers: true }), encodeToReadableStream(1)];
const written: (w: Parameters<typeof encodeToStream>[1]) => Promise<void> = (w) => encodeToStream(1, w);
const pieces: Iterable<Uint8Array> = encodeIterable(1);
const small: Uint8Array = encode(undefined, { undefinedAsExtension: true });
// @ts-expect-error invalidUtf8 is "throw" or "replace"
decode(bytes, { invalidUtf8: "ignore" });
export { asBuffer, positional, positionalDecoder, later, items, many, viaReader, streams, written, pieces, small };
`;

/**
 * With \`buffers: true\`, results are typed as Node's \`Buffer\` wherever the
 * program's types declare one (here a stand-in global \`Buffer\`, so the
 * check needs no @types/node): \`encode(v, { buffers: true })\` and an
 * \`Encoder\` made with it alike; without it, \`Uint8Array\`. The notepack.io
 * entry's \`encode\` is a \`Buffer\` too.
 */
const TS_BUFFERS_CONSUMER = `
import { encode, Encoder, ExtensionCodec } from "${NAME}";
import notepack, { decode as notepackDecode } from "${NAME}/compat/notepack";
interface NodeLikeBuffer extends Uint8Array { readonly isNodeLikeBuffer: true }
declare global {
  var Buffer: { alloc(size: number): NodeLikeBuffer };
}
const fromFunction: NodeLikeBuffer = encode(1, { buffers: true });
const encoder = new Encoder({ buffers: true, sortKeys: true });
const fromEncoder: NodeLikeBuffer = encoder.encode(1);
const shared: NodeLikeBuffer = encoder.encodeSharedRef(1);
const chunks: NodeLikeBuffer[] = encoder.encodeChunks(1);
const fromNotepack: NodeLikeBuffer = notepack.encode({ a: 1 });
const back: { a: number } = notepackDecode(fromNotepack);
// @ts-expect-error without buffers, a Uint8Array
const plain: NodeLikeBuffer = new Encoder().encode(1);
// @ts-expect-error buffers: false is no Buffer either
const notBuffers: NodeLikeBuffer = new Encoder({ buffers: false }).encode(1);
const codec = new ExtensionCodec<{ tag: string }>();
const typed: Encoder<{ tag: string }> = new Encoder({ extensionCodec: codec, context: { tag: "t" }, buffers: true });
// @ts-expect-error the context must be the codec's
new Encoder({ extensionCodec: codec, context: 5 });
export { fromFunction, fromEncoder, shared, chunks, fromNotepack, back, plain, notBuffers, typed };
`;

const COMPILER_OPTIONS = {
  target: "es2022",
  lib: ["es2022", "dom"],
  types: [],
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  // the published declarations are checked; TypeScript's own lib files (lib.dom.d.ts is most of
  // each run's parse and check) are not ours to check
  skipLibCheck: false,
  skipDefaultLibCheck: true,
};

/**
 * One tsconfig per module resolution a user may have; each checks its own consumer files
 * (consumers that need the same compiler options share one run; the Buffer stand-in
 * declares a global, so it has a run of its own).
 */
const TSCONFIGS = {
  nodenext: { compilerOptions: { ...COMPILER_OPTIONS, module: "nodenext", moduleResolution: "nodenext" }, files: ["consumer.ts", "consumer-cjs.cts", "consumer-exact.ts"] },
  bundler: { compilerOptions: { ...COMPILER_OPTIONS, module: "esnext", moduleResolution: "bundler" }, files: ["consumer-plain.ts"] },
  node10: { compilerOptions: { ...COMPILER_OPTIONS, module: "commonjs", moduleResolution: "node" }, files: ["consumer-plain.ts"] },
  nodom: { compilerOptions: { ...COMPILER_OPTIONS, lib: ["es2022"], module: "nodenext", moduleResolution: "nodenext" }, files: ["consumer-nodom.ts"] },
  buffers: { compilerOptions: { ...COMPILER_OPTIONS, module: "nodenext", moduleResolution: "nodenext" }, files: ["consumer-buffers.ts"] },
} as const;

/** The TypeScript versions users have: the oldest supported and the newest, both devDependencies. */
const COMPILERS = [
  { name: "TypeScript 5.0", tsc: "test/node_modules/typescript-5.0/bin/tsc", version: /^Version 5\.0\./, legacy: true },
  { name: "TypeScript 5.9", tsc: "node_modules/typescript/bin/tsc", version: /^Version 5\.9\./, legacy: false },
];

describe("npm package (npm pack + install in a temporary project)", () => {
  let work: string;
  let project: string;
  let packed: Packed;
  const hasStreams = () => entrySubpaths().includes("./streams");

  beforeAll(async () => {
    assertBuilt();
    work = mkdtempSync(join(tmpdir(), "msgpack-pack-"));
    // --ignore-scripts: this tree is built already (assertBuilt), and the
    // prepare script's rebuild would delete dist/ under the other tests.
    packed = await npmPack(ROOT, work, true);
    project = join(work, "consumer");
    await installTarball(join(work, packed.filename), project);
    writeFileSync(join(project, "esm.mjs"), ESM_CONSUMER(hasStreams()));
    writeFileSync(join(project, "cjs.cjs"), CJS_CONSUMER(hasStreams()));
    writeFileSync(join(project, "consumer.ts"), TS_ESM_CONSUMER(hasStreams()));
    writeFileSync(join(project, "consumer-cjs.cts"), TS_CJS_CONSUMER);
    writeFileSync(join(project, "consumer-plain.ts"), TS_PLAIN_CONSUMER);
    writeFileSync(join(project, "consumer-exact.ts"), TS_EXACT_OPTIONAL_CONSUMER);
    writeFileSync(join(project, "consumer-nodom.ts"), TS_NO_DOM_CONSUMER);
    writeFileSync(join(project, "consumer-buffers.ts"), TS_BUFFERS_CONSUMER);
    for (const [name, config] of Object.entries(TSCONFIGS)) writeFileSync(join(project, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the tarball holds dist/, entries/ and docs/ and nothing else: no source maps, no src/", () => {
    const paths = packed.files.map((f) => f.path).sort();
    for (const subpath of entrySubpaths()) {
      const name = entryName(subpath);
      for (const ext of [".js", ".cjs", ".d.ts", ".d.cts"]) expect(paths).toContain(`dist/${name}${ext}`);
      for (const ext of [".js", ".cjs"]) expect(paths).toContain(`entries/${name}${ext}`);
    }
    expect(paths).toContain("dist/browser/msgpack.min.js");
    expect(paths).toContain("dist/browser/msgpack.iife.min.js");
    expect(paths).toContain("dist/bin/msgpack.js");
    expect(paths).toContain("dist/playground.html");
    expect(paths).toContain("package.json");
    const stray = paths.filter((p) => !/^(dist\/|docs\/|entries\/|package\.json$|README(\.md)?$|LICENSE(\.md|\.txt)?$)/i.test(p));
    expect(stray, "files outside dist/, entries/, docs/ and the usual top-level files").toEqual([]);
    expect(paths.filter((p) => p.endsWith(".map")), "source maps (their sources are not shipped)").toEqual([]);
    const pkg = JSON.parse(readFileSync(join(project, "node_modules", NAME, "package.json"), "utf8"));
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  for (const runtime of ["node20", "node18"] as const) {
    test(`ESM import works on ${runtime}`, async () => {
      const r = await run(requireBinary(RUNTIMES[runtime], "run npm ci"), ["esm.mjs"], { cwd: project, env: cleanEnv() });
      expect(r.code, explain(`${runtime} esm.mjs`, r)).toBe(0);
      expect(r.stdout).toMatch(/^ESM_OK v/m);
    });

    test(`CJS require works on ${runtime}`, async () => {
      const r = await run(requireBinary(RUNTIMES[runtime], "run npm ci"), ["cjs.cjs"], { cwd: project, env: cleanEnv() });
      expect(r.code, explain(`${runtime} cjs.cjs`, r)).toBe(0);
      expect(r.stdout).toMatch(/^CJS_OK v/m);
    });
  }

  test("the bin is installed: npx-style node_modules/.bin/msgpack runs validate on Node 18", async () => {
    writeFileSync(join(project, "value.msgpack"), Uint8Array.of(0x92, 0x01, 0xa1, 0x61));
    const bin = join(project, "node_modules/.bin/msgpack");
    const r = await run(requireBinary(RUNTIMES.node18, "run npm ci"), [bin, "validate", "value.msgpack"], { cwd: project, env: cleanEnv() });
    expect(r.code, explain("msgpack validate", r)).toBe(0);
    expect(r.stdout).toBe("valid: 1 value, 4 bytes\n");
  });

  /** Runs one compiler on one tsconfig; returns the result and the declaration files it read. */
  async function typeCheck(compiler: (typeof COMPILERS)[number], config: keyof typeof TSCONFIGS) {
    const tsc = requireBinary(join(ROOT, compiler.tsc), "run npm ci");
    const r = await run(process.execPath, [tsc, "-p", `tsconfig.${config}.json`, "--listFiles"], { cwd: project, env: cleanEnv(), timeout: 180_000 });
    const errors = r.stdout.split("\n").filter((l) => /error TS/.test(l)).join("\n");
    const read = r.stdout.split("\n").filter((l) => l.includes(`/node_modules/${NAME}/dist/`)).map((l) => l.slice(l.indexOf("/dist/") + 1));
    return { r: { ...r, stdout: errors }, read };
  }

  test.each(COMPILERS)("the compilers are the versions named ($name)", async (compiler) => {
    const r = await run(process.execPath, [join(ROOT, compiler.tsc), "--version"], { cwd: project, env: cleanEnv() });
    expect(r.stdout).toMatch(compiler.version);
  });

  for (const compiler of COMPILERS) {
    for (const config of ["nodenext", "bundler", "node10"] as const) {
      const exact = config === "nodenext" ? ", and options may be written with undefined under exactOptionalPropertyTypes" : "";
      test(`${compiler.name}, moduleResolution ${config}: a consumer type-checks against the published declarations${exact}`, async () => {
        const { r, read } = await typeCheck(compiler, config);
        expect(r.code, explain(`${compiler.name} tsc -p tsconfig.${config}.json`, r)).toBe(0);
        // TypeScript < 5.7 reads the copies without typed-array type arguments, newer ones the originals.
        const entries = config === "nodenext" ? ["index.d.ts", "index.d.cts"] : ["index.d.ts", "streams.d.ts"];
        const dir = compiler.legacy ? "dist/ts5.0/" : "dist/";
        for (const entry of entries) expect(read, `${dir}${entry}`).toContain(`${dir}${entry}`);
        expect(read.filter((f) => f.startsWith("dist/ts5.0/") !== compiler.legacy)).toEqual([]);
      }, 200_000);
    }
  }

  test.each(COMPILERS)("$name: a project with lib es2022, without the DOM lib or Node's types, type-checks the main and streams entries", async (compiler) => {
    const { r, read } = await typeCheck(compiler, "nodom");
    expect(r.code, explain(`${compiler.name} tsc -p tsconfig.nodom.json`, r)).toBe(0);
    const dir = compiler.legacy ? "dist/ts5.0/" : "dist/";
    for (const entry of ["index.d.ts", "streams.d.ts"]) expect(read, `${dir}${entry}`).toContain(`${dir}${entry}`);
  }, 200_000);

  test.each(COMPILERS)("$name: buffers: true types the results as Buffer, from encode() and from an Encoder made with it (and compat/notepack's encode)", async (compiler) => {
    const { r, read } = await typeCheck(compiler, "buffers");
    expect(r.code, explain(`${compiler.name} tsc -p tsconfig.buffers.json`, r)).toBe(0);
    const dir = compiler.legacy ? "dist/ts5.0/" : "dist/";
    for (const entry of ["index.d.ts", "compat/notepack.d.ts"]) expect(read, `${dir}${entry}`).toContain(`${dir}${entry}`);
  }, 200_000);
});

describe("package-lock.json and test/package-lock.json", () => {
  // `npm ci` refuses a lock that lacks any optional platform package a
  // dependency declares. The registry mirror here does not serve some of
  // them (e.g. @deno/darwin-arm64), so `npm install` drops them from the lock;
  // their entries were added by hand (os/cpu/libc, no integrity) and a later
  // `npm install` that drops them again fails this test.
  test.each(["package-lock.json", "test/package-lock.json"])("npm ci accepts %s (dry run, offline)", async (lock) => {
    const [npm, npmArgs] = npmCommand();
    const prefix = lock.startsWith("test/") ? ["--prefix", "test"] : [];
    const r = await run(npm, [...npmArgs, "ci", ...prefix, "--dry-run", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], { env: cleanEnv() });
    expect(r.code, explain(`npm ci ${prefix.join(" ")} --dry-run --offline`, r)).toBe(0);
    expect(r.stderr).not.toMatch(/Missing: .* from lock file/);
  });
});

// ------------------------------------------------------------- no eval, Buffer, process

/** Checked in code with comments removed and string contents blanked. */
const FORBIDDEN: [RegExp, string][] = [
  [/\beval\b/, "eval"],
  [/\bnew\s+Function\b|\bFunction\s*\(/, "new Function"],
  [/\bBuffer\b/, "Buffer"],
  [/\bprocess\b/, "process"],
  [/\bimport\s*\(/, "dynamic import()"],
];
/** Checked in code with comments removed but strings kept. */
const FORBIDDEN_WITH_STRINGS: [RegExp, string][] = [
  // Only the CJS build's own relative requires of its chunks are allowed.
  [/\brequire\s*\(\s*(?!["']\.\.?\/)/, "require() of a package"],
  [/["']node:|\bfrom\s*["'](fs|path|os|crypto|buffer|util|stream|events|url|module|process|worker_threads|child_process)["']/, "Node built-in"],
];

/** The code without comments (esbuild drops them) and, second, also without string contents. */
function codeOnly(source: string, loader: "ts" | "js"): [string, string] {
  const { code } = transformSync(source, { loader, legalComments: "none" });
  return [code, code.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""')];
}

function offenders(source: string, loader: "ts" | "js"): string[] {
  const [withStrings, code] = codeOnly(source, loader);
  const found: string[] = [];
  const scan = (text: string, list: [RegExp, string][]) => {
    for (const [pattern, name] of list) {
      const m = pattern.exec(text);
      if (m) found.push(`${name}: ...${text.slice(Math.max(0, m.index - 60), m.index + 60).replace(/\s+/g, " ")}...`);
    }
  };
  scan(code, FORBIDDEN);
  scan(withStrings, FORBIDDEN_WITH_STRINGS);
  return found;
}

describe("no eval, new Function, Buffer, process or Node imports in shipped code", () => {
  const listTs = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? listTs(`${dir}/${e.name}`) : e.name.endsWith(".ts") ? [`${dir}/${e.name}`] : [],
    );

  test("the scanner finds each forbidden use (so a pass means something)", () => {
    const bad = `const a = eval("1"); const f = new Function("x", "return x"); const b = Buffer.from([1]);
      const e = process.env.X; import("./x.js"); const r = require("fs"); import { readFileSync } from "node:fs";`;
    const names = offenders(bad, "js").map((o) => o.slice(0, o.indexOf(": ...")));
    expect(names).toEqual([...FORBIDDEN, ...FORBIDDEN_WITH_STRINGS].map(([, name]) => name));
    const harmless = `// process the Buffer with eval\nconst s = "new Function(process)"; const c = require("./chunks/c.cjs");`;
    expect(offenders(harmless, "js")).toEqual([]);
  });

  /**
   * The command line (src/cli/, built into dist/bin/msgpack.js) runs only
   * under Node and reads files and standard input: Node's modules and
   * `process` are its job. The library's entries never import it.
   */
  const NODE_ONLY = new Set(["src/cli/args.ts", "src/cli/io.ts", "src/cli/commands.ts", "src/cli/main.ts", "dist/bin/msgpack.js"]);

  /**
   * The records entry's compiled record readers (src/records/read.ts, in
   * dist/records.js and .cjs) are the one use of `new Function`: field names
   * enter the source only as JSON string literals, it is tried once and
   * given up for good where it is refused, and `compileRecordReaders: false`
   * turns it off (see test/records.test.ts and test/browser.test.ts). The
   * main entry and the browser bundles carry none.
   */
  const CODE_GENERATION = new Set(["src/records/read.ts", "dist/records.js", "dist/records.cjs"]);
  const allowed = (f: string, offence: string): boolean => CODE_GENERATION.has(f) && offence.startsWith("new Function: ");

  test("the command line is the only Node-only code, and no entry imports it", () => {
    for (const f of listTs("src")) {
      if (!NODE_ONLY.has(f)) expect(readFileSync(join(ROOT, f), "utf8"), f).not.toMatch(/from\s*["'][./]*cli(\.ts|\/)/);
    }
    for (const f of ["src/cli/io.ts", "src/cli/main.ts"]) expect(offenders(readFileSync(join(ROOT, f), "utf8"), "ts").length, f).toBeGreaterThan(0);
  });

  test("src/**/*.ts", () => {
    const files = listTs("src").filter((f) => !NODE_ONLY.has(f));
    expect(files.length).toBeGreaterThan(0);
    const problems = files.flatMap((f) => offenders(readFileSync(join(ROOT, f), "utf8"), "ts").filter((o) => !allowed(f, o)).map((o) => `${f}: ${o}`));
    expect(offenders(readFileSync(join(ROOT, "src/records/read.ts"), "utf8"), "ts").length, "the allowance is used").toBe(1);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  test("dist/**/*.js and *.cjs (ESM, CJS and browser bundles)", () => {
    assertBuilt();
    const listJs = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? listJs(`${dir}/${e.name}`) : /\.c?js$/.test(e.name) ? [`${dir}/${e.name}`] : [],
      );
    const bundles = listJs("dist").filter((f) => !NODE_ONLY.has(f));
    expect(bundles).toContain("dist/browser/msgpack.min.js");
    expect(bundles).toContain("dist/index.cjs");
    const problems = bundles.flatMap((f) => offenders(readFileSync(join(ROOT, f), "utf8"), "js").filter((o) => !allowed(f, o)).map((o) => `${f}: ${o}`));
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
