// Peers benchmark (tinybench): encode and decode MB/s of this library,
// msgpackr, @msgpack/msgpack, notepack.io, msgpack-lite and JSON
// (stringify + TextEncoder, TextDecoder + parse) on seeded data sets.
//
//   node benchmarks/peers.js [--quick] [--write] [--json] [--rounds=3] [FILTER...]
//   test/node_modules/node24/bin/node benchmarks/peers.js --write   (Node 24 and 26 from npm: test/package.json)
//   bun benchmarks/peers.js
//   deno run -A benchmarks/peers.js     (npm packages resolve from node_modules via package.json)
//   node benchmarks/peers.js --summary [--readme]
//       cross-runtime tables (results/peers-summary.md) and results/peers.svg from
//       results/peers-{node20,node24,node26,bun,deno}.json; --readme also rewrites README.md's speed table
//
// Runs are saved per runtime and, for Node, per major version (peers-node24.json):
// V8 changes between Node majors move single cells by 2x and more (JSON.stringify,
// TextEncoder#encodeInto), so the runtime users run is measured, not Node in general.
//
// Method
// - Before timing, every library's round trip is checked on every data set
//   (decode(encode(x)) deep-equals x, byte for byte for binaries, Object.is
//   for numbers), and its bytes are decoded by @msgpack/msgpack as the
//   reference to check they are standard MessagePack. A library that fails
//   is not timed on that data set; the reason is printed and reported.
// - Each (data set, op) runs `rounds` rounds of three tinybench runs each
//   (one with --quick); each run adds the libraries in an order rotated by
//   one, and samples are pooled, so no library is always first or last and
//   no library's samples all come from one stretch of time. One tinybench
//   call runs the op k times (k calibrated so a call lasts >= ~50 µs, far
//   above the timer's resolution, from three batch timings in a row);
//   times are per op. The report keeps k (`reps`) and each run's p50
//   (`runP50s`): when those disagree, so may runs of the benchmark.
// - MB/s = the size of the data set's MessagePack encoding by this library
//   (the same numerator for every library, JSON included) / p50 time per op,
//   so MB/s ratios are speed ratios.
// - Decode input is each library's own encoding of the data set.
// - Every ratio is a speed ratio, bigger is better: ×msgpackr = this row's
//   MB/s / msgpackr's (above 1: faster than msgpackr). The options-inline
//   row is compared with the options-hoisted row only (the peers have no
//   `sortKeys` and no decode depth limit, so a ratio to them would not
//   compare like with like). Every run ends with the geometric means of
//   this library's ratios, as `--summary` gives them from the saved runs.
//
// Peer libraries are devDependencies; this script is not dependency-free.

import { Bench } from "tinybench";
import { isNativeAccelerationEnabled, Packr, pack as msgpackrPack, unpack as msgpackrUnpack, Unpackr } from "msgpackr";
import { Decoder as MMDecoder, Encoder as MMEncoder } from "@msgpack/msgpack";
import notepack from "notepack.io";
import msgpackLite from "msgpack-lite";
import { Buffer } from "node:buffer";
import { consume, exit, formatPlainTable, geomean, parseCli, percentile, printRuntimeInfo, runtimeKey, timePerCall } from "./lib/round-robin.js";
import { apiRecords, asciiString, blob, chatMessages, doubles, events, nestedObject, recordsOfSize, rpcMessage, smallInts, timeSeries, unicodeString, wideMap } from "./fixtures.js";
import { describeLoad, emitReport, formatSize, loadLibrary, machine, mdTable, narrowTables, readResult, resultsUrl, sig3, useResultsDir, writeResult } from "./report.js";
import { RUNTIME_COLORS, barChartSvg } from "./plot.js";

const args = parseCli({
  script: "peers.js",
  summary:
    "Encode and decode speed (MB/s, tinybench) of this library, msgpackr, @msgpack/msgpack, " +
    "notepack.io, msgpack-lite and JSON on seeded data sets from a 125 B message to a 16 MiB binary; every round trip " +
    "is checked before it is timed. Needs the library built (npm run build).",
  fullRun: "5-7 minutes per runtime on 2 cores",
  quickRun: "about 46 s (measured on 2 cores at load average 10-12, shared with other jobs)",
  deno: "-A",
  options: {
    quick: "small data sets, one round (what the tests run)",
    "rounds=N": "rounds per data set and operation, each of three tinybench runs (one with --quick), samples pooled (default 3, --quick 1)",
    write: "also write results/peers-<runtime>.{json,md} (<runtime>: node24, bun, deno...), and (full runs) redraw results/peers.svg from the runs saved",
    json: "also print the report as one JSON line",
    render: "rewrite results/peers-<runtime>.md from the results/peers-*.json files, without running anything",
    summary:
      "rewrite results/peers-summary.md (the cross-runtime tables) and results/peers.svg (the chart) from results/peers-{node20,node24,node26,bun,deno}.json, without running anything",
    readme: "with --summary: also rewrite the speed table of README.md (between its peers-table markers) from the saved runs",
    "results=DIR": "read and write the results files in DIR instead of benchmarks/results (the tests redraw from a copy)",
    wide: "print the Markdown tables wider than 120 columns too (they are always in the files --write saves)",
  },
  filter: "regular expressions on data set names, e.g. 'rpc|records'",
  examples: [
    "node benchmarks/peers.js --quick",
    "node benchmarks/peers.js --rounds=5 --write 'rpc|records'",
    "test/node_modules/node24/bin/node benchmarks/peers.js --write   (npm run bench:peers:node24)",
    "node benchmarks/peers.js --summary --readme",
  ],
});
const QUICK = args.quick;
const ROUNDS = Number(args.options.rounds ?? (QUICK ? 1 : 3));
const MiB = 1024 * 1024;

const lib = await loadLibrary();
const mmEncoder = new MMEncoder();
const mmDecoder = new MMDecoder();
const reference = new MMDecoder();
const te = new TextEncoder();
const td = new TextDecoder();

/** @typedef {{ name: string, encode: (v: any) => Uint8Array, decode: (b: Uint8Array) => unknown, msgpack: boolean }} Library */
/** @type {Library[]} */
const LIBRARIES = [
  { name: "@resizable/msgpack", encode: (v) => lib.encode(v), decode: (b) => lib.decode(b), msgpack: true },
  { name: "msgpackr", encode: (v) => msgpackrPack(v), decode: (b) => msgpackrUnpack(b), msgpack: true },
  { name: "@msgpack/msgpack", encode: (v) => mmEncoder.encode(v), decode: (b) => mmDecoder.decode(b), msgpack: true },
  { name: "notepack.io", encode: (v) => notepack.encode(v), decode: (b) => notepack.decode(b), msgpack: true },
  { name: "msgpack-lite", encode: (v) => msgpackLite.encode(v), decode: (b) => msgpackLite.decode(b), msgpack: true },
  { name: "JSON", encode: (v) => te.encode(JSON.stringify(v)), decode: (b) => JSON.parse(td.decode(b)), msgpack: false },
];
const OURS = LIBRARIES[0].name;
/** Extra decode row on data sets with binaries: this library with `binaryAsView: true` (no copy, like msgpackr and notepack.io). */
const VIEWS = "@resizable/msgpack (binaryAsView)";
/** Extra encode row on data sets that encode to 4 KiB or less: this library with `poolResults: true` (shared slabs, like msgpackr). */
const POOLED = "@resizable/msgpack (poolResults)";
/** Reference rows, not libraries: the platform's bulk copy of the same bytes, and its UTF-8 encoder on the same string, into reused buffers. */
const SET_REF = "reference: Uint8Array#set of the bytes";
const ENCODE_INTO_REF = "reference: TextEncoder#encodeInto of the string";
/** Reference row on data sets of small messages: only the allocation an owned result costs, a copy of each message's bytes into an `ArrayBuffer` of its own. */
const OWN_BUFFER_REF = "reference: Uint8Array#slice of each result";
/** Extra rows on data sets that encode to 4 KiB or less: options passed as a new literal on every call, against the same options in one object passed every time. */
const INLINE = "@resizable/msgpack (options inline)";
const HOISTED = "@resizable/msgpack (options hoisted)";
/** The options those rows pass, per op, as their labels name them (the report keeps the keys above). */
const ROW_OPTIONS = { encode: "{ sortKeys: true }", decode: "{ maxDepth: 100 }" };
/** Extra rows on record-shaped data sets: msgpackr's record extension, this library with `useRecords: true` against msgpackr's default `new Packr()` / `new Unpackr()`. */
const RECORDS = "@resizable/msgpack (useRecords)";
const MSGPACKR_RECORDS = "msgpackr (records: new Packr())";
/** Decode row beside it: this library's records without generated code (`compileRecordReaders: false`: what runs where `new Function` is refused). */
const RECORDS_NO_CODEGEN = "@resizable/msgpack (useRecords, compileRecordReaders: false)";
/** The data sets that get the records rows. */
const RECORD_SETS = /^(records-|nested-|events)/;
const EXTRAS = [VIEWS, POOLED, INLINE, HOISTED, RECORDS, RECORDS_NO_CODEGEN, MSGPACKR_RECORDS, SET_REF, ENCODE_INTO_REF, OWN_BUFFER_REF];
/** What each extra row means, printed under the tables where it appears. */
const EXTRA_NOTES = {
  [VIEWS]:
    "Decoding a binary into a view of the input (msgpackr, @msgpack/msgpack, notepack.io, and this library with `binaryAsView: true`) takes the same short time whatever the size, so its \"MB/s\" only says \"no copy\"; this library and msgpack-lite copy by default.",
  [POOLED]: "`poolResults: true` returns results of up to 4 KiB as views into a shared slab, as msgpackr does by default; by default every result has an `ArrayBuffer` of its own.",
  [INLINE]:
    "Options written inline, a new object on every call: `encode(v, { sortKeys: true })`, `decode(b, { maxDepth: 100 })`; compared with the same options hoisted only (msgpackr and the other peers have no `sortKeys` and no decode depth limit, so a ratio to them would not compare like with like).",
  [HOISTED]: "The same options in one object made once and passed on every call: the row the inline options are compared with.",
  [RECORDS]: "Records (msgpackr's extension: each object's keys written once per shape): this library with `useRecords: true`. MB/s keeps the plain encoding's size as numerator, so ratios are speed ratios; each row's own encoded size follows it.",
  [RECORDS_NO_CODEGEN]:
    "The same records decoded without generated code (`compileRecordReaders: false`): what runs under a Content Security Policy without 'unsafe-eval', where `new Function` is refused.",
  [MSGPACKR_RECORDS]: "msgpackr's default `new Packr()` / `new Unpackr()`, which use records.",
  [SET_REF]: "Reference: `Uint8Array.prototype.set` copying the binary into a reused buffer, the floor for any encoder that copies it once.",
  [ENCODE_INTO_REF]: "Reference: `TextEncoder.prototype.encodeInto` of the string into a reused buffer, the floor for encoding it with the platform's UTF-8 encoder.",
  [OWN_BUFFER_REF]:
    "Reference: `Uint8Array.prototype.slice` of each message's encoded bytes out of one buffer, nothing else: what a result with an `ArrayBuffer` of its own costs to allocate (this library's default), which msgpackr's views of its reused buffer do not pay.",
};
/** The rows every ratio column compares with: the fastest MessagePack peer, the reference implementation, and JSON (what users pick instead). */
const RATIO_TO = ["msgpackr", "@msgpack/msgpack", "JSON"];
/** The JSON row: `JSON.stringify` + `TextEncoder`, `TextDecoder` + `JSON.parse`. */
const JSON_ROW = "JSON";
/** The saved runs, in the order of the summary's columns: results/peers-<runtime>.json. */
export const RUNTIMES = ["node20", "node24", "node26", "bun", "deno"];
/** The run the README's speed table quotes: the Node LTS of the day. */
const HEADLINE = "node24";
/** "Node 24", "Bun", "Deno": a saved run's runtime as the tables name it. @param {string} rt */
function runtimeLabel(rt) {
  const m = /^node(\d+)$/.exec(rt);
  return m ? `Node ${m[1]}` : rt[0].toUpperCase() + rt.slice(1);
}
/** Rows with options the peers do not have: no ratio to the peers; the inline row is compared with the hoisted one. */
const OWN_OPTIONS = [INLINE, HOISTED];

/**
 * Data sets: name, description, build. Quick mode uses small versions of the
 * same shapes. A `stream` data set builds an array of messages, and one op
 * encodes (decodes) each message on its own, in turn: its size is the sum of
 * the messages' sizes, and its time is that of the whole stream.
 */
const sizeOf = (/** @type {unknown} */ v) => lib.encodedSize(v);
/** @type {{ name: string, what: string, build: () => unknown, stream?: boolean }[]} */
const DATASETS = [
  { name: "rpc", what: "~100 B JSON-RPC message", build: () => rpcMessage() },
  {
    name: "events",
    what: "4000 small log/metric/trace events (80-170 B, some nested), each encoded and decoded as its own message",
    build: () => events(QUICK ? 500 : 4000),
    stream: true,
  },
  { name: "nested-2k", what: "~2 KB nested object (API response)", build: () => nestedObject() },
  {
    name: "wide-map",
    what: "one map of 2000 keys (numeric-looking, non-ASCII) over values of every kind (~47 KB)",
    build: () => wideMap(QUICK ? 500 : 2000),
  },
  { name: "records-api-2k", what: "2000 API-like records { id, name, email, active, score, tags, addr: { city, zip } } (~170 kB)", build: () => apiRecords(QUICK ? 200 : 2000) },
  { name: "records-100k", what: "~100 KB record array", build: () => recordsOfSize(QUICK ? 10_000 : 100_000, sizeOf) },
  { name: "records-10m", what: "~10 MB record array", build: () => recordsOfSize(QUICK ? 100_000 : 10_000_000, sizeOf) },
  { name: "doubles-1e6", what: "1e6 doubles (array)", build: () => doubles(QUICK ? 1000 : 1e6) },
  { name: "ints-1e6", what: "1e6 small integers -1000..1000 (array)", build: () => smallInts(QUICK ? 1000 : 1e6) },
  { name: "blob-1m", what: "1 MiB binary (Uint8Array)", build: () => blob(QUICK ? 16 * 1024 : MiB) },
  { name: "blob-16m", what: "16 MiB binary (Uint8Array)", build: () => blob(QUICK ? 64 * 1024 : 16 * MiB) },
  { name: "ascii-1m", what: "1 MiB ASCII string", build: () => asciiString(QUICK ? 16 * 1024 : MiB) },
  { name: "unicode-1m", what: "~1 MiB CJK/kana/Hangul/emoji string (UTF-8)", build: () => unicodeString(QUICK ? 16 * 1024 : MiB) },
  {
    name: "timeseries",
    what: "a batch of 100 time series of 120 [ms timestamp past 2^32, value] pairs each, with small tag maps",
    build: () => (QUICK ? timeSeries(10, 30) : timeSeries(100, 120)),
  },
  {
    name: "chat",
    what: "2000 chat messages (65-245 B, ~140 B on average; text heavy in accented, CJK and emoji characters), each encoded and decoded as its own message",
    build: () => chatMessages(QUICK ? 300 : 2000),
    stream: true,
  },
];

// ---------------------------------------------------------------------------
// Faithfulness

/**
 * First difference between `actual` and `expected`, or null if equal.
 * Numbers by Object.is; binaries (any view) byte by byte; arrays and plain
 * objects structurally (same keys).
 * @param {any} actual @param {any} expected @param {string} [path]
 * @returns {string | null}
 */
export function difference(actual, expected, path = "$") {
  if (Object.is(actual, expected)) return null;
  if (ArrayBuffer.isView(expected)) {
    if (!ArrayBuffer.isView(actual)) return `${path}: binary became ${describe(actual)}`;
    const a = new Uint8Array(actual.buffer, actual.byteOffset, actual.byteLength);
    const e = new Uint8Array(expected.buffer, expected.byteOffset, expected.byteLength);
    if (a.length !== e.length) return `${path}: ${a.length} bytes instead of ${e.length}`;
    for (let i = 0; i < e.length; i++) if (a[i] !== e[i]) return `${path}[${i}]: byte ${a[i]} instead of ${e[i]}`;
    return null;
  }
  if (typeof expected !== "object" || expected === null || typeof actual !== "object" || actual === null) {
    return `${path}: ${describe(actual)} instead of ${describe(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: array became ${describe(actual)}`;
    if (actual.length !== expected.length) return `${path}: length ${actual.length} instead of ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = difference(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const ek = Object.keys(expected), ak = Object.keys(actual);
  if (ak.length !== ek.length) return `${path}: ${ak.length} keys instead of ${ek.length}`;
  for (const k of ek) {
    if (!Object.prototype.hasOwnProperty.call(actual, k)) return `${path}: key ${k} missing`;
    const d = difference(actual[k], expected[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/** @param {unknown} v */
function describe(v) {
  if (typeof v === "string") return v.length > 24 ? `string(${v.length})` : JSON.stringify(v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return `${typeof v} ${String(v)}`;
  if (v === null) return "null";
  if (Array.isArray(v)) return `array(${v.length})`;
  if (typeof v === "object") return v.constructor?.name ?? "object";
  return typeof v;
}

/**
 * Checks one library on each message of a data set (one value, or a
 * stream's messages): what `check` returns, for all of them. `size` is the
 * sum of the encodings' sizes, `largest` the largest one.
 * @param {Library} l @param {unknown[]} messages
 * @returns {{ ok: true, inputs: unknown[], encoded: Uint8Array[], size: number, largest: number, note: string } | { ok: false, reason: string }}
 */
function checkEach(l, messages) {
  const inputs = [], encoded = [];
  let size = 0, largest = 0, note = "";
  for (let i = 0; i < messages.length; i++) {
    const c = check(l, messages[i]);
    if (!c.ok) return messages.length === 1 ? c : { ok: false, reason: `message ${i}: ${c.reason}` };
    inputs.push(c.input);
    encoded.push(c.encoded);
    size += c.encoded.length;
    largest = Math.max(largest, c.encoded.length);
    note ||= c.note;
  }
  return { ok: true, inputs, encoded, size, largest, note };
}

/**
 * One op over a data set's messages: `f` of its one value, or `f` of each
 * message in turn (a stream), returning the last result.
 * @template T @param {T[]} list @param {(x: T) => unknown} f @returns {() => unknown}
 */
function each(list, f) {
  if (list.length === 1) {
    const x = list[0];
    return () => f(x);
  }
  return () => {
    let r;
    for (let i = 0; i < list.length; i++) r = f(list[i]);
    return r;
  };
}

/**
 * FNV-1a (32-bit, hex) of the bytes of every message in turn: the same data
 * set gives the same digest on every runtime, which the report records.
 * @param {Uint8Array[]} list
 */
function fingerprint(list) {
  let h = 0x811c9dc5;
  for (const bytes of list) for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Whether a value is or holds (in arrays and plain objects) a binary. @param {unknown} v @returns {boolean} */
function hasBinary(v) {
  if (ArrayBuffer.isView(v)) return true;
  if (typeof v !== "object" || v === null) return false;
  return (Array.isArray(v) ? v : Object.values(v)).some(hasBinary);
}

/**
 * Checks one library on one value. Returns the input to time it with, its
 * encoding, and a note, or a failure.
 * @param {Library} l @param {unknown} value
 * @returns {{ ok: true, input: unknown, encoded: Uint8Array, note: string } | { ok: false, reason: string }}
 */
function check(l, value) {
  /** @param {unknown} input */
  const attempt = (input) => {
    let encoded, decoded;
    try {
      encoded = l.encode(input);
    } catch (e) {
      return { ok: /** @type {const} */ (false), reason: `encode throws: ${String(/** @type {any} */ (e)?.message ?? e).slice(0, 120)}` };
    }
    try {
      decoded = l.decode(encoded);
    } catch (e) {
      return { ok: /** @type {const} */ (false), reason: `decode throws: ${String(/** @type {any} */ (e)?.message ?? e).slice(0, 120)}` };
    }
    const d = difference(decoded, value);
    if (d) return { ok: /** @type {const} */ (false), reason: `round trip differs at ${d}` };
    if (l.msgpack) {
      let standard;
      try {
        standard = reference.decode(encoded);
      } catch (e) {
        return { ok: /** @type {const} */ (false), reason: `not standard MessagePack (@msgpack/msgpack cannot decode it: ${String(/** @type {any} */ (e)?.message ?? e).slice(0, 80)})` };
      }
      const d2 = difference(standard, value);
      if (d2) return { ok: /** @type {const} */ (false), reason: `its bytes, decoded by @msgpack/msgpack, differ at ${d2}` };
    }
    // a private copy: msgpackr and others return views of a buffer they write on
    const copy = new Uint8Array(/** @type {Uint8Array} */ (encoded));
    const stable = Buffer.isBuffer(encoded) ? Buffer.from(copy.buffer) : copy;
    if (difference(l.decode(stable), value)) return { ok: /** @type {const} */ (false), reason: "decoding a copy of its bytes differs" };
    return { ok: /** @type {const} */ (true), input, encoded: stable, note: "" };
  };
  const first = attempt(value);
  if (first.ok || !(value instanceof Uint8Array) || value instanceof Buffer) return first;
  // a library written for Node may need a Buffer: give it a zero-copy one and say so
  const second = attempt(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  if (second.ok) return { ...second, note: `needs a Buffer (a plain Uint8Array: ${first.reason})` };
  return first;
}

// ---------------------------------------------------------------------------
// Timing

/**
 * Calls per tinybench sample, so each sample lasts >= targetMs: warm the op
 * up first (a cold first call would make one call look long enough), then
 * time batches of growing size until three in a row last 10 ms, and divide by
 * the shortest (see timePerCall). One timing alone is not enough: a process
 * descheduled or collecting garbage during a short batch made a 0.5 µs op
 * look 50x slower, and it was then timed 2 calls per sample instead of 100,
 * each sample carrying tinybench's own ~40-90 ns.
 * @param {() => unknown} op @param {number} targetMs
 */
function repsFor(op, targetMs) {
  const warm = performance.now();
  for (let i = 0; i < 1000 && performance.now() - warm < 20; i++) consume(op());
  return Math.max(1, Math.ceil(targetMs / timePerCall(op, 10)));
}

/** tinybench options by data size. @param {number} bytes */
function benchOptions(bytes) {
  if (QUICK) return { time: 15, iterations: 3, warmupTime: 5, warmupIterations: 1 };
  if (bytes < 1e6) return { time: 300, iterations: 10, warmupTime: 100, warmupIterations: 5 };
  return { time: 500, iterations: 5, warmupTime: 150, warmupIterations: 2 };
}

/**
 * Each round is split into this many tinybench runs of a third of its time,
 * the libraries rotated again in each: tinybench times one library's samples
 * in one block, so a block that meets other work on the machine (or a GC
 * of the others' garbage) slows one library alone; shorter blocks spread
 * that over all of them. Only the first run of a data set warms up fully.
 */
const SLICES = QUICK ? 1 : 3;

/**
 * Times one op of several libraries with tinybench, `ROUNDS` times (each in
 * SLICES runs) in rotated order.
 * @param {{ name: string, op: () => unknown }[]} tasks @param {number} bytes
 * @returns {{ samples: Map<string, number[]>, reps: Map<string, number>, runs: Map<string, number[]> }} ms per op samples per
 *   library, ops per sample, and the p50 of each run (how much the runs disagree)
 */
function timeTasks(tasks, bytes) {
  const reps = new Map(tasks.map((t) => [t.name, repsFor(t.op, QUICK ? 0.02 : 0.05)]));
  /** @type {Map<string, number[]>} */
  const samples = new Map(tasks.map((t) => [t.name, []]));
  /** @type {Map<string, number[]>} */
  const runs = new Map(tasks.map((t) => [t.name, []]));
  const full = benchOptions(bytes);
  for (let j = 0; j < ROUNDS * SLICES; j++) {
    const options = {
      time: full.time / SLICES,
      iterations: Math.ceil(full.iterations / SLICES),
      warmupTime: j === 0 ? full.warmupTime : full.warmupTime / 10,
      warmupIterations: j === 0 ? full.warmupIterations : 1,
    };
    const bench = new Bench({ ...options, retainSamples: true, throws: true });
    for (let k = 0; k < tasks.length; k++) {
      const t = tasks[(k + j) % tasks.length];
      const n = /** @type {number} */ (reps.get(t.name));
      const op = t.op;
      bench.add(t.name, () => {
        let x;
        for (let i = 0; i < n; i++) x = op();
        consume(x);
      });
    }
    bench.runSync();
    for (const task of bench.tasks) {
      const res = /** @type {any} */ (task.result);
      if (res.state !== "completed") throw new Error(`${task.name}: tinybench ${res.state}: ${res.error?.message ?? ""}`);
      const n = /** @type {number} */ (reps.get(task.name));
      const list = /** @type {number[]} */ (samples.get(task.name));
      for (const ms of res.latency.samples) list.push(ms / n); // no spread: tens of thousands of samples
      /** @type {number[]} */ (runs.get(task.name)).push(percentile([...res.latency.samples].sort((a, b) => a - b), 50) / n);
    }
  }
  return { samples, reps, runs };
}

/** @param {number[]} xs */
function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { samples: s.length, p1: percentile(s, 1), p25: percentile(s, 25), p50: percentile(s, 50), p75: percentile(s, 75), p99: percentile(s, 99) };
}

// ---------------------------------------------------------------------------

async function main() {
  const info = await machine();
  printRuntimeInfo("peers: encode and decode MB/s (tinybench)");
  console.log(`${describeLoad(info.loadAverage, info.cpus)}; ${ROUNDS} round${ROUNDS === 1 ? "" : "s"} per op${QUICK ? " (--quick)" : ""}`);
  const versions = await peerVersions();
  console.log(`versions: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(", ")}`);

  /** @type {any[]} */
  const sets = [];
  for (const d of DATASETS) {
    if (args.filter && !args.filter.test(d.name)) continue;
    let value = d.build();
    /** @type {unknown[]} */
    const messages = d.stream ? /** @type {unknown[]} */ (value) : [value];
    const bytes = messages.reduce((/** @type {number} */ n, m) => n + sizeOf(m), 0);
    /** @type {Record<string, any>} */
    const checks = {};
    /** @type {{ name: string, op: () => unknown }[]} */
    const encTasks = [];
    /** @type {{ name: string, op: () => unknown }[]} */
    const decTasks = [];
    /** @type {Record<string, number>} encoded size of the records rows */
    const recordSizes = {};
    for (const l of LIBRARIES) {
      const c = checkEach(l, messages);
      if (!c.ok) {
        checks[l.name] = { ok: false, reason: c.reason };
        continue;
      }
      checks[l.name] = { ok: true, size: c.size, largest: c.largest, note: c.note };
      const encode = l.encode, decode = l.decode;
      encTasks.push({ name: l.name, op: each(c.inputs, (x) => encode(x)) });
      decTasks.push({ name: l.name, op: each(c.encoded, (b) => decode(b)) });
    }
    for (const [name, c] of Object.entries(checks)) {
      if (!c.ok) console.log(`  ${d.name}: ${name} is not timed: ${c.reason}`);
      else if (c.note) console.log(`  ${d.name}: ${name} ${c.note}`);
    }
    // binaries: this library copies them out on decode by default; also time its zero-copy option
    const ourCheck = checks[OURS];
    if (messages.some(hasBinary) && ourCheck.ok) {
      const viewDecoder = new lib.Decoder({ binaryAsView: true });
      const encoded = messages.map((m) => lib.encode(m));
      if (messages.every((m, i) => !difference(viewDecoder.decode(encoded[i]), m))) decTasks.push({ name: VIEWS, op: each(encoded, (b) => viewDecoder.decode(b)) });
    }
    // small messages: also time the pooled results option
    if (ourCheck.ok && ourCheck.largest <= 4096) {
      const pooled = new lib.Encoder({ poolResults: true });
      if (messages.every((m) => !difference(lib.decode(pooled.encode(m)), m))) encTasks.push({ name: POOLED, op: each(messages, (m) => pooled.encode(m)) });
      // the allocation alone: each message's bytes sliced out of one buffer
      const parts = messages.map((m) => lib.encode(m)), all = new Uint8Array(ourCheck.size), spans = [];
      for (let i = 0, at = 0; i < parts.length; at += parts[i].length, i++) {
        all.set(parts[i], at);
        spans.push([at, at + parts[i].length]);
      }
      encTasks.push({ name: OWN_BUFFER_REF, op: each(spans, ([from, to]) => all.slice(from, to)) });
    }
    // small messages: options as a new literal per call against the same options hoisted
    if (ourCheck.ok && ourCheck.largest <= 4096) {
      const encoded = messages.map((m) => lib.encode(m)), encodeOptions = { sortKeys: true }, decodeOptions = { maxDepth: 100 };
      if (messages.every((m) => !difference(lib.decode(lib.encode(m, { sortKeys: true }), { maxDepth: 100 }), m))) {
        encTasks.push(
          { name: INLINE, op: each(messages, (m) => lib.encode(m, { sortKeys: true })) },
          { name: HOISTED, op: each(messages, (m) => lib.encode(m, encodeOptions)) },
        );
        decTasks.push(
          { name: INLINE, op: each(encoded, (b) => lib.decode(b, { maxDepth: 100 })) },
          { name: HOISTED, op: each(encoded, (b) => lib.decode(b, decodeOptions)) },
        );
      }
    }
    // record-shaped data sets: records on both sides (this library with useRecords, msgpackr's default Packr), each with the bytes it writes
    if (RECORD_SETS.test(d.name) && ourCheck.ok) {
      const recordEncoder = new lib.Encoder({ useRecords: true }), recordDecoder = new lib.Decoder({ useRecords: true });
      const packr = new Packr(), unpackr = new Unpackr();
      /** @type {[string, (m: unknown) => Uint8Array, (b: Uint8Array) => unknown][]} */
      const modes = [[RECORDS, (m) => recordEncoder.encode(m), (b) => recordDecoder.decode(b)], [MSGPACKR_RECORDS, (m) => packr.pack(m), (b) => unpackr.unpack(b)]];
      for (const [name, encode, decode] of modes) {
        const encoded = messages.map((m) => Buffer.from(encode(m))); // copies: msgpackr returns views of its buffer
        const reason = messages.map((m, i) => difference(decode(encoded[i]), m)).find((x) => x);
        if (reason) {
          console.log(`  ${d.name}: ${name} is not timed: round trip differs at ${reason}`);
          continue;
        }
        recordSizes[name] = encoded.reduce((n, b) => n + b.length, 0);
        encTasks.push({ name, op: each(messages, encode) });
        decTasks.push({ name, op: each(encoded, decode) });
        if (name === RECORDS) {
          const plainDecoder = new lib.Decoder({ useRecords: true, compileRecordReaders: false });
          if (messages.every((m, i) => !difference(plainDecoder.decode(encoded[i]), m))) decTasks.push({ name: RECORDS_NO_CODEGEN, op: each(encoded, (b) => plainDecoder.decode(b)) });
        }
      }
    }
    // bulk data sets: the platform's own copy / UTF-8 encoder of the same data, the bars for bulk encoding
    if (value instanceof Uint8Array) {
      const src = value, target = new Uint8Array(src.length);
      encTasks.push({ name: SET_REF, op: () => target.set(src) });
    } else if (typeof value === "string") {
      const str = value, target = new Uint8Array(3 * str.length);
      encTasks.push({ name: ENCODE_INTO_REF, op: () => te.encodeInto(str, target) });
    }
    /** @type {Record<string, any>} */
    const results = { encode: {}, decode: {} };
    for (const [op, tasks] of /** @type {const} */ ([["encode", encTasks], ["decode", decTasks]])) {
      const { samples, reps, runs } = timeTasks(tasks, bytes);
      for (const [name, xs] of samples) {
        const s = stats(xs);
        results[op][name] = { ...s, reps: reps.get(name), runP50s: runs.get(name), mbps: bytes / s.p50 / 1e3, ...(name in recordSizes ? { size: recordSizes[name] } : {}) };
      }
    }
    const digest = fingerprint(messages.map((m) => lib.encode(m)));
    sets.push({ name: d.name, what: QUICK ? `reduced for --quick (a full run: ${d.what})` : d.what, bytes, digest, checks, results });
    printSet(sets[sets.length - 1]);
    if (Object.keys(recordSizes).length > 0) console.log(`records, encoded size: ${Object.entries(recordSizes).map(([k, n]) => `${k} ${formatSize(n)}`).join(", ")} (plain: ${formatSize(bytes)})`);
    value = null;
  }
  console.log(`legend: ${LEGEND}`);
  const report = { benchmark: "peers", quick: QUICK, rounds: ROUNDS, machine: info, loadAfter: (await machine()).loadAverage, versions, libraries: LIBRARIES.map((l) => l.name), sets };
  await emitReport(report, markdown(report), args, runtimeKey());
  if (args.options.write && !QUICK) await plot(await savedRuns());
  printGeometricMeans(report);
}

const LEGEND =
  "MB/s = bytes of the data set's MessagePack encoding (by @resizable/msgpack, the same for every library) / p50 time per op. " +
  "×msgpackr, ×@msgpack/msgpack and ×JSON = speed relative to that row: this row's MB/s / its MB/s (above 1: faster than it, bigger is better). " +
  "The options rows have no ratio to the peers (they lack those options): the inline row is compared with the hoisted one under the table. " +
  "p25-p75 is the interquartile range of time per op. '✗' = not timed: the round trip is not faithful (see the notes).";

/** What the ratio columns of the console tables mean, printed above each. */
const TABLE_HEADER = "MB/s at p50; ×msgpackr, ×@msgpack/msgpack and ×JSON = speed relative to that row (above 1 = faster, bigger is better)";

/**
 * A row's label in the tables: its name, with the options named for the options rows
 * ("@resizable/msgpack ({ sortKeys: true } inline)").
 * @param {string} name @param {string} op "encode" or "decode"
 */
function rowLabel(name, op) {
  const options = ROW_OPTIONS[/** @type {"encode" | "decode"} */ (op)];
  if (name === INLINE) return `${OURS} (${options} inline)`;
  if (name === HOISTED) return `${OURS} (${options} hoisted)`;
  return name;
}

/** "0.95x the speed of the options hoisted", for the inline row of one op, or "". @param {any} results one op's results */
function inlineVsHoisted(results) {
  const inline = results[INLINE], hoisted = results[HOISTED];
  return inline && hoisted ? `${fmtRatio(inline.mbps / hoisted.mbps)}x the speed of the same options hoisted` : "";
}

/** Console tables for one data set. @param {any} set */
function printSet(set) {
  console.log(`\n${set.name}: ${set.what}, ${formatSize(set.bytes)} as MessagePack`);
  for (const op of ["encode", "decode"]) {
    const names = [...LIBRARIES.map((l) => l.name), ...EXTRAS.filter((x) => set.results[op][x])];
    const rows = names.map((name) => {
      const r = set.results[op][name];
      /** @type {Record<string, string | number>} */
      const row = { library: rowLabel(name, op) };
      if (!r) return { ...row, "MB/s": "✗" };
      row["MB/s"] = sig3(r.mbps);
      for (const peer of RATIO_TO) {
        const p = set.results[op][peer];
        row[`×${peer}`] = p && !OWN_OPTIONS.includes(name) ? fmtRatio(r.mbps / p.mbps) : "-";
      }
      row.p1 = fmtMs(r.p1);
      row.p50 = fmtMs(r.p50);
      row.p99 = fmtMs(r.p99);
      row.samples = r.samples;
      return row;
    });
    console.log(`${op}: ${TABLE_HEADER}`);
    console.log(formatPlainTable(rows));
    const inline = inlineVsHoisted(set.results[op]);
    if (inline) console.log(`options ${ROW_OPTIONS[/** @type {"encode" | "decode"} */ (op)]} inline: ${inline} (like with like: the peers have no such options)`);
  }
}

/** A speed ratio: two decimals, or two significant digits when tiny (a copy against a zero-copy view). @param {number} x */
function fmtRatio(x) {
  if (!Number.isFinite(x)) return "-";
  return x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
}

/**
 * The data sets on which JSON (stringify + TextEncoder, TextDecoder + parse)
 * is faster than this library with its defaults, per op, as JSON's speed ÷
 * this library's (above 1), fastest first. Data sets JSON cannot carry
 * (binaries) are not timed for JSON and never listed.
 * @param {any} report
 * @returns {{ encode: [string, number][], decode: [string, number][] }}
 */
export function jsonAhead(report) {
  /** @param {string} op */
  const ahead = (op) =>
    /** @type {[string, number][]} */ (
      report.sets
        .map((/** @type {any} */ set) => {
          const json = set.results[op][JSON_ROW], ours = set.results[op][OURS];
          return [set.name, json && ours ? json.mbps / ours.mbps : NaN];
        })
        .filter((/** @type {[string, number]} */ [, x]) => x > 1)
        .sort((/** @type {[string, number]} */ a, /** @type {[string, number]} */ b) => b[1] - a[1])
    );
  return { encode: ahead("encode"), decode: ahead("decode") };
}

/** "JSON ahead: encode nested-2k 1.31x, rpc 1.05x; decode none" for one report. @param {any} report */
export function jsonAheadLine(report) {
  const { encode, decode } = jsonAhead(report);
  const list = (/** @type {[string, number][]} */ xs) => (xs.length ? xs.map(([name, x]) => `${name} ${fmtRatio(x)}x`).join(", ") : "none");
  return `JSON ahead: encode ${list(encode)}; decode ${list(decode)}`;
}

/** What the JSON-ahead line means, printed with it. */
const JSON_AHEAD_NOTE =
  "(data sets on which JSON.stringify + TextEncoder / TextDecoder + JSON.parse is faster than this library with its defaults, as JSON's speed ÷ this library's; binaries are not JSON's and are never listed)";

/** @param {number} ms */
function fmtMs(ms) {
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 1e-3) return `${(ms * 1e3).toFixed(2)} µs`;
  return `${(ms * 1e6).toFixed(0)} ns`;
}

/** The README tables. @param {any} report */
export function markdown(report) {
  const m = report.machine;
  const lines = [
    `### Peers on ${m.runtime} ${m.version}`,
    "",
    `${m.line}; ${describeLoad(m.loadAverage, m.cpus)} at start, ${describeLoad(report.loadAfter, m.cpus).replace(/ \(HIGH.*/, "")} at the end; ${m.date}. ` +
      `Libraries: ${Object.entries(report.versions).map(([k, v]) => `${k} ${v}`).join(", ")}.`,
    "",
    "Each cell: MB/s at p50 · speed ×msgpackr · speed ×@msgpack/msgpack · speed ×JSON (this row's MB/s / that row's: above 1 = faster, bigger is better). ✗ = not timed, the round trip is not faithful.",
    "",
    `${jsonAheadLine(report)} ${JSON_AHEAD_NOTE}.`,
    "",
  ];
  for (const op of ["encode", "decode"]) {
    lines.push(`**${op}** (MB/s · speed ×msgpackr · speed ×@msgpack/msgpack · speed ×JSON; above 1 = faster)`, "");
    const rows = report.sets.map((/** @type {any} */ set) => [
      `${set.name} (${formatSize(set.bytes)})`,
      ...report.libraries.map((/** @type {string} */ name) => {
        const r = set.results[op][name];
        if (!r) return "✗";
        const ratios = RATIO_TO.map((peer) => {
          const p = set.results[op][peer];
          return peer === name ? "1" : p ? fmtRatio(r.mbps / p.mbps) : "-";
        });
        return `${sig3(r.mbps)} · ${ratios.join(" · ")}`;
      }),
    ]);
    lines.push(mdTable(["data set", ...report.libraries], rows), "");
    const present = EXTRAS.filter((x) => report.sets.some((/** @type {any} */ set) => set.results[op][x]));
    for (const extra of present) {
      for (const set of report.sets) {
        const v = set.results[op][extra];
        if (!v) continue;
        if (OWN_OPTIONS.includes(extra)) {
          const vs = extra === INLINE ? inlineVsHoisted(set.results[op]) : "";
          lines.push(`- ${set.name}: ${rowLabel(extra, op)}: ${sig3(v.mbps)}${vs ? ` · ${vs}` : ""}`);
          continue;
        }
        const ratios = RATIO_TO.map((peer) => (set.results[op][peer] ? fmtRatio(v.mbps / set.results[op][peer].mbps) : "-"));
        const ours = set.results[op][OURS];
        const vsOurs = ours && extra.startsWith("reference") ? ` (this library: ${fmtRatio(ours.mbps / v.mbps)}x of it)` : "";
        const size = v.size === undefined ? "" : ` (${v.size} B encoded)`;
        lines.push(`- ${set.name}: ${rowLabel(extra, op)}: ${sig3(v.mbps)} · ${ratios.join(" · ")}${vsOurs}${size}`);
      }
    }
    if (present.length > 0) lines.push("", ...present.map((x) => /** @type {Record<string, string>} */ (EXTRA_NOTES)[x]), "");
  }
  // faithfulness and sizes
  /** @type {string[]} */
  const notes = [];
  const sizeRows = report.sets.map((/** @type {any} */ set) => [
    set.name,
    ...report.libraries.map((/** @type {string} */ name) => {
      const c = set.checks[name];
      if (!c.ok) notes.push(`- ${set.name}, ${name}: ${c.reason}`);
      else if (c.note) notes.push(`- ${set.name}, ${name}: ${c.note}`);
      return c.ok ? String(c.size) : "✗";
    }),
  ]);
  lines.push("**Encoded size in bytes** (JSON: UTF-8 bytes)", "", mdTable(["data set", ...report.libraries], sizeRows), "");
  lines.push("**Faithfulness** (checked before timing: round trip deep-equal, and the bytes decode to the same value with @msgpack/msgpack)", "");
  lines.push(...(notes.length ? notes : ["- every library round-trips every data set"]), "");
  return lines.join("\n");
}

/** Installed versions of the peers, read from node_modules. */
async function peerVersions() {
  /** @type {Record<string, string>} */
  const out = {};
  const fs = await import("node:fs").catch(() => null);
  for (const name of ["msgpackr", "msgpackr-extract", "@msgpack/msgpack", "notepack.io", "msgpack-lite", "tinybench"]) {
    try {
      const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
      out[name] = JSON.parse(/** @type {any} */ (fs).readFileSync(url, "utf8")).version;
    } catch {
      out[name] = "?";
    }
  }
  out["msgpackr-extract"] += isNativeAccelerationEnabled ? " (native decode acceleration on)" : " (native acceleration off)";
  return out;
}

/** --render: rewrite results/peers-<runtime>.md from the JSON of every runtime present (after a change of format). */
async function render() {
  for (const rt of RUNTIMES) {
    const text = await readResult(`peers-${rt}.json`);
    if (!text) continue;
    const path = await writeResult(`peers-${rt}.md`, markdown(JSON.parse(text)) + "\n");
    if (path) console.log(`wrote ${path}`);
  }
}

/**
 * Geometric means of this library's speed ratios (its MB/s / the peer's;
 * above 1 = faster) over the data sets of one report, binary decode left
 * out (a copy against a view): against msgpackr and @msgpack/msgpack, with
 * `poolResults` where it was timed. The rows of the
 * README's table, as "1.02" strings ("-" when nothing was timed, "" where a
 * row has no such op).
 * @param {any} report
 * @returns {{ label: string, encode: string, decode: string, sets: number }[]}
 */
export function geometricMeans(report) {
  /** @param {string} op @param {string} peer @param {boolean} pooled */
  const mean = (op, peer, pooled) => {
    const xs = [];
    for (const set of report.sets) {
      if (op === "decode" && set.name.startsWith("blob")) continue;
      const mine = (pooled && set.results[op][POOLED]) || set.results[op][OURS];
      const p = set.results[op][peer];
      const x = mine && p ? mine.mbps / p.mbps : NaN;
      if (Number.isFinite(x)) xs.push(x);
    }
    return { text: xs.length ? geomean(xs).toFixed(2) : "-", n: xs.length };
  };
  const rows = [];
  for (const peer of RATIO_TO) {
    const enc = mean("encode", peer, false), dec = mean("decode", peer, false);
    rows.push({ label: `×${peer}`, encode: enc.text, decode: dec.text, sets: enc.n });
    rows.push({ label: `×${peer}, with \`poolResults\``, encode: mean("encode", peer, true).text, decode: "", sets: enc.n });
  }
  return rows;
}

/** The last lines of a run: the geometric means, as the README quotes them for full runs. @param {any} report */
function printGeometricMeans(report) {
  const rows = geometricMeans(report);
  const n = report.sets.length;
  console.log(`\n${jsonAheadLine(report)}\n${JSON_AHEAD_NOTE}`);
  console.log(
    `\ngeometric means of this library's speed ×peer over the ${n} data set${n === 1 ? "" : "s"} of this run ` +
      `(above 1 = faster, bigger is better; binary decode left out)` +
      (report.quick ? "; --quick: small data sets, one round, not the README's numbers:" : ":"),
  );
  for (const row of rows) {
    const parts = [`encode ${row.encode}`];
    if (row.decode) parts.push(`decode ${row.decode}`);
    console.log(`geometric mean ${row.label.replace(/`/g, "")}: ${parts.join(", ")}`);
  }
}

/** Labels of the data sets in the summary. */
const SUMMARY_LABELS = {
  rpc: "RPC message",
  events: "events, one message each",
  "wide-map": "wide map of mixed values",
  "nested-2k": "nested object",
  "records-100k": "records",
  "records-10m": "records",
  "doubles-1e6": "1e6 doubles",
  "ints-1e6": "1e6 small integers",
  "blob-1m": "binary",
  "blob-16m": "binary",
  "ascii-1m": "ASCII string",
  "unicode-1m": "CJK/emoji string",
  timeseries: "time-series batch",
  chat: "chat, one message each",
};

/**
 * --summary: the README's cross-runtime tables, from the saved full runs:
 * MB/s and ratios per data set, geometric means of the ratios (binary
 * decode left out: a copy against a view), and the bulk-data bars.
 * Writes results/peers-summary.md.
 */
async function summary() {
  const runs = await savedRuns();
  if (runs.length === 0) throw new Error("No results/peers-*.json: run `npm run bench:peers:node24` (and :node26, :node20, :bun, :deno) first");
  const ratio = (/** @type {any} */ r, /** @type {any} */ p) => (r && p ? r.mbps / p.mbps : NaN);
  const cell = (/** @type {any} */ set, /** @type {string} */ op, /** @type {string} */ name) => {
    const r = set.results[op][name];
    if (!r) return "✗";
    if (op === "decode" && set.name.startsWith("blob")) return `${sig3(r.mbps)} · copy*`;
    return [sig3(r.mbps), ...RATIO_TO.map((peer) => fmtRatio(ratio(r, set.results[op][peer])))].join(" · ");
  };
  const first = runs[0][1];
  const lines = [
    `Runs: ${runs.map(([rt, r]) => `${runLine(r)} (results/peers-${rt}.json)`).join("; ")}. ${peerVersionsLine(runs)}.`,
    "",
    "MB/s of encoded bytes for this library · speed ×msgpackr · speed ×@msgpack/msgpack · speed ×JSON (this library's MB/s / that row's: above 1 = faster, bigger is better; - where JSON cannot carry the data).",
    "",
  ];
  const header = ["data set", ...runs.flatMap(([rt]) => [`${runtimeLabel(rt)} encode`, `${runtimeLabel(rt)} decode`])];
  const rows = first.sets.map((/** @type {any} */ s0) => [
    `${/** @type {Record<string, string>} */ (SUMMARY_LABELS)[s0.name] ?? s0.name}, ${formatSize(s0.bytes)}`,
    ...runs.flatMap(([, r]) => {
      const set = r.sets.find((/** @type {any} */ x) => x.name === s0.name);
      return set ? [cell(set, "encode", OURS), cell(set, "decode", OURS)] : ["-", "-"];
    }),
  ]);
  for (const s0 of first.sets) {
    if (!s0.results.encode[POOLED]) continue;
    rows.push([
      `${/** @type {Record<string, string>} */ (SUMMARY_LABELS)[s0.name] ?? s0.name}, ${formatSize(s0.bytes)}, \`poolResults\``,
      ...runs.flatMap(([, r]) => {
        const set = r.sets.find((/** @type {any} */ x) => x.name === s0.name);
        return set ? [cell(set, "encode", POOLED), ""] : ["-", ""];
      }),
    ]);
  }
  lines.push(mdTable(header, rows), "");
  lines.push(
    "\\* Binaries decode as copies by default; the other libraries return views of the input, which take near-constant time, so a ratio means little there (see `binaryAsView` in the per-runtime files).",
    "",
  );
  // geometric means
  const perRun = runs.map(([, r]) => geometricMeans(r));
  const geoRows = perRun[0].map((row, i) => [row.label, ...perRun.flatMap((rows) => [rows[i].encode, rows[i].decode])]);
  lines.push("Geometric means of the speed ratios over the data sets (above 1 = faster, bigger is better; binary decode left out):", "", mdTable(["", ...header.slice(1)], geoRows), "");
  // the same means for msgpackr too, against @msgpack/msgpack: the README's headline compares the three
  const libMean = (/** @type {any} */ report, /** @type {string} */ op, /** @type {string} */ lib) => {
    const xs = [];
    for (const set of report.sets) {
      if (op === "decode" && set.name.startsWith("blob")) continue;
      const x = ratio(set.results[op][lib], set.results[op]["@msgpack/msgpack"]);
      if (Number.isFinite(x)) xs.push(x);
    }
    return xs.length ? geomean(xs).toFixed(2) : "-";
  };
  const libRows = [OURS, "msgpackr", JSON_ROW].map((lib) => [lib, ...runs.flatMap(([, r]) => [libMean(r, "encode", lib), libMean(r, "decode", lib)])]);
  lines.push(
    "Each library's speed ×@msgpack/msgpack, geometric means over the same data sets (JSON: over those it can carry, binaries left out):",
    "",
    mdTable(["", ...header.slice(1)], libRows),
    "",
  );
  lines.push(`Where JSON is faster than this library ${JSON_AHEAD_NOTE}:`, "", ...runs.map(([, r]) => `- ${versionLabel(r)}: ${jsonAheadLine(r)}`), "");
  // bulk bars
  const bars = [];
  for (const [name, ref] of [["blob-1m", SET_REF], ["blob-16m", SET_REF], ["ascii-1m", ENCODE_INTO_REF], ["unicode-1m", ENCODE_INTO_REF]]) {
    bars.push([
      `${name} encode ÷ ${ref.replace("reference: ", "")}`,
      ...runs.map(([, r]) => {
        const set = r.sets.find((/** @type {any} */ x) => x.name === name);
        const x = set ? ratio(set.results.encode[OURS], set.results.encode[ref]) : NaN;
        return Number.isFinite(x) ? `${fmtRatio(x)} (${sig3(set.results.encode[ref].mbps)} MB/s)` : "-";
      }),
    ]);
  }
  lines.push("Bulk data: this library's encode speed as a fraction of the platform's own copy / UTF-8 encoder into a reused buffer, same run:", "", mdTable(["", ...runs.map(([rt]) => runtimeLabel(rt))], bars), "");
  // small owned results: what the allocation alone leaves for an encoder that owns its results
  const owned = [];
  for (const s0 of first.sets) {
    if (!s0.results.encode[OWN_BUFFER_REF]) continue;
    owned.push([
      `${/** @type {Record<string, string>} */ (SUMMARY_LABELS)[s0.name] ?? s0.name}`,
      ...runs.map(([, r]) => {
        const set = r.sets.find((/** @type {any} */ x) => x.name === s0.name);
        const alloc = set?.results.encode[OWN_BUFFER_REF], peer = set?.results.encode.msgpackr, ours = set?.results.encode[OURS];
        if (!alloc || !peer || !ours) return "-";
        // times per byte: the allocation alone, msgpackr's whole encode
        const ceiling = 1 / (1 + peer.mbps / alloc.mbps);
        return `${fmtRatio(ours.mbps / peer.mbps)} · ${fmtRatio(alloc.mbps / peer.mbps)} · ${fmtRatio(ceiling)}`;
      }),
    ]);
  }
  if (owned.length > 0) {
    lines.push(
      "Small messages, each result an `ArrayBuffer` of its own (the default): this library's speed ×msgpackr · the allocation alone (`Uint8Array#slice` of each result) as speed ×msgpackr's whole encode · the most an encoder that owns its results reaches if the rest of its work is as fast as msgpackr's (1 / (1 + msgpackr's time / the allocation's time)), same run:",
      "",
      mdTable(["", ...runs.map(([rt]) => runtimeLabel(rt))], owned),
      "",
    );
  }
  const text = lines.join("\n");
  console.log(args.wide ? text : narrowTables(text, "results/peers-summary.md"));
  const path = await writeResult("peers-summary.md", text + "\n");
  if (path) console.log(`wrote ${path}`);
  await plot(runs);
  if (args.options.readme) await rewriteReadme(readmeTable(runs, libMean));
  // the last lines, as after a run: the geometric means of each saved run
  for (const [rt, r] of runs) {
    console.log(`\ngeometric means, ${versionLabel(r)} (from results/peers-${rt}.json):`);
    for (const row of geometricMeans(r)) console.log(`geometric mean ${row.label.replace(/`/g, "")}: encode ${row.encode}${row.decode ? `, decode ${row.decode}` : ""}`);
    console.log(jsonAheadLine(r));
  }
}

/** The command that saves results/peers-<rt>.json, as the docs give it. @param {string} rt */
function runCommand(rt) {
  return rt === "node20" ? "`npm run bench:peers` under Node 20" : `\`npm run bench:peers:${rt}\``;
}

/** "Node 24.22.3", "Bun 1.4.5": a saved run's runtime and version. @param {any} r */
function versionLabel(r) {
  return `${r.machine.runtime[0].toUpperCase()}${r.machine.runtime.slice(1)} ${r.machine.version}`;
}

/** "node 24.22.3 (V8 13.6.233.17), commit 877aedc, load 0.4-0.6, 2026-11-29": where a saved run's numbers come from. @param {any} r */
function runLine(r) {
  const m = r.machine;
  return `${m.runtime} ${m.version} (${m.engine} ${m.engineVersion}), commit ${m.commit}, load ${m.loadAverage[0].toFixed(1)}-${r.loadAfter[0].toFixed(1)}, ${m.date.slice(0, 10)}`;
}

/**
 * The compared libraries' versions over all runs: "msgpackr 2.1.4, ..." when
 * every run had the same, else each version with the runs that had it.
 * @param {[string, any][]} runs
 */
function peerVersionsLine(runs) {
  const names = [...new Set(runs.flatMap(([, r]) => Object.keys(r.versions)))];
  return names
    .map((name) => {
      /** @type {Map<string, string[]>} */
      const by = new Map();
      for (const [rt, r] of runs) {
        const v = r.versions[name] ?? "?";
        by.set(v, [...(by.get(v) ?? []), runtimeLabel(rt)]);
      }
      return by.size === 1 ? `${name} ${[...by.keys()][0]}` : `${name} ${[...by].map(([v, rts]) => `${v} (${rts.join(", ")})`).join(", ")}`;
    })
    .join(", ");
}

/** The saved full runs, results/peers-<runtime>.json for each of RUNTIMES, that exist. @returns {Promise<[string, any][]>} */
async function savedRuns() {
  /** @type {[string, any][]} */
  const runs = [];
  for (const rt of RUNTIMES) {
    const text = await readResult(`peers-${rt}.json`);
    if (!text) continue;
    const r = JSON.parse(text);
    const key = r.machine.runtime === "node" ? `node${r.machine.version.split(".")[0]}` : r.machine.runtime;
    if (key !== rt) throw new Error(`results/peers-${rt}.json holds a run of ${r.machine.runtime} ${r.machine.version}: save it as peers-${key}.json`);
    if (r.quick) throw new Error(`results/peers-${rt}.json is a --quick run: the summary quotes full runs only`);
    runs.push([rt, r]);
  }
  if (runs.length > 0 && !runs.some(([rt]) => rt === HEADLINE)) console.log(`no results/peers-${HEADLINE}.json yet: run \`npm run bench:peers:${HEADLINE}\` for the README's table`);
  return runs;
}

const README_BEGIN = "<!-- peers-table: node benchmarks/peers.js --summary --readme writes this table from benchmarks/results/peers-*.json -->";
const README_END = "<!-- /peers-table -->";

/**
 * The README's speed tables, from the saved runs: the Node LTS's (or, until
 * it has a saved run, the newest Node run's) means of each library against
 * @msgpack/msgpack and where JSON is ahead, then every run's means of this
 * library against msgpackr, @msgpack/msgpack and JSON.
 * @param {[string, any][]} runs
 * @param {(report: any, op: string, lib: string) => string} libMean
 */
function readmeTable(runs, libMean) {
  const nodes = runs.filter(([rt]) => rt.startsWith("node"));
  const [rt, r] = nodes.find(([k]) => k === HEADLINE) ?? nodes[nodes.length - 1] ?? runs[0];
  const m = r.machine, v = r.versions;
  const count = (/** @type {string} */ op, /** @type {string} */ lib) =>
    r.sets.filter((/** @type {any} */ set) => !(op === "decode" && set.name.startsWith("blob")) && set.results[op][lib] && set.results[op]["@msgpack/msgpack"]).length;
  const x = (/** @type {string} */ op, /** @type {string} */ lib) => `${libMean(r, op, lib)}x`;
  const jsonSets = (/** @type {string} */ op) => ` (${count(op, JSON_ROW)} data sets)`;
  const lines = [
    README_BEGIN,
    mdTable(
      [`${versionLabel(r)} (${m.engine} ${m.engineVersion.split("-")[0]})`, OURS, `msgpackr ${v.msgpackr}`, `@msgpack/msgpack ${v["@msgpack/msgpack"]}`, "JSON"],
      [
        [`encode speed, relative to @msgpack/msgpack (geometric mean, ${count("encode", OURS)} data sets)`, x("encode", OURS), x("encode", "msgpackr"), "1x", x("encode", JSON_ROW) + jsonSets("encode")],
        [`decode speed, same (${count("decode", OURS)} data sets: binaries left out)`, x("decode", OURS), `${x("decode", "msgpackr")} (with its native addon)`, "1x", x("decode", JSON_ROW) + jsonSets("decode")],
      ],
      ["l", "r", "r", "r", "r"],
    ),
    "",
    `On ${versionLabel(r)}, ${jsonAheadLine(r).replace(/^JSON ahead/, "JSON is ahead of this library")} (JSON's speed ÷ this library's).`,
    `One run of ${runCommand(rt)}, built from commit ${m.commit} on ${m.date.slice(0, 10)}.`,
    "",
    "Every run's geometric means, as this library's speed ÷ the other's (above 1, this library is faster; bigger is better):",
    "",
  ];
  const perRun = runs.map(([, run]) => geometricMeans(run));
  lines.push(
    mdTable(
      ["this library's speed relative to", ...runs.flatMap(([, run]) => [`${versionLabel(run)} encode`, `${versionLabel(run)} decode`])],
      perRun[0].map((row, i) => [row.label.slice(1), ...perRun.flatMap((rows) => [rows[i].encode, rows[i].decode])]),
    ),
    "",
    `(${runs.map(([, run]) => `${versionLabel(run)}: commit ${run.machine.commit}, msgpackr ${run.versions.msgpackr}`).join("; ")}.)`,
    README_END,
  );
  return lines.join("\n");
}

/**
 * --readme: replaces the text between the peers-table markers of README.md
 * (with --results=DIR, of DIR/README.md: the tests rewrite a copy).
 * @param {string} table
 */
async function rewriteReadme(table) {
  const fs = await import("node:fs");
  const url = args.options.results ? new URL("README.md", resultsUrl()) : new URL("../README.md", import.meta.url);
  const text = fs.readFileSync(url, "utf8");
  const from = text.indexOf(README_BEGIN), to = text.indexOf(README_END);
  if (from < 0 || to < from) throw new Error(`${decodeURIComponent(url.pathname)} has no peers-table markers (${README_BEGIN} ... ${README_END})`);
  fs.writeFileSync(url, text.slice(0, from) + table + text.slice(to + README_END.length));
  console.log(`wrote ${decodeURIComponent(url.pathname)} (its speed table)`);
}

/**
 * Draws results/peers.svg from the saved runs: this library's speed
 * relative to msgpackr per data set and runtime, encode and decode side by
 * side on a log scale (bars right of 1: faster), with `poolResults` rows for
 * the data sets where it was timed; binary decode is left out (a copy
 * against a view). The subtitle names the runs, the notes the geometric
 * means, so the chart says what the README's table says.
 * @param {[string, any][]} runs
 */
async function plot(runs) {
  if (runs.length === 0) return;
  const first = runs[0][1];
  // every data set of any run, in the order of the first run that has it (a run may predate a data set: n/a there)
  /** @type {Map<string, any>} */
  const sets = new Map();
  for (const [, r] of runs) for (const s0 of r.sets) if (!sets.has(s0.name)) sets.set(s0.name, s0);
  const label = (/** @type {string} */ name) => /** @type {Record<string, string>} */ (SUMMARY_LABELS)[name] ?? name;
  /** @type {{ label: string, name: string, pooled: boolean }[]} */
  const order = [...sets.values()].map((s0) => ({ label: `${label(s0.name)}, ${formatSize(s0.bytes)}`, name: s0.name, pooled: false }));
  for (const s0 of sets.values()) if (s0.results.encode[POOLED]) order.push({ label: `${label(s0.name)}, poolResults`, name: s0.name, pooled: true });
  /** @param {string} op */
  const rows = (op) =>
    order.map((o) => {
      const skip = op === "decode" && (o.pooled || o.name.startsWith("blob"));
      return {
        label: o.label,
        note: !skip ? "not in these runs" : o.pooled ? "encode only" : "copy vs view: not compared",
        values: runs.map(([, r]) => {
          const set = r.sets.find((/** @type {any} */ x) => x.name === o.name);
          const mine = set?.results[op][o.pooled ? POOLED : OURS], peer = set?.results[op].msgpackr;
          return skip || !mine || !peer ? null : mine.mbps / peer.mbps;
        }),
      };
    });
  const means = runs.map(([rt, r]) => {
    const row = geometricMeans(r)[0];
    return `${runtimeLabel(rt)} ${row.encode} / ${row.decode}`;
  });
  const svg = barChartSvg({
    title: "@resizable/msgpack speed relative to msgpackr (bigger is better; 1 = as fast as msgpackr)",
    subtitle:
      `From results/peers-*.json (the README's numbers): ${runs.map(([, r]) => `${r.machine.runtime} ${r.machine.version}`).join(", ")}; ` +
      `commit ${[...new Set(runs.map(([, r]) => r.machine.commit))].join(", ")}; msgpackr ${[...new Set(runs.map(([, r]) => r.versions.msgpackr))].join(", ")}; ${first.machine.date.slice(0, 10)}`,
    series: runs.map(([rt, r]) => ({ name: `${r.machine.runtime} ${r.machine.version}`, color: RUNTIME_COLORS[/** @type {keyof typeof RUNTIME_COLORS} */ (rt)] ?? "#888" })),
    panels: ["encode", "decode"].map((op) => ({
      title: op,
      rows: rows(op),
      scale: /** @type {const} */ ("log"),
      reference: { x: 1, label: "msgpackr" },
      xLabel: "speed ×msgpackr, log scale (right of the line: faster)",
    })),
    notes: [
      `Geometric means, encode / decode (binary decode left out): ${means.join("; ")}.`,
      "Binaries decode as copies by default, msgpackr returns views of the input: those cells are not compared. One run per runtime; single cells move by 10-30% between runs.",
    ],
  });
  const path = await writeResult("peers.svg", svg);
  if (path) console.log(`wrote ${path}`);
}

if (args.options.readme && !args.options.summary) {
  console.error("peers.js: --readme goes with --summary (see --help)");
  exit(2);
}
await useResultsDir(args.options.results);
if (args.options.render) await render();
else if (args.options.summary) await summary();
else await main();
