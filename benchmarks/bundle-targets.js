// Bundle targets: the package (dist/) bundled by esbuild at es2018, es2020
// and es2022, the three bundles loaded in one process and timed round-robin
// on a few data sets. A bundler whose target is below ES2022 rewrites `#`
// fields, class fields and `static {}` blocks into helper calls (Vite 6's
// default target, Babel and React Native do); this shows what that costs,
// as each target's speed relative to es2022.
//
//   npm run build && node benchmarks/bundle-targets.js [--quick] [--rounds=N] [FILTER...]
//
// Method
// - Each bundle is `export * from "dist/records.js"` (the main entry with the
//   records module), minified, written to a temporary folder and imported.
// - Every bundle encodes each data set first; the bytes must be equal, and
//   each bundle must decode them to the value the es2022 bundle decodes, or
//   the data set is not timed.
// - Each round times every bundle's encode, then every bundle's decode,
//   starting with a different bundle each round (timePerCall: batches of
//   about 20 ms, 5 with --quick). A ratio is es2022's median time over the
//   target's: 1 means as fast as es2022, below 1 slower.
// - Data sets are flattened (JSON round trip) first, so no bundle meets
//   ropes another one flattened.
//
// Needs esbuild (a devDependency) and node:fs, node:os, node:path: Node, and
// Bun or Deno with those.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consume, formatPlainTable, geomean, parseCli, pathFromUrl, printRuntimeInfo, timePerCall } from "./lib/round-robin.js";
import { apiRecords, asciiString, doubles, events, flatten, nestedObject, rpcMessage } from "./fixtures.js";

const args = parseCli({
  script: "bundle-targets.js",
  summary:
    "Encode and decode speed of the package bundled by esbuild at es2018 and es2020, relative to the same " +
    "bundle at es2022, in one process, round-robin, on a few data sets (a 125 B message to 2,000 records, " +
    "plain and as msgpackr records). Reads dist/: run npm run build first.",
  fullRun: "1-2 minutes on 2 cores",
  quickRun: "about 10 s (measured on 2 cores at load average 8; checks that the script runs, its numbers mean nothing)",
  deno: "--allow-read --allow-write --allow-env --allow-run",
  options: {
    quick: "small data sets, two rounds (what the tests run)",
    "rounds=N": "rounds per data set (default 9, --quick 2)",
    json: "also print the rows as one JSON line",
  },
  filter: "regular expressions: only data sets whose name matches one",
  examples: ["node benchmarks/bundle-targets.js", "node benchmarks/bundle-targets.js records"],
});
const QUICK = args.quick;
const ROUNDS = Number(args.options.rounds ?? (QUICK ? 2 : 9));
const TARGETS = ["es2022", "es2020", "es2018"];

const { build } = await import("esbuild");
const ROOT = join(pathFromUrl(import.meta.url), "..", "..");
const dir = mkdtempSync(join(tmpdir(), "bundle-targets-"));
/** @type {Record<string, any>} */
const bundles = {};
try {
  const entry = join(dir, "entry.mjs");
  writeFileSync(entry, `export * from ${JSON.stringify(join(ROOT, "dist", "records.js"))};\n`);
  for (const target of TARGETS) {
    const file = join(dir, `${target}.mjs`);
    await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", platform: "neutral", target, outfile: file, logLevel: "error" }) // at es2018, a warning for each bigint literal (they need no helper);
    bundles[target] = await import(new URL(`file://${file}`).href);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const RECORDS = { useRecords: true };
/** @type {[name: string, value: () => unknown, options?: object][]} */
const SETS = [
  ["rpc-125B", () => rpcMessage()],
  ["nested", () => nestedObject()],
  ["events", () => events(QUICK ? 50 : 1000)],
  ["api-2k", () => apiRecords(QUICK ? 100 : 2000)],
  ["api-2k-records", () => apiRecords(QUICK ? 100 : 2000), RECORDS],
  ["doubles-100k", () => doubles(QUICK ? 1000 : 100_000)],
  ["ascii-64k", () => asciiString(QUICK ? 1024 : 65_536)],
];

const hex = (/** @type {Uint8Array} */ b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const median = (/** @type {number[]} */ xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

/**
 * Times one data set on every bundle, round-robin: each target's speed
 * relative to es2022; null when the bundles disagree on bytes or values.
 * @param {string} name @param {() => unknown} make @param {object | undefined} options
 */
function measure(name, make, options) {
  const raw = make();
  const value = typeof raw === "string" ? raw : flatten(raw);
  const bytes = TARGETS.map((t) => bundles[t].encode(value, options));
  if (bytes.some((b) => hex(b) !== hex(bytes[0]))) return null;
  const expected = JSON.stringify(bundles.es2022.decode(bytes[0], options));
  if (TARGETS.some((t) => JSON.stringify(bundles[t].decode(bytes[0], options)) !== expected)) return null;
  /** @type {Record<string, { encode: number[], decode: number[] }>} */
  const times = Object.fromEntries(TARGETS.map((t) => [t, { encode: [], decode: [] }]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const op of /** @type {const} */ (["encode", "decode"])) {
      for (let k = 0; k < TARGETS.length; k++) {
        const t = TARGETS[(k + r) % TARGETS.length];
        const lib = bundles[t];
        const fn = op === "encode" ? () => consume(lib.encode(value, options)) : () => consume(lib.decode(bytes[0], options));
        times[t][op].push(timePerCall(fn, QUICK ? 5 : 20));
      }
    }
  }
  /** @type {Record<string, string | number>} */
  const row = { set: name };
  for (const t of TARGETS.slice(1)) {
    row[`${t} encode`] = median(times.es2022.encode) / median(times[t].encode);
    row[`${t} decode`] = median(times.es2022.decode) / median(times[t].decode);
  }
  return row;
}

printRuntimeInfo(`bundle targets: speed of the package bundled at ${TARGETS.slice(1).join(" and ")}, relative to es2022 (1 = as fast, below 1 = slower)`);
if (QUICK) console.log("--quick: tiny data sets and two rounds; the numbers mean nothing");
console.log("");
/** @type {Record<string, string | number>[]} */
const rows = [];
for (const [name, make, options] of SETS) {
  if (args.filter && !args.filter.test(name)) continue;
  const row = measure(name, make, options);
  if (row === null) console.log(`${name}: not timed, the bundles disagree on its bytes or its value`);
  else rows.push(row);
}
const f = (/** @type {unknown} */ x) => (typeof x === "number" ? x.toFixed(3) : String(x));
console.log(formatPlainTable(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k === "set" ? "data set" : `${k}: speed ×es2022`, f(v)])))));
if (rows.length > 0) {
  const means = Object.keys(rows[0]).filter((k) => k !== "set").map((k) => `${k} ${f(geomean(rows.map((r) => /** @type {number} */ (r[k]))))}`);
  console.log(`\ngeometric mean, speed ×es2022: ${means.join(", ")} (${rows.length} data sets)`);
}
if (args.json) console.log(JSON.stringify({ rows }));
