// A/B benchmark: two builds of this library in one process, on the peers
// benchmark's data sets, round-robin, so a change is measured against the
// code before it under the same load.
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   node benchmarks/ab.js --a=/tmp/before/dist --b=dist [--quick] [--rounds=9] [FILTER...]
//   bun benchmarks/ab.js ...      deno run --allow-read --allow-env benchmarks/ab.js ...
//
// Method
// - Both builds encode every data set first; their bytes must be equal, and
//   each must decode the other's bytes to the same value, or the data set is
//   not timed.
// - Each round times A's and B's encode, then their decode, the order of A
//   and B swapped every round (timePerCall: batches of about 20 ms). The
//   ratio is A's median time over B's: bigger is better for B, above 1 means
//   B is faster. Single ratios move a few percent between runs on a loaded
//   machine; the geometric means at the end move less.
// - Data sets built by concatenation are flattened (JSON round trip) first,
//   so neither build meets ropes the other one flattened.
//
// Dependency-free: runs as-is under node, bun and deno.

import { consume, formatPlainTable, geomean, parseCli, printRuntimeInfo, timePerCall } from "./lib/round-robin.js";
import { asciiString, blob, chatMessages, doubles, events, flatten, nestedObject, recordsOfSize, rpcMessage, smallInts, timeSeries, unicodeString, wideMap } from "./fixtures.js";

const args = parseCli({
  script: "ab.js",
  summary:
    "Encode and decode speed of build B relative to build A (two dist/ folders of this library, e.g. main and a " +
    "change), in one process, round-robin, on the peers benchmark's data sets (a 125 B message to a 1 MiB binary). " +
    "Both builds' bytes are compared before timing.",
  fullRun: "3-5 minutes on 2 cores",
  deno: "--allow-read --allow-env",
  options: {
    "a=DIR": "build A: a dist/ folder (default dist)",
    "b=DIR": "build B: a dist/ folder (default dist)",
    quick: "small data sets, three rounds (what the tests run)",
    "rounds=N": "rounds per data set (default 9, --quick 3)",
    json: "also print the rows as one JSON line",
  },
  filter: "regular expressions: only data sets whose name matches one",
  examples: ["node benchmarks/ab.js --a=/tmp/before/dist --b=dist", "node benchmarks/ab.js --a=/tmp/before/dist --b=dist 'records|rpc'"],
});
const QUICK = args.quick;
const ROUNDS = Number(args.options.rounds ?? (QUICK ? 3 : 9));
/** The main entry of the build in `dir` (absolute, or relative to the repository). @param {unknown} dir */
function entryOf(dir) {
  const d = String(dir ?? "dist").replace(/\/?$/, "/");
  return new URL(`${d}index.js`, d.startsWith("/") ? "file:///" : new URL("..", import.meta.url)).href;
}
const A = await import(entryOf(args.options.a));
const B = await import(entryOf(args.options.b));

const MiB = 1 << 20;
const sizeOf = (/** @type {unknown} */ v) => A.encodedSize(v);
/** @type {[name: string, build: () => unknown, streamed: boolean][]} */
const SETS = [
  ["rpc", () => rpcMessage(), false],
  ["events", () => events(QUICK ? 200 : 4000), true],
  ["nested-2k", () => nestedObject(), false],
  ["wide-map", () => wideMap(QUICK ? 300 : 2000), false],
  ["records-100k", () => recordsOfSize(QUICK ? 10_000 : 100_000, sizeOf), false],
  ["records-10m", () => recordsOfSize(QUICK ? 50_000 : 10_000_000, sizeOf), false],
  ["doubles-1e6", () => doubles(QUICK ? 1000 : 1e6), false],
  ["ints-1e6", () => smallInts(QUICK ? 1000 : 1e6), false],
  ["blob-1m", () => blob(QUICK ? 16 * 1024 : MiB), false],
  ["ascii-1m", () => asciiString(QUICK ? 16 * 1024 : MiB), false],
  ["unicode-1m", () => unicodeString(QUICK ? 16 * 1024 : MiB), false],
  ["timeseries", () => (QUICK ? timeSeries(10, 30) : timeSeries(100, 120)), false],
  ["chat", () => chatMessages(QUICK ? 200 : 2000), true],
];

const hex = (/** @type {Uint8Array} */ b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const median = (/** @type {number[]} */ xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

printRuntimeInfo("A/B: build B's speed relative to build A (above 1: B is faster)");
console.log(`A: ${args.options.a ?? "dist"}\nB: ${args.options.b ?? "dist"}\n`);
/** @type {{ set: string, encode: number, decode: number }[]} */
const rows = [];
for (const [name, build, streamed] of SETS) {
  if (args.filter && !args.filter.test(name)) continue;
  const raw = build();
  const value = raw instanceof Uint8Array || typeof raw === "string" ? raw : flatten(raw);
  const items = streamed ? /** @type {unknown[]} */ (value) : [value];
  const bytesA = items.map((v) => A.encode(v));
  const bytesB = items.map((v) => B.encode(v));
  if (bytesA.some((b, i) => hex(b) !== hex(bytesB[i]))) {
    console.log(`${name}: not timed, the builds write different bytes`);
    continue;
  }
  const enc = (/** @type {any} */ lib) => () => {
    for (const v of items) consume(lib.encode(v));
  };
  const dec = (/** @type {any} */ lib) => () => {
    for (const b of bytesA) consume(lib.decode(b));
  };
  const cases = { encA: enc(A), encB: enc(B), decA: dec(A), decB: dec(B) };
  /** @type {Record<string, number[]>} */
  const t = { encA: [], encB: [], decA: [], decB: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of r % 2 ? ["encB", "encA", "decB", "decA"] : ["encA", "encB", "decA", "decB"]) t[k].push(timePerCall(cases[/** @type {keyof typeof cases} */ (k)], QUICK ? 5 : 20));
  }
  rows.push({ set: name, encode: median(t.encA) / median(t.encB), decode: median(t.decA) / median(t.decB) });
}
const f = (/** @type {number} */ x) => x.toFixed(3);
console.log(formatPlainTable(rows.map((r) => ({ "data set": r.set, "encode: speed ×A": f(r.encode), "decode: speed ×A": f(r.decode) }))));
console.log(`\ngeometric mean, speed ×A: encode ${f(geomean(rows.map((r) => r.encode)))}, decode ${f(geomean(rows.map((r) => r.decode)))} (${rows.length} data sets)`);
if (args.json) console.log(JSON.stringify({ rows }));
