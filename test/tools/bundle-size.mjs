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
 * The mini entry's ceiling, for both its ESM and its IIFE bundle: its
 * measured size plus about 1% (6,872 B and 6,889 B gzip when set). The
 * mini entry is built on the main codec's format modules (kind.ts
 * classifies values, (forms.ts) writes them, timestamp.ts, extensions.ts)
 * and gives the main entry's bytes and error codes; it was 5,856 B before
 * that and cannot return to {@link MINI_TARGET_GZIP} without a second
 * copy of the format or dropping behaviour. Measured on the ESM bundle:
 * the shared writers (and Map entries read as the main encoder reads
 * them) cost about 480 B gzip over the private compact copy it had,
 * kind.ts about 50 B, the decoder's dispatch on forms.ts's first-byte
 * table (shared with the main decoder and the stream scanner) about 140 B
 * over its own arithmetic dispatch, the main entry's error codes for hostile
 * values (detached buffers, Proxies around Maps and Sets, lying sizes, bad
 * extension payloads) about 330 B; leaving out every encode option would
 * save about 360 B. Importing only `encode` or only `decode` from the mini
 * entry bundles about 4.4 KiB or 4.0 KiB ({@link miniParts}).
 */
export const MINI_CEILING_GZIP = 7000;
/** The mini entry's size goal, reported (targetMet) but not enforced: see {@link MINI_CEILING_GZIP}. */
export const MINI_TARGET_GZIP = 4096;
/** The mini entry's bundles, held to {@link MINI_CEILING_GZIP}. */
export const MINI_CODECS = ["msgpack-mini.min.js", "msgpack-mini.iife.min.js"];
/**
 * The main entry's ceiling (msgpack.min.js, the main entry without stream
 * decoding): today's size plus a little room, so that growth is a
 * deliberate decision. On top of the formats it carries the speed and
 * memory machinery (resizable store, size estimate, JS UTF-8, key cache,
 * pooled results, the options cache) and the strict checks. It was
 * 15,365 B before the encoder was split by concern and made to classify
 * values with kind.ts (shared with sizes, value paths, the stream encoder
 * and the mini entry): 15,614 B after. Writing pooled results straight
 * into their slab (5-11% faster pooled small messages on Node and Deno)
 * added about 230 B: 15,879 B. A UTF-8 loop of its own for property names
 * (records encoding 2.4x as fast on Node once non-ASCII text has been
 * seen) and float 64 array items read in the array loop (1e6 doubles
 * decoded 2.3x as fast on Deno) added about 125 B: 16,003 B; options read
 * once per direction and error paths from the walk: 16,136 B. msgpackr's
 * record extension (`useRecords` and `structures` on both sides: the
 * record tables, the declaration reader and writer, a record entry for
 * readValue and an object writer, their options and errors) added about
 * 2,830 B: 18,968 B; the ceiling rose by 2,850 B with it.
 */
export const BUDGET_GZIP = 19050;
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

/** Bytes each src/ module contributes to the minified full codec. */
export async function breakdown() {
  const result = await minifiedBundle(`export * from "./src/index.ts";`, ROOT);
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output.inputs)
    .map(([path, info]) => ({ module: relative(ROOT, join(ROOT, path)), bytes: info.bytesInOutput }))
    .filter((m) => m.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

/**
 * The mini entry as a bundler gives it to a page that imports one
 * direction only (`encode`, or `decode`), built as dist/browser's mini
 * bundle is (platform neutral, minified ESM).
 */
export async function miniParts() {
  const out = [];
  for (const name of ["encode", "decode"]) {
    const result = await minifiedBundle(`export { ${name} } from "./src/mini.ts";`, ROOT, "neutral");
    const bytes = result.outputFiles[0].contents;
    out.push({ bundle: `mini, ${name} only`, minified: bytes.length, gzip: gzipSize(bytes) });
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
  return { bundle: b.bundle, gzip: ceiling, target: MINI_TARGET_GZIP, actual: b.gzip, ok: b.gzip <= ceiling, targetMet: b.gzip <= MINI_TARGET_GZIP };
}

async function main() {
  const mode = process.argv.includes("--json") ? "json" : process.argv.includes("--markdown") ? "markdown" : "text";
  const bundles = measureBundles();
  const budgets = [budgetOf(bundles, FULL_CODEC, BUDGET_GZIP), ...MINI_CODECS.map((name) => budgetOf(bundles, name, MINI_CEILING_GZIP))];
  const report = { budget: budgets[0], mini: budgets.slice(1), miniParts: await miniParts(), bundles, modules: await breakdown(), peers: await peers() };

  if (mode === "json") {
    console.log(JSON.stringify(report, null, 2));
  } else if (mode === "markdown") {
    console.log("| bundle | minified | gzip |\n| --- | ---: | ---: |");
    for (const b of bundles) console.log(`| \`${b.bundle.replace("dist/browser/", "")}\` | ${bytes(b.minified)} | ${bytes(b.gzip)} |`);
    for (const m of report.miniParts) console.log(`| \`./mini\`, \`${m.bundle.split(", ")[1].split(" ")[0]}\` only (what a bundler keeps) | ${bytes(m.minified)} | ${bytes(m.gzip)} |`);
    for (const p of report.peers) if (!p.error) console.log(`| ${p.bundle} (encode + decode, for comparison) | ${bytes(p.minified)} | ${bytes(p.gzip)} |`);
  } else {
    console.log("bundle                                   minified       gzip");
    for (const b of [...bundles, ...report.miniParts]) console.log(`${b.bundle.padEnd(40)} ${String(b.minified).padStart(8)} B ${String(b.gzip).padStart(8)} B`);
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
