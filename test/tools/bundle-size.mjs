// Bundle size report and budget (npm run size). Reads the browser bundles
// that `npm run build` wrote to dist/browser/, prints their minified and
// gzip sizes, the modules that make up the full codec (from an in-memory
// esbuild build with a metafile), and the same numbers for two peers built
// the same way. Exits 1 when a bundle passes its gzip ceiling: one for the
// mini entry (encode + decode with every format, timestamps and
// extensions) and one for the main entry, each today's size plus a little
// room, so that growth is a deliberate decision.
//
//   node test/tools/bundle-size.mjs            table for humans
//   node test/tools/bundle-size.mjs --json     one JSON object (used by tests)
//   node test/tools/bundle-size.mjs --markdown the README size table
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { gzipSync, constants } from "node:zlib";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BROWSER = join(ROOT, "dist/browser");

/**
 * The mini entry's ceiling, for both its ESM and its IIFE bundle: today's
 * size plus a little room. It held 4 KiB until the decoders and encoders
 * gained argument and option checks, depth carried through extensions,
 * stack exhaustion turned into errors, byte-array inputs, values read once
 * (CHANGED), @msgpack/msgpack's extension order and codec objects, and
 * error offsets through extensions (about 1.7 KiB together, measured piece
 * by piece in benchmarks/README.md). For scale, @msgpack/msgpack is about
 * 5.8 KiB and notepack.io about 2.6 KiB gzip.
 */
export const TARGET_GZIP = 6000;
/** The mini entry's bundles, held to {@link TARGET_GZIP}. */
export const MINI_CODECS = ["msgpack-mini.min.js", "msgpack-mini.iife.min.js"];
/**
 * The main entry's ceiling (msgpack.min.js, the main entry without stream
 * decoding): today's size plus a little room, so that growth is a
 * deliberate decision. On top of the formats it carries the speed and
 * memory machinery (resizable store, size estimate, JS UTF-8, key cache,
 * pooled results, the options cache) and the strict checks.
 */
export const BUDGET_GZIP = 15600;
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

async function minifiedBundle(stdin, resolveDir) {
  const result = await build({
    stdin: { contents: stdin, resolveDir, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return result;
}

/** Bytes each src/ module contributes to the minified full codec. */
export async function breakdown() {
  const result = await minifiedBundle(`export * from "./src/index.ts";`, ROOT);
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output.inputs)
    .map(([path, info]) => ({ module: relative(ROOT, join(ROOT, path)), bytes: info.bytesInOutput }))
    .filter((m) => m.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
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
      const result = await minifiedBundle(c.code, ROOT);
      const bytes = result.outputFiles[0].contents;
      const version = JSON.parse(readFileSync(join(ROOT, "node_modules", c.name, "package.json"), "utf8")).version;
      out.push({ bundle: `${c.name}@${version}`, minified: bytes.length, gzip: gzipSize(bytes) });
    } catch (e) {
      out.push({ bundle: c.name, error: String(e.message ?? e).split("\n")[0] });
    }
  }
  return out;
}

const bytes = (n) => `${n.toLocaleString("en-US")} B`;

/** The budget line of one bundle: its ceiling, the target, and where it stands. */
function budgetOf(bundles, name, ceiling) {
  const b = bundles.find((x) => x.bundle.endsWith(`/${name}`));
  if (!b) throw new Error(`dist/browser/${name} is missing: run \`npm run build\` first`);
  return { bundle: b.bundle, gzip: ceiling, target: TARGET_GZIP, actual: b.gzip, ok: b.gzip <= ceiling, targetMet: b.gzip <= TARGET_GZIP };
}

async function main() {
  const mode = process.argv.includes("--json") ? "json" : process.argv.includes("--markdown") ? "markdown" : "text";
  const bundles = measureBundles();
  const budgets = [budgetOf(bundles, FULL_CODEC, BUDGET_GZIP), ...MINI_CODECS.map((name) => budgetOf(bundles, name, TARGET_GZIP))];
  const report = { budget: budgets[0], mini: budgets.slice(1), bundles, modules: await breakdown(), peers: await peers() };

  if (mode === "json") {
    console.log(JSON.stringify(report, null, 2));
  } else if (mode === "markdown") {
    console.log("| bundle | minified | gzip |\n| --- | ---: | ---: |");
    for (const b of bundles) console.log(`| \`${b.bundle.replace("dist/browser/", "")}\` | ${bytes(b.minified)} | ${bytes(b.gzip)} |`);
    for (const p of report.peers) if (!p.error) console.log(`| ${p.bundle} (encode + decode, for comparison) | ${bytes(p.minified)} | ${bytes(p.gzip)} |`);
  } else {
    console.log("bundle                                   minified       gzip");
    for (const b of bundles) console.log(`${b.bundle.padEnd(40)} ${String(b.minified).padStart(8)} B ${String(b.gzip).padStart(8)} B`);
    for (const p of report.peers) {
      if (p.error) console.log(`${p.bundle.padEnd(40)} (could not bundle: ${p.error})`);
      else console.log(`${(p.bundle + " (peer)").padEnd(40)} ${String(p.minified).padStart(8)} B ${String(p.gzip).padStart(8)} B`);
    }
    console.log(`\nfull codec modules (minified bytes in ${FULL_CODEC}):`);
    for (const m of report.modules) console.log(`  ${m.module.padEnd(38)} ${String(m.bytes).padStart(8)} B`);
    console.log("");
    for (const b of budgets) {
      console.log(`budget: ${b.bundle} gzip ${b.actual} B of ${b.gzip} B${b.ok ? " -- ok" : " -- OVER BUDGET"}`);
    }
  }
  for (const b of budgets) {
    if (b.ok) continue;
    console.error(`bundle-size: ${b.bundle} is ${b.actual} B gzip, over the ${b.gzip} B budget by ${b.actual - b.gzip} B`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
