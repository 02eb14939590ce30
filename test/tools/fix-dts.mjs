// Post-processes the declarations that `tsc --emitDeclarationOnly` writes to
// dist/, then checks them. Run by `npm run build:types`.
//
// 1. tsc keeps the `.ts` specifiers of src/ in .d.ts files
//    (`rewriteRelativeImportExtensions` only rewrites JavaScript output), and a
//    consumer without `allowImportingTsExtensions` rejects them. Rewrite every
//    relative specifier to `.js`.
// 2. With "type": "module", a .d.ts describes an ES module, so `require()`
//    users need CommonJS declarations: write a `.d.cts` twin of every file
//    whose relative specifiers end in `.cjs`.
// 3. TypeScript before 5.7 has no type arguments on typed arrays
//    (`Uint8Array<ArrayBuffer>` is TS2315 there, and with skipLibCheck the
//    types silently become `any`). Write a copy of every declaration file to
//    dist/ts5.0/ with those arguments removed; package.json points
//    compilers older than 5.7 at it (`types@<5.7` conditions in "exports",
//    and "typesVersions" for `moduleResolution: "node"`).
// 4. The stream entry names the global `ReadableStream`, `WritableStream`
//    and `TransformStream` interfaces (src/stream/web.ts). Declare them
//    empty in stream/web.d.ts, with the DOM lib's type parameters, so the
//    declarations type-check without the DOM lib or Node's types: they
//    merge with the full interfaces where those are loaded. (Not in src/:
//    JSR refuses global augmentations, and Deno declares the streams.)
// 5. Verify: every relative specifier ends in `.js` (`.cjs`) and names a
//    declaration file that exists. Exit 1 otherwise.
import { readdirSync, readFileSync, writeFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join, dirname, relative } from "node:path";

const DIST = process.argv[2] ?? "dist";
/** Where the declarations for TypeScript < 5.7 go (package.json names it). */
const LEGACY = "ts5.0";

/** Typed arrays and views that became generic over their buffer in TypeScript 5.7. */
const GENERIC_SINCE_5_7 = /\b(Uint8Array|Uint8ClampedArray|Int8Array|Uint16Array|Int16Array|Uint32Array|Int32Array|Float32Array|Float64Array|BigInt64Array|BigUint64Array|DataView)<[^<>]*>/g;

/** The declarations without the type arguments TypeScript < 5.7 rejects. */
function forOlderTypeScript(text) {
  let out = text;
  for (let prev = ""; prev !== out; ) {
    prev = out;
    out = out.replace(GENERIC_SINCE_5_7, "$1");
  }
  return out;
}

/** Matches `from "x"`, `import "x"`, `import("x")` and `export ... from "x"`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\2/g;

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

function rewrite(text, ext) {
  return text.replace(SPECIFIER, (all, head, quote, spec) => {
    if (!spec.startsWith("./") && !spec.startsWith("../")) return all;
    const bare = spec.replace(/\.(d\.)?[cm]?[tj]s$/, "");
    return `${head}${quote}${bare}${ext}${quote}`;
  });
}

function check(file, text, ext, declExt) {
  const problems = [];
  for (const [, , , spec] of text.matchAll(SPECIFIER)) {
    if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
    if (!spec.endsWith(ext)) {
      problems.push(`${file}: specifier "${spec}" does not end in ${ext}`);
      continue;
    }
    const target = join(dirname(file), spec.slice(0, -ext.length) + declExt);
    if (!existsSync(target)) problems.push(`${file}: "${spec}" has no ${relative(".", target)}`);
  }
  return problems;
}

/** The module whose declarations get the global stream interfaces (4.). */
const WEB_STREAMS = join("stream", "web.d.ts");
const WEB_STREAM_GLOBALS = `
declare global {
    interface ReadableStream<R = any> {
    }
    interface WritableStream<W = any> {
    }
    interface TransformStream<I = any, O = any> {
    }
}
`;

rmSync(join(DIST, LEGACY), { recursive: true, force: true });
const declarations = [...walk(DIST)].filter((f) => f.endsWith(".d.ts"));
if (declarations.length === 0) {
  console.error(`fix-dts: no .d.ts files under ${DIST}/; run tsc --emitDeclarationOnly first`);
  process.exit(1);
}
const problems = [];
if (!declarations.includes(join(DIST, WEB_STREAMS))) problems.push(`${join(DIST, WEB_STREAMS)} is missing: the global stream interfaces have no home`);
for (const file of declarations) {
  let text = readFileSync(file, "utf8");
  if (file === join(DIST, WEB_STREAMS) && !text.includes("declare global")) text += WEB_STREAM_GLOBALS;
  const esm = rewrite(text, ".js");
  const cjs = rewrite(esm, ".cjs");
  const cjsFile = file.slice(0, -".d.ts".length) + ".d.cts";
  writeFileSync(file, esm);
  writeFileSync(cjsFile, cjs);
  const legacy = join(DIST, LEGACY, relative(DIST, file));
  mkdirSync(dirname(legacy), { recursive: true });
  writeFileSync(legacy, forOlderTypeScript(esm));
  writeFileSync(legacy.slice(0, -".d.ts".length) + ".d.cts", forOlderTypeScript(cjs));
}
for (const file of [...declarations, ...declarations.map((f) => join(DIST, LEGACY, relative(DIST, f)))]) {
  const cjsFile = file.slice(0, -".d.ts".length) + ".d.cts";
  problems.push(...check(file, readFileSync(file, "utf8"), ".js", ".d.ts"));
  problems.push(...check(cjsFile, readFileSync(cjsFile, "utf8"), ".cjs", ".d.cts"));
  if (file.includes(`/${LEGACY}/`) && GENERIC_SINCE_5_7.test(readFileSync(file, "utf8"))) problems.push(`${file}: a typed array with type arguments is left`);
  GENERIC_SINCE_5_7.lastIndex = 0;
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`fix-dts: ${declarations.length} declaration files checked, .d.cts twins and ${DIST}/${LEGACY}/ copies for TypeScript < 5.7 written`);
