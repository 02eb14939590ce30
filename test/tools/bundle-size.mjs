// Bundle size report and budget (npm run size). Reads the browser bundles
// that `npm run build` wrote to dist/browser/, prints their minified and
// gzip sizes, what a bundler keeps of the main entry for a page that
// imports `encode` only, `decode` only or both, the modules that make up
// the full codec (from an in-memory esbuild build with a metafile), and the
// same numbers for the peers built the same way. Exits 1 when a bundle
// passes its gzip ceiling: one for the main entry's bundle and one for each
// of the three imports, each today's size plus a little room, so that
// growth is a deliberate decision.
//
//   node test/tools/bundle-size.mjs            table for humans
//   node test/tools/bundle-size.mjs --json     one JSON object (used by tests)
//   node test/tools/bundle-size.mjs --markdown the size table of docs/browsers.md
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { gzipSync, constants } from "node:zlib";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";
import { build } from "esbuild";
import { describeJobs, jobLines } from "./code-lines.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BROWSER = join(ROOT, "dist/browser");

/**
 * What a bundler keeps of the main entry for a page that imports only
 * these names, built as dist/browser's bundles are (esbuild --bundle
 * --minify --format=esm --platform=neutral --target=es2022, gzip level 9),
 * each with its gzip ceiling, for the source (src/index.ts, what Deno and
 * JSR give) and the npm build (dist/index.js): the measured size plus
 * about 1% (encode 11,053 / 11,084 B, decode 7,046 / 7,189 B, both 15,556
 * / 15,642 B gzip when set). The main entry is the small build: a page
 * that imports fewer names gets less code. msgpackr's record extension,
 * reachable from both functions through their options, added about
 * 1,420 B to encode (11,117 / 11,160 to 12,485 / 12,582 B), 1,500 B to
 * decode (7,096 / 7,238 to 8,600 / 8,732 B) and 2,850 B to both (15,699 /
 * 15,756 to 18,522 / 18,602 B); each ceiling rose by that much. The
 * stream decoders' shared header-limit rule and INVALID_EXT for a failing
 * extension decoder then took decode to 8,799 / 8,907 B and both to
 * 18,744 / 18,802 B. The options for programs written for other
 * libraries (see {@link BUDGET_GZIP}) took encode to 13,070 / 13,134 B,
 * decode to 9,786 / 9,898 B (the decoder's share: naming input that is no
 * MessagePack, `invalidUtf8`, `buffers`, `undefinedAsExtension`, the 2.x
 * constructor, `register()`'s checks) and both to 19,909 / 20,011 B.
 * Later, at 20,271 / 20,383 B for both, every module was made smaller with
 * the same behaviour and speed: option checks as tables of rules, error
 * codes as literals, the spills on one base, the record tables sharing
 * their checks, header writers sharing their stores, and private fields
 * as `#private` members, which minifiers rename. That took encode to
 * 12,514 / 12,541 B, decode to 9,497 / 9,611 B and both to 19,021 /
 * 19,008 B; a second pass over the cold code (the encode defaults as a
 * table, the record tables and the extension registries) took encode to
 * 12,429 / 12,469 B, decode to 9,478 / 9,586 B and both to 18,983 /
 * 18,964 B. Module-level constants written as literals or marked pure
 * (see {@link NPM_SLACK_GZIP}) took the npm build to 12,447 / 9,460 /
 * 18,963 B (the source: 12,435 / 9,464 / 18,992 B).
 * The drop-in behaviours then moved to the compatibility entries (see
 * {@link MODULES}) behind one INVALID_ARGUMENT that names the import: the
 * moved code and the gates weigh about the same (both 18,992 to 19,087 B,
 * of which about 95 B is the error naming the import, which the records
 * module uses too). Decoders without an `extensionCodec` reading the
 * default codec's decoders without the `ExtensionCodec` class took
 * decode to 8,928 / 8,924 B (the class, its `tryToEncode`, the
 * timestamp writer and the encode errors had come with it). Each option
 * then declared once, in a table per direction (rule and default by name,
 * the resolvers derived from it): encode 12,642, decode 8,958, both
 * 19,176 B from the source. msgpackr's record extension then moved to a
 * module of its own (`@resizable/msgpack/records`; see {@link MODULES}),
 * with the streaming encoder on the core walk and the decode-only page
 * rid of the `ExtensionCodec` class: encode 12,037, decode 8,116, both
 * 17,660 B from the source (12,039 / 8,116 / 17,712 B from the npm build).
 * Long arrays of small integers read in a loop of their own (1e6 small
 * integers decoded 1.24-1.45x as fast on Node, Bun and Deno) added about
 * 125 B to decode: 8,248 and 17,792 B. `encode()` then ran on a lean
 * encoder class, the public `Encoder` adding `encodeSharedRef`,
 * `encodeChunks`, `encodeInto` and `encodedSize` with the ways to end
 * their calls and the byte count: encode 12,051 to 11,449 B, both 17,815
 * to 17,275 B (11,453 / 17,305 B from the npm build). Strings sliced
 * from a window of the input where the runtime has a native latin1 slice
 * (src/decode/text-window.ts: records decoded 1.3-1.9x as fast on Node,
 * Bun and Deno), and fixarrays and uint 64 numbers read by readValue
 * itself (which V8 otherwise left out of its inlining budget once records
 * had run), added about 600 B to decode: 8,829 and 17,881 B (8,810 /
 * 17,911 B from the npm build). Browsers have no such slice, so there the
 * window never opens; a "browser" export condition without it would take
 * it back out of their bundles. Short string values of small messages
 * read through the key cache (a 125 B RPC message and small events
 * decoded 1.3-1.4x as fast on Bun) added about 20 B: 8,848 and 17,910 B
 * (8,832 / 17,922 B from the npm build). The key cache hashing four
 * bytes instead of every byte, in pairs of slots so that two keys of one
 * hash both stay (small messages 1.03-1.07x on Node, and no cell losing
 * a quarter of its speed to two keys of one slot), added about 80 B:
 * 8,925 and 17,993 B (8,907 / 17,993 B from the npm build). The
 * decoder's extension calls and cold map forms in modules of their own
 * (`extension-reader.ts`, `map-forms.ts`) added about 25 B, and the key
 * cache's early return for the empty string 8 B: 8,956 and 18,032 B
 * (8,943 / 18,019 B from the npm build). The classes' private state as
 * TypeScript `private` members assigned in their constructors, which a
 * bundler targeting ES2018-ES2021 has no need to rewrite into helpers
 * (a `#` field becomes a WeakMap lookup there, 2-8x slower to decode) but
 * which minifiers keep by name (they renamed `#` fields), and the check of
 * an input shrunk under the decoder, took decode to 9,074 / 9,053 B; the
 * decode ceiling rose to 9,100 B. The `schema` option (its rule, the
 * lookup of the checks that `@resizable/msgpack/schema` installs, and one
 * check per `decode` call and per `decodeMulti` value; the checking itself,
 * about 640 B, is in that entry: see {@link MODULES}) added about 100 B to
 * decode and both (9,029 to 9,129 and 16,934 to 17,032 B; 11 B to encode,
 * whose error naming an import shares the table of imports): the decode
 * ceiling rose to 9,150 B. The checking written into the decoder instead
 * measured 9,803 and 17,666 B.
 *
 * The goal once the record extension is a module of its own: encode +
 * decode at most 13,500 B, decode at most 6,500 B.
 */
export const IMPORTS = [
  { names: ["encode"], ceiling: 11550 },
  { names: ["decode"], ceiling: 9150 },
  { names: ["encode", "decode"], ceiling: 18050 },
];

/**
 * The modules a program imports when it uses them, each measured alone: what
 * a page that imports it (for what it installs, and the names a program
 * written for that library uses) keeps beyond the main entry's
 * `encode` + `decode`, with a ceiling on what it adds (today's size plus
 * a little room).
 */
export const MODULES = [
  {
    module: "compat/msgpack",
    code: `import "./src/compat/msgpack.ts"; export { encode, decode, Encoder, Decoder } from "./src/index.ts";`,
    base: `export { encode, decode, Encoder, Decoder } from "./src/index.ts";`,
    ceiling: 200,
  },
  {
    module: "records",
    code: `export { encode, decode, Encoder, Decoder } from "./src/records.ts";`,
    base: `export { encode, decode, Encoder, Decoder } from "./src/index.ts";`,
    ceiling: 2850,
  },
  {
    module: "schema",
    code: `export { encode, decode, Encoder, Decoder } from "./src/schema.ts";`,
    base: `export { encode, decode, Encoder, Decoder } from "./src/index.ts";`,
    ceiling: 700,
  },
  {
    module: "compat/notepack",
    code: `export { encode, decode } from "./src/compat/notepack.ts";`,
    base: `export { encode, decode } from "./src/index.ts";`,
    ceiling: 320,
  },
];
/** What the main entry's `encode` + `decode` must not keep: the modules behind the records and compatibility entries. */
export const MAIN_ENTRY_LEAVES_OUT = ["src/compat/", "src/dropin/", "src/records/"];
/**
 * Names that a page importing only `decode` must not keep (minifiers keep
 * property names): the `ExtensionCodec` class, whose `tryToEncode` and
 * `register` bring the timestamp writer and the encode errors.
 */
export const DECODE_ONLY_LEAVES_OUT = ["tryToEncode", "register"];
/**
 * Names that a page importing `encode` and `decode` must not keep: the
 * methods the public `Encoder` adds to the lean encoder `encode()` runs on
 * (they come and go together; `encodeChunks` is named in an error message,
 * so its definition is looked for).
 */
export const ENCODE_ONLY_LEAVES_OUT = ["encodeSharedRef", "encodeChunks("];
/**
 * How much more an import from the npm build may keep than the same import
 * from the source. The npm build puts the modules that its entries share
 * in shared chunks, so one chunk holds encoder and decoder modules alike,
 * and a bundler drops what a page does not use declaration by
 * declaration, not module by module: only declarations it can prove have
 * no effect. Module-level values are therefore literals or marked pure
 * (`16_777_216`, not `16 * 1024 * 1024`, which esbuild keeps). Before that,
 * `decode` alone from the npm build kept about 110 B of encoder constants.
 */
export const NPM_SLACK_GZIP = 60;
/**
 * The main entry's ceiling (msgpack.min.js, the main entry without stream
 * decoding): today's size plus a little room, so that growth is a
 * deliberate decision. On top of the formats it carries the speed and
 * memory machinery (resizable store, size estimate, JS UTF-8, key cache,
 * pooled results, the options cache) and the strict checks. It was
 * 15,365 B before the encoder was split by concern and made to classify
 * values with kind.ts (shared with sizes, value paths and the stream
 * encoder): 15,614 B after. Writing pooled results straight
 * into their slab (5-11% faster pooled small messages on Node and Deno)
 * added about 230 B: 15,879 B. A UTF-8 loop of its own for property names
 * (records encoding 2.4x as fast on Node once non-ASCII text has been
 * seen) and float 64 array items read in the array loop (1e6 doubles
 * decoded 2.3x as fast on Deno) added about 125 B: 16,003 B; options read
 * once per direction, error paths from the walk and a tree-shakable build:
 * 16,152 B. The header limits decided by one rule that the decoder throws
 * and the stream scanner asks (the scanner disagreed with the decoder
 * under rawStrings; about 135 B), and an extension decoder's truncated
 * inner decode reported as INVALID_EXT with its cause (it stalled the
 * stream decoders; about 80 B). msgpackr's record extension (`useRecords`
 * and `structures` on both sides: the record tables, the declaration
 * reader and writer, a record entry for readValue and an object writer,
 * their options and errors) added about 2,820 B. The options for programs
 * written for other libraries (`buffers`, `undefinedAsExtension`,
 * `invalidUtf8`, @msgpack/msgpack 2.x constructors, boxed primitives,
 * input that is no MessagePack named, `register()` checking its argument)
 * added about 1,100 B: 20,401 B. Each direction reading its options by
 * name (megamorphic loads by a name in a variable had made calls with
 * options twice as slow) and record structures found again by their
 * field names (small messages with records decoded 3x as fast) added
 * about 210 B: 20,612 B. The record reader in a module of its own took
 * 30 B off; uint 64 numbers written and read by paths of their own
 * (millisecond timestamps: time series 1.07-1.12x as fast either way on
 * V8) added about 165 B: 20,748 B. Every module made smaller with the
 * same behaviour and speed (see {@link IMPORTS}): 19,590 B, then 19,564 B.
 * With records and the drop-in behaviours in modules of their own (and the
 * streaming encoder on the core walk): 18,239 B; the long-array loop of
 * the decoder: 18,371 B. The public `Encoder` as a subclass of the lean
 * one `encode()` runs on (which saves 600 B to pages that import only
 * `encode`) added about 50 B here, where the whole class is kept: 18,442 B.
 * Strings sliced from a window of the input and the readers moved into
 * readValue (see {@link IMPORTS}) added about 610 B: 19,078 B. Short
 * string values of small messages read through the key cache: 19,104 B;
 * the key cache's cheaper hash in pairs of slots: 19,181 B; the
 * decoder's cold paths in modules of their own: 19,216 B.
 */
export const BUDGET_GZIP = 19225;
/** The main entry's bundle. */
export const FULL_CODEC = "msgpack.min.js";

const gzipSize = (bytes) => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;

/** Minified + gzip size of every .js bundle in dist/browser/. */
export function measureBundles() {
  if (!existsSync(join(BROWSER, FULL_CODEC))) {
    throw new Error(`dist/browser/${FULL_CODEC} is missing: run \`npm run build\` first`);
  }
  return readdirSync(BROWSER)
    .filter((name) => name.endsWith(".js"))
    .sort()
    .map((name) => {
      const bytes = readFileSync(join(BROWSER, name));
      return { bundle: `dist/browser/${name}`, minified: bytes.length, gzip: gzipSize(bytes) };
    });
}

async function minifiedBundle(stdin, resolveDir, platform = "browser") {
  const result = await build({
    stdin: { contents: stdin, resolveDir, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return result;
}

/**
 * Bytes each src/ module contributes to what a bundler keeps of the main
 * entry for `import { encode, decode }` (minified; gzip does not split by
 * module), largest first, each with its folder's total.
 */
export async function breakdown() {
  const result = await minifiedBundle(`export { encode, decode } from "./src/index.ts";`, ROOT, "neutral");
  const [output] = Object.values(result.metafile.outputs);
  const modules = Object.entries(output.inputs)
    .map(([path, info]) => ({ module: relative(ROOT, join(ROOT, path)), bytes: info.bytesInOutput }))
    .filter((m) => m.bytes > 0);
  const folderOf = (m) => m.module.split("/").slice(0, -1).join("/");
  const folders = new Map();
  for (const m of modules) folders.set(folderOf(m), (folders.get(folderOf(m)) ?? 0) + m.bytes);
  return modules.map((m) => ({ ...m, folder: folderOf(m), folderBytes: folders.get(folderOf(m)) })).sort((a, b) => b.folderBytes - a.folderBytes || b.bytes - a.bytes);
}

/** The label of an import of {@link IMPORTS}: "encode only", "encode + decode". */
const importLabel = (names) => (names.length === 1 ? `${names[0]} only` : names.join(" + "));

/**
 * The main entry as a bundler gives it to a page that imports the names
 * of each of {@link IMPORTS}, from `from` (src/index.ts, or the built
 * package's dist/index.js), built as dist/browser's bundles are (platform
 * neutral, minified ESM).
 */
export async function importSizes(from = "./src/index.ts") {
  const out = [];
  for (const { names } of IMPORTS) {
    const result = await minifiedBundle(`export { ${names.join(", ")} } from ${JSON.stringify(from)};`, ROOT, "neutral");
    const bytes = result.outputFiles[0].contents;
    out.push({ bundle: `main entry, ${importLabel(names)}`, minified: bytes.length, gzip: gzipSize(bytes) });
  }
  return out;
}

/**
 * What each of {@link MODULES} adds to a page: the gzip size of its import
 * minus that of the same names from the main entry alone, and the src/
 * modules that only it brings.
 */
export async function moduleSizes() {
  const out = [];
  for (const m of MODULES) {
    const [withModule, without] = await Promise.all([m.code, m.base].map((code) => minifiedBundle(code, ROOT, "neutral")));
    const gzip = gzipSize(withModule.outputFiles[0].contents);
    const baseGzip = gzipSize(without.outputFiles[0].contents);
    const inputs = (result) => Object.keys(Object.values(result.metafile.outputs)[0].inputs).map((p) => relative(ROOT, join(ROOT, p)));
    const before = new Set(inputs(without));
    out.push({ module: m.module, gzip, baseGzip, adds: gzip - baseGzip, ceiling: m.ceiling, ok: gzip - baseGzip <= m.ceiling, brings: inputs(withModule).filter((p) => !before.has(p)).sort() });
  }
  return out;
}

/** The peers' full encode + decode, minified the same way, for reference. */
export async function peers() {
  const cases = [
    { name: "@msgpack/msgpack", code: `export { encode, decode } from "@msgpack/msgpack";` },
    { name: "notepack.io", code: `export { encode, decode } from "notepack.io";` },
    { name: "msgpackr", code: `export { pack, unpack } from "msgpackr";` },
  ];
  const out = [];
  for (const c of cases) {
    try {
      // the compared libraries are test tools (test/package.json)
      const result = await minifiedBundle(c.code, join(ROOT, "test"));
      const bytes = result.outputFiles[0].contents;
      const version = JSON.parse(readFileSync(join(ROOT, "test/node_modules", c.name, "package.json"), "utf8")).version;
      out.push({ bundle: `${c.name}@${version}`, minified: bytes.length, gzip: gzipSize(bytes) });
    } catch (e) {
      out.push({ bundle: c.name, error: String(e.message ?? e).split("\n")[0] });
    }
  }
  return out;
}

const bytes = (n) => `${n.toLocaleString("en-US")} B`;

/** The core's gzip targets for the npm build's imports: `encode` + `decode` 14,000 B, `decode` alone 7,000 B. */
const GZIP_TARGETS = { "decode only": 7000, "encode + decode": 14000 };
const gzipTargets = (packageImports) => packageImports.flatMap((b) => Object.entries(GZIP_TARGETS).filter(([names]) => b.bundle.endsWith(names)).map(([, target]) => ({ bundle: b.bundle, actual: b.gzip, target })));

/** The budget line of one bundle: its ceiling and where it stands. */
function budgetOf(bundles, name, ceiling) {
  const b = bundles.find((x) => x.bundle.endsWith(`/${name}`));
  if (!b) throw new Error(`dist/browser/${name} is missing: run \`npm run build\` first`);
  return { bundle: b.bundle, gzip: ceiling, actual: b.gzip, ok: b.gzip <= ceiling };
}

async function main() {
  const mode = process.argv.includes("--json") ? "json" : process.argv.includes("--markdown") ? "markdown" : "text";
  const bundles = measureBundles();
  const imports = await importSizes();
  const importBudgets = imports.map((b, i) => ({ bundle: b.bundle, gzip: IMPORTS[i].ceiling, actual: b.gzip, ok: b.gzip <= IMPORTS[i].ceiling }));
  // the same imports from the built package (dist/index.js, what a bundler reads from npm), held to the same
  // ceilings and to the source's size plus NPM_SLACK_GZIP (see there)
  const packageImports = (await importSizes("./dist/index.js")).map((b) => ({ ...b, bundle: b.bundle.replace("main entry", "npm build") }));
  const packageBudgets = packageImports.map((b, i) => {
    const ceiling = Math.min(IMPORTS[i].ceiling, imports[i].gzip + NPM_SLACK_GZIP);
    return { bundle: b.bundle, gzip: ceiling, actual: b.gzip, ok: b.gzip <= ceiling };
  });
  const modules = await breakdown();
  const decodeOnly = (await minifiedBundle(`export { decode } from "./src/index.ts";`, ROOT, "neutral")).outputFiles[0].text;
  const decodeOnlyKeeps = DECODE_ONLY_LEAVES_OUT.filter((name) => decodeOnly.includes(name));
  const both = (await minifiedBundle(`export { encode, decode } from "./src/index.ts";`, ROOT, "neutral")).outputFiles[0].text;
  const encodeKeeps = ENCODE_ONLY_LEAVES_OUT.filter((name) => both.includes(name));
  const leaked = modules.filter((m) => MAIN_ENTRY_LEAVES_OUT.some((dir) => m.module.startsWith(dir)));
  const added = await moduleSizes();
  const moduleBudgets = added.map((m) => ({ bundle: `import ${m.module} (adds)`, gzip: m.ceiling, actual: m.adds, ok: m.ok }));
  const budgets = [budgetOf(bundles, FULL_CODEC, BUDGET_GZIP), ...importBudgets, ...packageBudgets, ...moduleBudgets];
  const report = { budget: budgets[0], imports: [...importBudgets, ...packageBudgets], importSizes: imports, packageImports, bundles, modules, leaked, decodeOnlyKeeps, encodeKeeps, added, peers: await peers(), targets: { jobs: jobLines(), gzip: gzipTargets(packageImports) } };

  if (mode === "json") {
    console.log(JSON.stringify(report, null, 2));
  } else if (mode === "markdown") {
    console.log("| bundle | minified | gzip |\n| --- | ---: | ---: |");
    for (const b of bundles) console.log(`| \`${b.bundle.replace("dist/browser/", "")}\` | ${bytes(b.minified)} | ${bytes(b.gzip)} |`);
    for (const [i, m] of imports.entries()) {
      const names = IMPORTS[i].names.map((n) => `\`${n}\``).join(" + ") + (IMPORTS[i].names.length === 1 ? " only" : "");
      console.log(`| ${names} from the main entry (what a bundler keeps) | ${bytes(m.minified)} | ${bytes(m.gzip)} |`);
    }
    for (const p of report.peers) if (!p.error) console.log(`| ${p.bundle} (encode + decode, for comparison) | ${bytes(p.minified)} | ${bytes(p.gzip)} |`);
    console.log("\nWhat each module adds to a page that imports it (gzip, beyond the same names from the main entry):\n");
    console.log("| module | adds | page total |\n| --- | ---: | ---: |");
    for (const m of added) console.log(`| \`@resizable/msgpack/${m.module}\` | ${bytes(m.adds)} | ${bytes(m.gzip)} |`);
    const total = report.modules.reduce((n, m) => n + m.bytes, 0);
    console.log(`\nWhat each module costs in \`import { encode, decode }\` (${bytes(total)} minified in all; gzip does not split by module):\n`);
    console.log("| folder | module | minified | share |\n| --- | --- | ---: | ---: |");
    let folder = "";
    for (const m of report.modules) {
      const first = m.folder !== folder;
      folder = m.folder;
      const name = m.module.slice(m.folder.length + 1);
      console.log(`| ${first ? `\`${m.folder}/\` (${bytes(m.folderBytes)})` : ""} | \`${name}\` | ${bytes(m.bytes)} | ${((100 * m.bytes) / total).toFixed(1)}% |`);
    }
  } else {
    console.log("bundle                                   minified       gzip");
    for (const b of [...bundles, ...imports, ...packageImports]) console.log(`${b.bundle.padEnd(40)} ${String(b.minified).padStart(8)} B ${String(b.gzip).padStart(8)} B`);
    for (const p of report.peers) {
      if (p.error) console.log(`${p.bundle.padEnd(40)} (could not bundle: ${p.error})`);
      else console.log(`${(p.bundle + " (peer)").padEnd(40)} ${String(p.minified).padStart(8)} B ${String(p.gzip).padStart(8)} B`);
    }
    console.log("\nwhat each module adds (gzip, beyond the same names from the main entry):");
    for (const m of added) console.log(`  ${m.module.padEnd(38)} ${String(m.adds).padStart(8)} B (${m.gzip} B in all; brings ${m.brings.join(", ")})`);
    console.log(`\nmodules of import { encode, decode } (minified bytes):`);
    for (const m of report.modules) console.log(`  ${m.module.padEnd(38)} ${String(m.bytes).padStart(8)} B`);
    console.log("");
    for (const b of budgets) {
      console.log(`budget: ${b.bundle} gzip ${b.actual} B of ${b.gzip} B${b.ok ? " -- ok" : " -- OVER BUDGET"}`);
    }
    // where the core is heading (reported, never failing): code lines per job, and the npm build's two imports
    console.log("");
    for (const line of describeJobs(report.targets.jobs)) console.log(line);
    for (const t of report.targets.gzip) console.log(`target: ${t.bundle} gzip ${t.actual} B of ${t.target} B${t.actual <= t.target ? " -- within" : ` -- over by ${t.actual - t.target} B`}`);
  }
  for (const name of decodeOnlyKeeps) {
    console.error(`bundle-size: import { decode } keeps ${name}, which only encoding pages need`);
    process.exitCode = 1;
  }
  for (const name of encodeKeeps) {
    console.error(`bundle-size: import { encode, decode } keeps ${name}, which only Encoder's users need`);
    process.exitCode = 1;
  }
  for (const m of leaked) {
    console.error(`bundle-size: import { encode, decode } keeps ${m.module}, which only its module should bring`);
    process.exitCode = 1;
  }
  for (const b of budgets) {
    if (b.ok) continue;
    console.error(`bundle-size: ${b.bundle} is ${b.actual} B gzip, over the ${b.gzip} B budget by ${b.actual - b.gzip} B`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
