// Buffers benchmark: the platform's ArrayBuffer costs, not this library.
//
// No @resizable/msgpack code runs here. This script times what the encoder's
// output path is built from, in each runtime: allocating plain and resizable
// ArrayBuffers, growing an output (chunks + concat, resizing in place,
// doubling copies), per-element and bulk stores into each kind, and the
// memory each growth strategy holds. Why it matters to this library: those
// costs decide its design. Per-element stores into a resizable buffer are
// 2-10x slower than into a plain one and creating a resizable buffer costs
// microseconds, so the encoder writes values into a reused plain scratch
// buffer and moves them in bulk (set, encodeInto) into one resizable store
// only when the scratch fills. Rerun it when a runtime changes to see whether
// those choices still hold; strategies.js and peers.js time the library.
//
//   node benchmarks/buffers.js [--quick] [--in-process] [--json] [--rounds=N] [--time=MS] [FILTER...]
//   bun benchmarks/buffers.js
//   deno run --allow-run --allow-env benchmarks/buffers.js
//   (plain `deno run benchmarks/buffers.js` works too, without process isolation)
//
// Sections (see benchmarks/README.md):
//   alloc/*    fixed vs resizable allocation, 64 B..4 MiB, maxByteLength 64 KiB..32 MiB
//   grow/*     building N bytes: chunks + concat vs resize in place vs doubling copies
//   element/*  per-element stores (u8[i] = x, DataView.setFloat64) into plain vs resizable
//   bulk/*     bulk stores (set, TextEncoder.encodeInto) into plain vs resizable
//   memory     bytes each growth strategy holds at its peak: counted, and RSS in a fresh process
//
// Fairness: a store site that has seen both plain and resizable-backed arrays
// is polymorphic and slower for both (measured: 1.6-2.3x for the plain one),
// and a process keeps state one case can change for another (heap, GC debt,
// kernel mappings, engine-wide assumptions). So every (operation, buffer
// kind) of the store sections has its own textually separate function and
// runs in its own fresh process (same runtime, via node:child_process),
// round-robin across processes; each alloc/grow group runs round-robin in
// its own fresh process. --in-process (or Deno without --allow-run
// --allow-env) keeps everything in one process.
//
// Dependency-free: imports only the round-robin harness.

import {
  canSpawn,
  consume,
  filterCases,
  formatBytes,
  formatSpeed,
  geomean,
  parseCli,
  pathFromUrl,
  printRows,
  printTable,
  printRuntimeInfo,
  receiveFromChild,
  runChildIfRequested,
  runIsolated,
  runRoundRobin,
  runtimeInfo,
  runtimeName,
  sendToParent,
  spawnSelf,
} from "./lib/round-robin.js";

const g = /** @type {any} */ (globalThis);
const args = parseCli({
  script: "buffers.js",
  summary:
    "The platform's ArrayBuffer costs, not this library (none of its code runs here): allocating plain vs resizable " +
    "buffers, growing output (chunks + concat, resizing in place, doubling copies), per-element and bulk stores into plain vs " +
    "resizable buffers, and the memory each growth strategy holds at its peak. Each case runs in a fresh process. " +
    "Why it matters: these costs are what the encoder's design rests on (values written into a reused plain scratch " +
    "buffer, moved in bulk into one resizable store only when it fills); strategies.js and peers.js time the library itself.",
  fullRun: "1-2 minutes per runtime on 2 cores",
  quickRun: "about 15 s (measured on 2 cores at load average 10-12, shared with other jobs)",
  deno: "--allow-run --allow-env --allow-sys",
  options: {
    quick: "tiny sizes and few iterations (what the tests run)",
    json: "also print every result as one JSON line at the end",
    "in-process": "run everything in this process instead of one fresh process per case",
    "rounds=N": "processes per store case (default 6): more samples on a noisy machine",
    "time=MS": "time budget per alloc/grow group in milliseconds (default 5000)",
    "filter=REGEX": "only cases whose \"group/name\" matches (the same as a bare FILTER)",
    wide: "show every percentile column (p1, p25, p50, p75, p99); the tables are then wider than 120 columns",
  },
  filter: "regular expressions; only cases whose \"group/name\" matches one of them run (e.g. grow 'alloc/4')",
  examples: ["node benchmarks/buffers.js --quick", "node benchmarks/buffers.js grow --rounds=12"],
});
const QUICK = args.quick;
const KiB = 1024;
const MiB = 1024 * 1024;
const SCRIPT = pathFromUrl(import.meta.url);

// ---------------------------------------------------------------------------
// Configuration: full run (1-2 minutes per runtime on 2 busy cores) and --quick (~1-5 s).

const CONFIG = QUICK
  ? {
      allocSizes: [64, 64 * KiB],
      allocMax: [64 * KiB, 1 * MiB],
      growPairs: [[64, 256], [4 * KiB, 64 * KiB]],
      inProcess: { iterations: 8, minIterations: 3, warmup: 2, maxTimeMs: 150, minSampleMs: 1 },
      storeBytes: 64 * KiB,
      storeRounds: 1,
      child: { iterations: 4, minIterations: 2, warmup: 2, maxTimeMs: 100, minSampleMs: 1 },
      memoryTotal: 1 * MiB,
      memoryStep: 16 * KiB,
      memoryRounds: 1,
    }
  : {
      allocSizes: [64, 1 * KiB, 64 * KiB, 1 * MiB, 4 * MiB],
      allocMax: [64 * KiB, 1 * MiB, 32 * MiB],
      growPairs: [[64, 256], [4 * KiB, 64 * KiB], [64 * KiB, 1 * MiB], [1 * MiB, 8 * MiB], [4 * MiB, 32 * MiB]],
      inProcess: { iterations: 300, minIterations: 10, warmup: 5, maxTimeMs: 5000, minSampleMs: 2 },
      storeBytes: 1 * MiB,
      storeRounds: 6,
      child: { iterations: 25, minIterations: 5, warmup: 10, maxTimeMs: 1500, minSampleMs: 2 },
      memoryTotal: 32 * MiB,
      memoryStep: 64 * KiB,
      memoryRounds: 3,
    };
// --rounds=N: processes per store case (more samples on a noisy machine);
// --time=MS: time budget per alloc/grow group.
if (args.options.rounds) CONFIG.storeRounds = Math.max(1, Number(args.options.rounds) | 0);
if (args.options.time) CONFIG.inProcess.maxTimeMs = Math.max(1, Number(args.options.time));

// ---------------------------------------------------------------------------
// Per-element and bulk stores. One function per (operation, buffer kind), on
// purpose: identical bodies, separate call sites and type feedback.

const N = CONFIG.storeBytes;
const MAX = 4 * N; // maxByteLength of the resizable buffers (they are never resized here)
const SET_SMALL = 256;
const SET_LARGE = 64 * KiB;
// A flat (non-rope) ASCII string of about 16 KiB, as JSON.parse would give it.
const TEXT = JSON.parse(JSON.stringify("hello world, this is a moderately long ascii string ".repeat(316)));

// u8[i] = x
function u8StorePlain(u8, n) { for (let i = 0; i < n; i++) u8[i] = i & 255; return u8[n - 1]; }
function u8StoreRabTracking(u8, n) { for (let i = 0; i < n; i++) u8[i] = i & 255; return u8[n - 1]; }
function u8StoreRabFixed(u8, n) { for (let i = 0; i < n; i++) u8[i] = i & 255; return u8[n - 1]; }
// DataView.setFloat64
function f64StorePlain(dv, n) { for (let i = 0; i + 8 <= n; i += 8) dv.setFloat64(i, i * 0.5); return dv.getFloat64(0); }
function f64StoreRabTracking(dv, n) { for (let i = 0; i + 8 <= n; i += 8) dv.setFloat64(i, i * 0.5); return dv.getFloat64(0); }
function f64StoreRabFixed(dv, n) { for (let i = 0; i + 8 <= n; i += 8) dv.setFloat64(i, i * 0.5); return dv.getFloat64(0); }
// Uint8Array.prototype.set of small pieces
function setSmallPlain(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
function setSmallRabTracking(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
function setSmallRabFixed(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
// Uint8Array.prototype.set of large pieces
function setLargePlain(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
function setLargeRabTracking(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
function setLargeRabFixed(dst, src, n) { for (let o = 0; o + src.length <= n; o += src.length) dst.set(src, o); return dst[0]; }
// TextEncoder.encodeInto a subarray at the write position
function encodeIntoPlain(te, dst, s, n) { let o = 0; while (o + s.length * 3 <= n) o += te.encodeInto(s, dst.subarray(o)).written; return o; }
function encodeIntoRabTracking(te, dst, s, n) { let o = 0; while (o + s.length * 3 <= n) o += te.encodeInto(s, dst.subarray(o)).written; return o; }
function encodeIntoRabFixed(te, dst, s, n) { let o = 0; while (o + s.length * 3 <= n) o += te.encodeInto(s, dst.subarray(o)).written; return o; }

// Buffers are created lazily in setup(), so a process that runs only the
// plain variant never creates a resizable buffer.
const KINDS = {
  plain: { label: "plain ArrayBuffer", u8: () => new Uint8Array(N), dv: () => new DataView(new ArrayBuffer(N)) },
  rabTracking: {
    label: "resizable, length-tracking view",
    u8: () => new Uint8Array(new ArrayBuffer(N, { maxByteLength: MAX })),
    dv: () => new DataView(new ArrayBuffer(N, { maxByteLength: MAX })),
  },
  rabFixed: {
    label: "resizable, fixed-length view",
    u8: () => new Uint8Array(new ArrayBuffer(N, { maxByteLength: MAX }), 0, N),
    dv: () => new DataView(new ArrayBuffer(N, { maxByteLength: MAX }), 0, N),
  },
};

/** @param {"plain" | "rabTracking" | "rabFixed"} kind @param {Record<string, Function>} fns */
function storeCasesFor(kind, fns) {
  const k = KINDS[kind];
  const base = kind === "plain";
  return [
    { group: "element/u8[i] = x", name: k.label, bytes: N, baseline: base, setup: () => { const u = k.u8(); return () => fns.u8(u, N); } },
    { group: "element/DataView.setFloat64", name: k.label, bytes: N, baseline: base, setup: () => { const d = k.dv(); return () => fns.f64(d, N); } },
    { group: `bulk/set ${SET_SMALL} B pieces`, name: k.label, bytes: N, baseline: base,
      setup: () => { const u = k.u8(); const s = new Uint8Array(SET_SMALL).fill(7); return () => fns.setSmall(u, s, N); } },
    { group: `bulk/set ${formatBytes(SET_LARGE)} pieces`, name: k.label, bytes: N, baseline: base,
      setup: () => { const u = k.u8(); const s = new Uint8Array(Math.min(SET_LARGE, N)).fill(7); return () => fns.setLarge(u, s, N); } },
    { group: `bulk/encodeInto ${formatBytes(TEXT.length)} ASCII`, name: k.label, bytes: N - (N % (TEXT.length * 3)), baseline: base,
      setup: () => { const u = k.u8(); const te = new TextEncoder(); return () => fns.encodeInto(te, u, TEXT, N); } },
  ];
}

const STORE_CASES = [
  ...storeCasesFor("plain", { u8: u8StorePlain, f64: f64StorePlain, setSmall: setSmallPlain, setLarge: setLargePlain, encodeInto: encodeIntoPlain }),
  ...storeCasesFor("rabTracking", { u8: u8StoreRabTracking, f64: f64StoreRabTracking, setSmall: setSmallRabTracking, setLarge: setLargeRabTracking, encodeInto: encodeIntoRabTracking }),
  ...storeCasesFor("rabFixed", { u8: u8StoreRabFixed, f64: f64StoreRabFixed, setSmall: setSmallRabFixed, setLarge: setLargeRabFixed, encodeInto: encodeIntoRabFixed }),
].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
// encodeInto writes whole strings: bytes per op is the largest multiple that fits (3 bytes/char worst case reserved).
for (const c of STORE_CASES) if (c.group.startsWith("bulk/encodeInto")) c.bytes = Math.floor((N - TEXT.length * 2) / TEXT.length) * TEXT.length;

// ---------------------------------------------------------------------------
// Growth strategies. Each writes `total` bytes as `set` calls of `step`-byte
// pieces and returns a Uint8Array of exactly `total` bytes. `mem` (optional)
// counts the bytes the strategy holds live, to find its peak.

/** Live-byte counter, optionally sampling RSS at every change. */
class Held {
  /** @param {(() => number) | null} rss */
  constructor(rss) { this.live = 0; this.peak = 0; this.rss = rss; this.rssPeak = rss ? rss() : 0; }
  /** @param {number} delta */
  add(delta) {
    this.live += delta;
    if (this.live > this.peak) this.peak = this.live;
    if (this.rss) { const r = this.rss(); if (r > this.rssPeak) this.rssPeak = r; }
  }
}
const NO_MEM = null;

/** Exact preallocation: the size is known up front. */
function growExact(step, total, src, mem) {
  const out = new Uint8Array(total); mem?.add(total);
  for (let o = 0; o < total; o += step) { out.set(src, o); mem?.add(0); }
  return out;
}
/** A list of fixed-size chunks, concatenated once at the end. */
function growChunks(step, total, src, mem) {
  const list = [];
  for (let o = 0; o < total; o += step) { const c = new Uint8Array(step); mem?.add(step); c.set(src); list.push(c); }
  const out = new Uint8Array(total); mem?.add(total);
  let o = 0;
  for (const c of list) { out.set(c, o); o += c.length; }
  mem?.add(-total); // the chunks become garbage
  return out;
}
/** One resizable buffer grown by one piece at a time. */
function growResizeStep(step, total, src, mem, max = total) {
  const ab = new ArrayBuffer(step, { maxByteLength: max }); mem?.add(step);
  const u8 = new Uint8Array(ab);
  u8.set(src, 0);
  for (let o = step; o < total; o += step) { ab.resize(o + step); mem?.add(step); u8.set(src, o); }
  return u8;
}
/** One resizable buffer whose capacity doubles when full. */
function growResizeDouble(step, total, src, mem, max = total) {
  const ab = new ArrayBuffer(step, { maxByteLength: max }); mem?.add(step);
  const u8 = new Uint8Array(ab);
  for (let o = 0; o < total; o += step) {
    if (o + step > ab.byteLength) { const n = Math.min(max, Math.max(o + step, ab.byteLength * 2)); mem?.add(n - ab.byteLength); ab.resize(n); }
    u8.set(src, o);
  }
  if (ab.byteLength !== total) { mem?.add(total - ab.byteLength); ab.resize(total); }
  return u8;
}
/** Plain buffers, doubled with a copy when full (the classic growable array). */
function growCopyDouble(step, total, src, mem) {
  let buf = new Uint8Array(step); mem?.add(step);
  for (let o = 0; o < total; o += step) {
    if (o + step > buf.length) {
      const nb = new Uint8Array(Math.min(total, Math.max(o + step, buf.length * 2))); mem?.add(nb.length);
      nb.set(buf.subarray(0, o)); mem?.add(-buf.length);
      buf = nb;
    }
    buf.set(src, o);
  }
  if (buf.length === total) return buf;
  const out = buf.slice(0, total); mem?.add(total - buf.length);
  return out;
}
/** A resizable store reused across calls: shrink to one piece, grow in place, copy the result out. */
function growReusedStore(ab, u8, step, total, src, mem) {
  ab.resize(step);
  u8.set(src, 0);
  for (let o = step; o < total; o += step) { ab.resize(o + step); mem?.add(step); u8.set(src, o); }
  const out = u8.slice(0, total); mem?.add(total);
  return out;
}

// ---------------------------------------------------------------------------
// Memory at peak, measured in a fresh process per strategy.

const MEM_T = CONFIG.memoryTotal, MEM_S = CONFIG.memoryStep, MEM_MAX = 2 * CONFIG.memoryTotal;
/** name -> [run(mem), reserved virtual bytes at peak, how it holds memory] */
const MEMORY_STRATEGIES = {
  "exact preallocation": [(m, src) => growExact(MEM_S, MEM_T, src, m), MEM_T, "one buffer of the final size"],
  "chunks + concat": [(m, src) => growChunks(MEM_S, MEM_T, src, m), 2 * MEM_T, "all chunks + the concatenated copy"],
  "copy ×2": [(m, src) => growCopyDouble(MEM_S, MEM_T, src, m), 1.5 * MEM_T, "old half + new buffer during the last copy"],
  "resize in place (+step)": [(m, src) => growResizeStep(MEM_S, MEM_T, src, m, MEM_MAX), MEM_MAX, "one buffer; maxByteLength reserved, not committed"],
  "resize ×2": [(m, src) => growResizeDouble(MEM_S, MEM_T, src, m, MEM_MAX), MEM_MAX, "one buffer; maxByteLength reserved, not committed"],
  "reused store + slice": [
    (m, src) => { const ab = new ArrayBuffer(MEM_S, { maxByteLength: MEM_MAX }); m?.add(MEM_S); return growReusedStore(ab, new Uint8Array(ab), MEM_S, MEM_T, src, m); },
    MEM_MAX + MEM_T, "the store (kept for the next call) + the copied-out result",
  ],
};

function rssReader() {
  if (runtimeName() === "deno") return () => g.Deno.memoryUsage().rss;
  const mu = g.process?.memoryUsage;
  if (typeof mu?.rss === "function") return () => mu.rss();
  if (typeof mu === "function") return () => mu().rss;
  return null;
}

/** Child side: run one strategy once, report its counted peak and RSS deltas. @param {string} name */
function memoryChild(name) {
  const entry = MEMORY_STRATEGIES[name];
  if (!entry) throw new Error(`No memory strategy named ${name}`);
  const src = new Uint8Array(MEM_S).fill(3);
  const rss = rssReader();
  const rss0 = rss ? rss() : NaN;
  const mem = new Held(rss);
  const out = entry[0](mem, src);
  const rssAfter = rss ? rss() : NaN;
  consume(out);
  if (out.length !== MEM_T || out[MEM_T - 1] !== 3) throw new Error(`${name} built a wrong result`);
  sendToParent({ name, peak: mem.peak, rssPeak: Math.max(mem.rssPeak, rssAfter) - rss0, rssAfter: rssAfter - rss0 });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

async function memorySection(spawn) {
  const names = Object.keys(MEMORY_STRATEGIES).filter((n) => !args.filter || args.filter.test(`memory/${n}`));
  if (!names.length) return undefined;
  /** @type {Record<string, { peak: number[], rssPeak: number[], rssAfter: number[] }>} */
  const got = Object.fromEntries(names.map((n) => [n, { peak: [], rssPeak: [], rssAfter: [] }]));
  const rounds = spawn ? CONFIG.memoryRounds : 1;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      let res;
      if (spawn) res = receiveFromChild(await spawnSelf(SCRIPT, [`--child=memory/${name}`, ...(QUICK ? ["--quick"] : [])]));
      else { const m = new Held(null); consume(MEMORY_STRATEGIES[name][0](m, new Uint8Array(MEM_S).fill(3))); res = { peak: m.peak, rssPeak: NaN, rssAfter: NaN }; }
      got[name].peak.push(res.peak);
      got[name].rssPeak.push(res.rssPeak);
      got[name].rssAfter.push(res.rssAfter);
    }
  }
  const fmt = (v) => (Number.isFinite(v) ? formatBytes(v) : "n/a");
  const rows = names.map((name) => {
    const peak = median(got[name].peak), rssPeak = median(got[name].rssPeak);
    return {
      strategy: name,
      peakBytes: peak, rssPeakBytes: rssPeak, reservedBytes: MEMORY_STRATEGIES[name][1],
      "held at peak": formatBytes(peak),
      "× output": (peak / MEM_T).toFixed(2),
      "address space reserved": formatBytes(MEMORY_STRATEGIES[name][1]),
      "RSS peak Δ": fmt(rssPeak),
      "RSS Δ after": fmt(median(got[name].rssAfter)),
      "RSS peak × output": Number.isFinite(rssPeak) ? (rssPeak / MEM_T).toFixed(2) : "n/a",
      "why": MEMORY_STRATEGIES[name][2],
    };
  });
  printRows(rows.map(({ peakBytes, rssPeakBytes, reservedBytes, why, ...shown }) => (args.wide ? { ...shown, why } : shown)), {
    title: `memory: building ${formatBytes(MEM_T)} in ${formatBytes(MEM_S)} pieces (resizable maxByteLength ${formatBytes(MEM_MAX)}); × output: smaller is better, 1 is the floor`,
    legend:
      "held at peak = bytes of buffers the strategy still references at its worst moment (counted by the code, exact); " +
      "× output = that / output size (<1 impossible, 1 is ideal); --wide adds why each holds what it holds. address space reserved = virtual memory at the peak " +
      "(maxByteLength for resizable buffers; costs no RAM, but each resizable buffer takes kernel mappings). " +
      (spawn
        ? `RSS peak Δ = highest resident set size sampled after every step minus RSS before, in a fresh process per strategy (median of ${rounds}); ` +
          "it includes garbage the GC has not freed yet, so it can exceed 'held at peak'. RSS Δ after = at the end, result still alive."
        : "RSS columns need subprocesses (run with --allow-run --allow-env under Deno); n/a here."),
  });
  return rows;
}

// ---------------------------------------------------------------------------
// Child dispatch: must run before anything else creates buffers.

if (args.child?.startsWith("memory/")) {
  memoryChild(args.child.slice("memory/".length));
} else if (args.child) {
  runChildIfRequested(STORE_CASES, CONFIG.child, args);
} else if (args.childGroup !== null) {
  runChildIfRequested([...allocCases(), ...growCases()], { ...CONFIG.inProcess, afterIteration: collectIfBun }, args);
} else {
  await main();
}

// ---------------------------------------------------------------------------
// Parent

function allocCases() {
  const cases = [];
  const plain = (n) => () => new Uint8Array(n);
  const resizable = (n, max) => () => new Uint8Array(new ArrayBuffer(n, { maxByteLength: max }));
  // Large buffers come from the kernel as untouched zero pages, so allocation
  // alone hides the page faults that the first write pays: the "+ touch"
  // cases also write one byte per 4 KiB page.
  const plainTouched = (n) => () => { const u = new Uint8Array(n); for (let i = 0; i < n; i += 4096) u[i] = 1; return u; };
  const resizableTouched = (n, max) => () => { const u = new Uint8Array(new ArrayBuffer(n, { maxByteLength: max })); for (let i = 0; i < n; i += 4096) u[i] = 1; return u; };
  for (const size of CONFIG.allocSizes) {
    const group = `alloc/${formatBytes(size)}`;
    const maxes = CONFIG.allocMax.filter((max) => max >= size);
    cases.push({ group, name: "plain new Uint8Array(n)", fn: plain(size), baseline: true });
    for (const max of maxes) cases.push({ group, name: `resizable, maxByteLength ${formatBytes(max)}`, fn: resizable(size, max) });
    if (size >= 64 * KiB) {
      const max = maxes[maxes.length - 1];
      cases.push({ group, name: "plain + touch every page", fn: plainTouched(size) });
      cases.push({ group, name: `resizable ${formatBytes(max)} + touch every page`, fn: resizableTouched(size, max) });
    }
  }
  return cases;
}

function growCases() {
  const cases = [];
  for (const [step, total] of CONFIG.growPairs) {
    const group = `grow/${formatBytes(step)}→${formatBytes(total)}`;
    const src = new Uint8Array(step).fill(5);
    const check = (u8) => { if (u8.length !== total || u8[total - 1] !== 5) throw new Error(`${group}: wrong result`); return u8; };
    // Every strategy's result is verified once, in setup, before it is timed.
    const c = (name, fn, extra = {}) => cases.push({ group, name, bytes: total, ...extra, setup: () => { check(fn()); return fn; } });
    c(`chunks of ${formatBytes(step)} + concat`, () => growChunks(step, total, src, NO_MEM), { baseline: true });
    c("resize in place (+step)", () => growResizeStep(step, total, src, NO_MEM));
    c("resize in place (×2)", () => growResizeDouble(step, total, src, NO_MEM));
    c("plain copy ×2", () => growCopyDouble(step, total, src, NO_MEM));
    cases.push({
      group, name: "reused store: shrink, regrow, slice", bytes: total,
      setup: () => {
        const ab = new ArrayBuffer(step, { maxByteLength: total });
        const u8 = new Uint8Array(ab);
        const fn = () => growReusedStore(ab, u8, step, total, src, NO_MEM);
        check(fn());
        return fn;
      },
    });
    c("exact preallocation (reference)", () => growExact(step, total, src, NO_MEM));
  }
  return cases;
}

/** Bun frees resizable buffers late: ~50k unreachable ones abort the process (kernel mapping limit). */
function collectIfBun() {
  if (runtimeName() === "bun") g.Bun.gc(true);
}

async function main() {
  const started = performance.now();
  printRuntimeInfo(`buffers benchmark${QUICK ? " (--quick)" : ""}: the platform's ArrayBuffer costs, not this library (see --help)`);
  const spawn = !args.inProcess && (await canSpawn());
  console.log(
    spawn
      ? "isolation: alloc/grow run each group round-robin in a fresh process; element/bulk run one fresh process per case, round-robin across processes"
      : `isolation: none, everything in this process (${args.inProcess ? "--in-process" : "subprocesses not permitted; under Deno add --allow-run --allow-env"})`,
  );
  const log = (m) => console.log(`… ${m}`);
  const opts = { ...CONFIG.inProcess, log };
  /** @type {Record<string, unknown>} */
  const report = { runtime: runtimeInfo(), quick: QUICK, isolated: spawn, sections: {} };
  const show = (key, results, title) => { report.sections[key] = results; printTable(results, { title, wide: args.wide }); };

  const childArgs = QUICK ? ["--quick"] : [];
  // alloc and grow: each group round-robin in its own fresh process, so no
  // group inherits the heap, GC debt or kernel mappings of the groups before it.
  const runGroups = (cases) =>
    spawn
      ? runIsolated(cases, { script: SCRIPT, per: "group", childArgs: [...childArgs, ...(args.options.time ? [`--time=${args.options.time}`] : [])], log })
      : runRoundRobin(cases, { ...opts, afterIteration: collectIfBun });
  const alloc = filterCases(allocCases(), args.filter);
  if (alloc.length) {
    show("alloc", await runGroups(alloc), "alloc: fixed vs resizable allocation (one buffer + a Uint8Array view per op)");
  }

  const grow = filterCases(growCases(), args.filter);
  if (grow.length) {
    show("grow", await runGroups(grow),
      "grow: concatenating fixed-size chunks vs resizing in place (step→total; every strategy writes the same pieces with set)");
  }

  const stores = filterCases(STORE_CASES, args.filter);
  const elements = stores.filter((c) => c.group.startsWith("element/"));
  const bulk = stores.filter((c) => c.group.startsWith("bulk/"));
  const runStores = (cases) =>
    spawn
      ? runIsolated(cases, { script: SCRIPT, per: "case", rounds: CONFIG.storeRounds, childArgs, log })
      : runRoundRobin(cases, opts);
  const where = spawn ? `fresh process per case, ${CONFIG.storeRounds} round(s)` : "in one process";
  if (elements.length) {
    show("element", await runStores(elements), `element: per-element stores over ${formatBytes(N)} (${where})`);
  }
  if (bulk.length) {
    show("bulk", await runStores(bulk), `bulk: bulk stores filling ${formatBytes(N)} (${where})`);
  }

  const memory = await memorySection(spawn);
  if (memory) report.sections.memory = memory;

  if (args.json) console.log(JSON.stringify(report));
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  printGeometricMeans(report.sections);
}

/**
 * The last lines of every run: per timed section, each case's speed
 * relative to its group's base, as a geometric mean over the groups it runs
 * in (the bases differ per section: see each table).
 * @param {Record<string, any>} sections
 */
function printGeometricMeans(sections) {
  console.log(`\ngeometric means of speed ×base over each section's groups (above 1 = faster than the group's base case)${QUICK ? "; --quick: the smallest sizes only" : ""}:`);
  for (const key of ["alloc", "grow", "element", "bulk"]) {
    const rows = sections[key];
    if (!rows) continue;
    /** @type {Map<string, number[]>} */
    const byName = new Map();
    for (const r of rows) {
      if (r.baseline || !Number.isFinite(r.speed)) continue;
      if (!byName.has(r.name)) byName.set(r.name, []);
      byName.get(r.name).push(r.speed);
    }
    for (const [name, speeds] of byName) {
      console.log(`geometric mean, ${key}: ${name}: ${formatSpeed(geomean(speeds))}x the base's speed (${speeds.length} group${speeds.length === 1 ? "" : "s"})`);
    }
  }
}
