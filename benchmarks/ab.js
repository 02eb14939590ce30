// A/B benchmark: two builds of this library in one process, on the peers
// benchmark's data sets, round-robin, so a change is measured against the
// code before it under the same load.
//
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   node benchmarks/ab.js --a=/tmp/before/dist --b=dist [--quick] [--rounds=9] [FILTER...]
//   node benchmarks/ab.js --a=/tmp/before/dist --b=dist --processes=3   (each data set in 3 fresh processes)
//   bun benchmarks/ab.js ...      deno run --allow-read --allow-env --allow-run benchmarks/ab.js ...
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
// - The build that sees a data set second can run slower on it (the
//   events set's encode: two copies of one build measured 0.76-0.80 with A
//   first, 1.05 with B first). --processes=N times each data set in N
//   fresh processes, half of them loading, checking and timing B first,
//   and reports the geometric mean of their ratios, which cancels the order.
// - Data sets built by concatenation are flattened (JSON round trip) first,
//   so neither build meets ropes the other one flattened.
//
// Dependency-free: runs as-is under node, bun and deno.

import { canSpawn, consume, exit, formatPlainTable, geomean, parseCli, pathFromUrl, printRuntimeInfo, receiveFromChild, sendToParent, spawnSelf, timePerCall } from "./lib/round-robin.js";
import { asciiString, blob, chatMessages, doubles, events, flatten, nestedObject, recordsOfSize, rpcMessage, smallInts, timeSeries, unicodeString, wideMap } from "./fixtures.js";

const args = parseCli({
  script: "ab.js",
  summary:
    "Encode and decode speed of build B relative to build A (two dist/ folders of this library, e.g. main and a " +
    "change), in one process, round-robin, on the peers benchmark's data sets (a 125 B message to a 1 MiB binary). " +
    "Both builds' bytes are compared before timing.",
  fullRun: "3-5 minutes on 2 cores (times N with --processes=N)",
  quickRun: "about 12 s (measured on 2 cores at load average 10-12, shared with other jobs)",
  deno: "--allow-read --allow-env --allow-run",
  options: {
    "a=DIR": "build A: a dist/ folder (default dist)",
    "b=DIR": "build B: a dist/ folder (default dist)",
    quick: "small data sets, three rounds (what the tests run)",
    "rounds=N": "rounds per data set (default 9, --quick 3)",
    "processes=N": "time each data set in N fresh processes (rounded up to even), half of them loading B first, and report the geometric mean of their ratios (default 1: all in this process)",
    "first=WHICH": "a or b: the build this process loads, checks and times first (default a; --processes alternates it)",
    json: "also print the rows as one JSON line",
  },
  filter: "regular expressions: only data sets whose name matches one",
  examples: ["node benchmarks/ab.js --a=/tmp/before/dist --b=dist --processes=3", "node benchmarks/ab.js --a=/tmp/before/dist --b=dist 'records|rpc'"],
});
const QUICK = args.quick;
const ROUNDS = Number(args.options.rounds ?? (QUICK ? 3 : 9));
/** The main entry of the build in `dir` (absolute, or relative to the repository). @param {unknown} dir */
function entryOf(dir) {
  const d = String(dir ?? "dist").replace(/\/?$/, "/");
  return new URL(`${d}index.js`, d.startsWith("/") ? "file:///" : new URL("..", import.meta.url)).href;
}
// the build that sees the data second can run slower on it (the events set's encode: 0.76-0.80 for two
// copies of one build), so --first=b loads, checks and times B first, and --processes alternates it
const bFirst = args.options.first === "b";
const B0 = bFirst ? await import(entryOf(args.options.b)) : null;
const A = await import(entryOf(args.options.a));
const B = B0 ?? (await import(entryOf(args.options.b)));

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

/**
 * Times one data set: A's and B's encode and decode, round-robin; null
 * when the builds write different bytes.
 * @param {string} name @param {() => unknown} build @param {boolean} streamed
 */
function measure(name, build, streamed) {
  const raw = build();
  const value = raw instanceof Uint8Array || typeof raw === "string" ? raw : flatten(raw);
  const items = streamed ? /** @type {unknown[]} */ (value) : [value];
  // the build that comes first here (--first) is also the first to see the data and to be timed
  const bytesB0 = bFirst ? items.map((v) => B.encode(v)) : null;
  const bytesA = items.map((v) => A.encode(v));
  const bytesB = bytesB0 ?? items.map((v) => B.encode(v));
  if (bytesA.some((b, i) => hex(b) !== hex(bytesB[i]))) return null;
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
    for (const k of (r % 2 === 1) !== bFirst ? ["encB", "encA", "decB", "decA"] : ["encA", "encB", "decA", "decB"]) t[k].push(timePerCall(cases[/** @type {keyof typeof cases} */ (k)], QUICK ? 5 : 20));
  }
  return { set: name, encode: median(t.encA) / median(t.encB), decode: median(t.decA) / median(t.decB) };
}

const asked = Number(args.options.processes ?? 1);
const PROCESSES = asked > 1 ? asked + (asked % 2) : 1;
if (args.child) {
  // a fresh process for one data set (--processes)
  const [name, build, streamed] = SETS.find(([n]) => n === args.child) ?? [];
  if (!name || !build) throw new Error(`ab.js: no data set ${args.child}`);
  sendToParent(measure(name, build, Boolean(streamed)));
  exit(0);
}
const isolated = PROCESSES > 1 && (await canSpawn());
printRuntimeInfo("A/B: build B's speed relative to build A (above 1: B is faster)");
console.log(`A: ${args.options.a ?? "dist"}\nB: ${args.options.b ?? "dist"}`);
if (isolated) console.log(`each data set timed in ${PROCESSES} fresh processes, half loading B first: the geometric mean of their ratios`);
else if (PROCESSES > 1) console.log("--processes needs subprocesses (deno: --allow-run --allow-env): every data set timed in this process");
console.log("");
/** @type {{ set: string, encode: number, decode: number }[]} */
const rows = [];
const forward = Object.entries(args.options).filter(([k]) => k !== "processes" && k !== "first").map(([k, v]) => (v === true ? `--${k}` : `--${k}=${v}`));
for (const [name, build, streamed] of SETS) {
  if (args.filter && !args.filter.test(name)) continue;
  if (!isolated) {
    const row = measure(name, build, streamed);
    if (row === null) console.log(`${name}: not timed, the builds write different bytes`);
    else rows.push(row);
    continue;
  }
  /** @type {{ set: string, encode: number, decode: number }[]} */
  const runs = [];
  for (let i = 0; i < PROCESSES; i++) {
    const out = await spawnSelf(pathFromUrl(import.meta.url), [`--child=${name}`, `--first=${i % 2 ? "b" : "a"}`, ...(QUICK ? ["--quick"] : []), ...forward]);
    const row = receiveFromChild(out);
    if (row === null) break;
    runs.push(row);
  }
  if (runs.length === 0) console.log(`${name}: not timed, the builds write different bytes`);
  else rows.push({ set: name, encode: geomean(runs.map((r) => r.encode)), decode: geomean(runs.map((r) => r.decode)) });
}
const f = (/** @type {number} */ x) => x.toFixed(3);
console.log(formatPlainTable(rows.map((r) => ({ "data set": r.set, "encode: speed ×A": f(r.encode), "decode: speed ×A": f(r.decode) }))));
console.log(`\ngeometric mean, speed ×A: encode ${f(geomean(rows.map((r) => r.encode)))}, decode ${f(geomean(rows.map((r) => r.decode)))} (${rows.length} data sets)`);
if (args.json) console.log(JSON.stringify({ rows }));
