// Memory benchmark: peak RSS over the baseline of each library encoding a
// ~130 MB record array (~400 MB with --large), as many string-rich records
// whose strings are ropes (built by concatenation) and a 200 MiB binary
// value, each (library, data set) in a fresh process of the same runtime.
//
//   node benchmarks/memory.js [--quick] [--large] [--write] [--json] [FILTER...]
//   node benchmarks/memory.js --summary   results/memory.svg from results/memory-{node,bun,deno}.json
//   bun benchmarks/memory.js
//   deno run -A benchmarks/memory.js
//
// In each child: build the input, encode a small sample once so code and
// module buffers exist, collect garbage (where the runtime lets us) until
// the RSS stops moving, then
// reset the kernel's peak-RSS mark (Linux: write 5 to /proc/self/clear_refs)
// and read the RSS: that is the baseline. Encode the input once, keep the
// result alive, read the peak (VmHWM). Peak over baseline = VmHWM - baseline:
// everything the encode touched, output included (a 130 MB output alone is
// 130 MB). Where the peak mark cannot be reset, the baseline is taken the
// same way and the peak is the RSS after the encode (a lower bound; said so).
//
// Besides the peers, this library runs under each output strategy. Peaks are
// given as x the output (smaller is better), and every run ends with them per
// data set; data set names carry their real size (records-1.3m under --quick),
// and a --quick run says why its peaks are not a full run's.

import { Buffer } from "node:buffer";
import { pack as msgpackrPack } from "msgpackr";
import { Encoder as MMEncoder } from "@msgpack/msgpack";
import notepack from "notepack.io";
import msgpackLite from "msgpack-lite";
import { strategyEncode } from "./lib/output-strategies.js";
import { parseCli, pathFromUrl, printRuntimeInfo, receiveFromChild, runtimeName, sendToParent } from "./lib/round-robin.js";
import { blob, records, recordsOfSize, ropeRecordsOfSize } from "./fixtures.js";
import { describeLoad, emitReport, formatSize, loadLibrary, machine, mdTable, readResult, useResultsDir, writeResult } from "./report.js";
import { RUNTIME_COLORS, barChartSvg } from "./plot.js";

const g = /** @type {any} */ (globalThis);
const args = parseCli({
  script: "memory.js",
  summary:
    "Peak memory (RSS over the baseline) of encoding once, one fresh process per library and data set: a ~130 MB " +
    "record array, ~130 MB of records whose strings are built by concatenation (ropes) and a 200 MiB binary " +
    "(--quick: ~1.3 MB, ~1.3 MB and 2 MiB), for this library under each output strategy, " +
    "msgpackr, @msgpack/msgpack, notepack.io, msgpack-lite and JSON. Linux gives exact peaks; elsewhere a lower bound. " +
    "Needs the library built (npm run build).",
  fullRun: "3-6 minutes per runtime on 2 cores, and about 1.5 GB of free memory",
  quickRun: "about 47 s (measured on 2 cores at load average 10-12, shared with other jobs)",
  deno: "-A",
  options: {
    quick: "~1.3 MB of each kind of records and a 2 MiB binary, named records-1.3m, rope-records-1.3m, binary-2m (what the tests run)",
    large: "~400 MB of each kind of records instead of ~130 MB (about 4 GB of free memory, 3x the time)",
    write: "also write results/memory-<runtime>.{json,md} (memory-large-<runtime> with --large), and (full runs) redraw results/memory.svg",
    summary: "redraw results/memory.svg (the chart of peaks) from results/memory-{node,bun,deno}.json, without running anything",
    "results=DIR": "read and write the results files in DIR instead of benchmarks/results (the tests redraw from a copy)",
    json: "also print the report as one JSON line",
    wide: "print the Markdown tables wider than 120 columns too (they are always in the files --write saves)",
  },
  filter: "regular expressions on \"<data set>/<library>\", e.g. 'binary.*msgpackr$'",
  examples: ["node benchmarks/memory.js --quick", "node benchmarks/memory.js 'records.*(msgpackr|@resizable/msgpack)$'"],
});
const QUICK = args.quick;
const LARGE = args.options.large === true && !QUICK;
/** Records size: ~130 MB, ~400 MB with --large, ~1.3 MB with --quick; the data set names say it ("records-1.3m"). */
const RECORD_BYTES = QUICK ? 1.3e6 : LARGE ? 400e6 : 130e6;
const RECORD_SUFFIX = `${RECORD_BYTES / 1e6}m`;
const RECORD_SIZE = `~${RECORD_BYTES / 1e6} MB`;
const MiB = 1024 * 1024;
/** The binary: 200 MiB, 2 MiB with --quick ("binary-2m"). */
const BINARY_MIB = QUICK ? 2 : 200;
const QUICK_NOTE = QUICK ? " (--quick)" : "";
const SCRIPT = pathFromUrl(import.meta.url);
/**
 * Said at the end of a --quick run (and in its report): at ~1.3 MB the
 * peaks measure what does not grow with the data more than the encode.
 */
const QUICK_CAVEAT =
  "note: --quick encodes ~1.3 MB of records and a 2 MiB binary, too little to show what a full run (~130 MB, 200 MiB) does: " +
  "this library writes records this small through a store it keeps for the next call (up to 16 MiB), so store and result both count, " +
  "where from 16 MiB of output on the store's pages are released as the result is copied out (Node, Deno); young-generation garbage " +
  "and the allocator's steps weigh more too. The ratios to the output are larger here and can rank the libraries the other way round from a full run: " +
  "quote full runs only (results/memory-<runtime>.md, benchmarks/README.md).";

const lib = await loadLibrary();

/** Library name -> encoder factory (called in the child only). Binary inputs get a zero-copy Buffer where a library needs one. */
const LIBRARIES = /** @type {Record<string, { make: () => (v: any) => Uint8Array, needsBuffer?: boolean, binary?: boolean }>} */ ({
  "@resizable/msgpack": { make: () => (v) => lib.encode(v) },
  "@resizable/msgpack (exact)": { make: () => strategyEncode("exact", new lib.Encoder()) },
  "@resizable/msgpack (chunks)": { make: () => strategyEncode("chunks", new lib.Encoder()) },
  msgpackr: { make: () => (v) => msgpackrPack(v) },
  "@msgpack/msgpack": { make: () => ((e) => (v) => e.encode(v))(new MMEncoder()) },
  "notepack.io": { make: () => (v) => notepack.encode(v) },
  "msgpack-lite": { make: () => (v) => msgpackLite.encode(v), needsBuffer: true },
  JSON: { make: () => ((te) => (v) => te.encode(JSON.stringify(v)))(new TextEncoder()), binary: false },
});

/** @type {Record<string, { what: string, build: () => unknown, binary: boolean }>} */
const DATASETS = {
  [`records-${RECORD_SUFFIX}`]: {
    what: `${RECORD_SIZE} record array${QUICK_NOTE}`,
    build: () => recordsOfSize(RECORD_BYTES, (v) => lib.encodedSize(v)),
    binary: false,
  },
  [`rope-records-${RECORD_SUFFIX}`]: {
    what: `${RECORD_SIZE} string-rich records, strings built as ropes${QUICK_NOTE}`,
    build: () => ropeRecordsOfSize(RECORD_BYTES, (v) => lib.encodedSize(v)),
    binary: false,
  },
  [`binary-${BINARY_MIB}m`]: { what: `${BINARY_MIB} MiB Uint8Array${QUICK_NOTE}`, build: () => blob(BINARY_MIB * MiB), binary: true },
};


// ---------------------------------------------------------------------------
// Child

/** /proc/self/status fields in bytes, or null off Linux / without read access. */
function procStatus() {
  try {
    const fs = g.process?.getBuiltinModule?.("node:fs") ?? g.__memoryFs;
    const text = fs.readFileSync("/proc/self/status", "utf8");
    const kb = (/** @type {string} */ k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)?.[1]) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

function resetPeak() {
  try {
    const fs = g.process?.getBuiltinModule?.("node:fs") ?? g.__memoryFs;
    fs.writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

function rssNow() {
  const s = procStatus();
  if (s) return s.rss;
  if (runtimeName() === "deno") return g.Deno.memoryUsage().rss;
  return g.process.memoryUsage().rss;
}

function collect() {
  if (typeof g.gc === "function") {
    g.gc();
    g.gc();
  } else if (typeof g.Bun?.gc === "function") g.Bun.gc(true);
}

/**
 * Collects garbage and waits until the RSS stops moving (within 1 MB over
 * 250 ms): the engine returns freed heap pages to the OS lazily, and pages
 * it returns during the encode would make the peak look smaller.
 */
async function settle() {
  let prev = -1;
  for (let i = 0; i < 12; i++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = rssNow();
    if (prev >= 0 && Math.abs(now - prev) < 1e6) return;
    prev = now;
  }
}

/** @param {string} id "<dataset>/<library>" */
async function child(id) {
  g.__memoryFs = await import("node:fs");
  const slash = id.indexOf("/");
  const ds = DATASETS[id.slice(0, slash)], entry = LIBRARIES[id.slice(slash + 1)];
  if (!ds || !entry) throw new Error(`No memory case ${id}`);
  const encode = entry.make();
  /** @type {any} */
  let input = ds.build();
  if (ds.binary && entry.needsBuffer) input = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  // warm up: code, lazily created module buffers
  consumeAll(encode(ds.binary ? input.subarray(0, 1024) : records(8)));
  await settle();
  const gcAvailable = typeof g.gc === "function" || typeof g.Bun?.gc === "function";
  const reset = resetPeak();
  const baseline = rssNow();
  const t0 = performance.now();
  const out = encode(input);
  const ms = performance.now() - t0;
  const after = procStatus();
  const peak = reset && after ? after.hwm : after ? after.rss : rssNow();
  sendToParent({ id, bytes: out.length, ms, baseline, peak, overBaseline: peak - baseline, exact: reset && after !== null, gc: gcAvailable });
  consumeAll(out);
}

/** @type {unknown} */
let kept;
/** @param {unknown} v */
function consumeAll(v) {
  kept = v;
}

// ---------------------------------------------------------------------------
// Parent

/** Runs one case in a fresh process of this runtime, with GC exposed. @param {string} id */
async function spawnCase(id) {
  const { spawnSync } = await import("node:child_process");
  const rt = runtimeName();
  const extra = [`--child=${id}`, ...(QUICK ? ["--quick"] : []), ...(LARGE ? ["--large"] : [])];
  const cmd =
    rt === "deno"
      ? [g.Deno.execPath(), ["run", "-A", "--v8-flags=--expose-gc", SCRIPT, ...extra]]
      : rt === "node"
        ? [g.process.execPath, ["--expose-gc", SCRIPT, ...extra]]
        : [g.process.execPath, [SCRIPT, ...extra]];
  let error = "";
  // a second try: dist/ may be mid-rebuild (`npm run build` empties it first) when a child starts
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 5000));
    const r = spawnSync(/** @type {string} */ (cmd[0]), /** @type {string[]} */ (cmd[1]), { encoding: "utf8", maxBuffer: 16 << 20, timeout: 600_000 });
    if (r.status === 0) return receiveFromChild(String(r.stdout));
    const lines = String(r.stderr).trim().split("\n").filter((l) => /error|cannot|memory/i.test(l));
    error = `exit ${r.status ?? r.signal}: ${(lines.length ? lines : String(r.stderr).trim().split("\n")).slice(-2).join(" ").slice(0, 200)}`;
  }
  return { id, error };
}

async function main() {
  const info = await machine();
  printRuntimeInfo("memory: peak RSS over the baseline while encoding, one fresh process per case");
  console.log(describeLoad(info.loadAverage, info.cpus));
  /** @type {any[]} */
  const rows = [];
  for (const [dsName, ds] of Object.entries(DATASETS)) {
    for (const [libName, entry] of Object.entries(LIBRARIES)) {
      const id = `${dsName}/${libName}`;
      if (args.filter && !args.filter.test(id)) continue;
      if (ds.binary && entry.binary === false) {
        rows.push({ id, dataset: dsName, library: libName, skipped: "cannot encode binary faithfully" });
        continue;
      }
      const r = await spawnCase(id);
      const row = { dataset: dsName, library: libName, ...r };
      rows.push(row);
      console.log(
        r.error
          ? `${id}: failed: ${r.error}`
          : `${id}: peak ${formatSize(r.overBaseline)} over a ${formatSize(r.baseline)} baseline for ${formatSize(r.bytes)} of output (${(r.overBaseline / r.bytes).toFixed(2)}x), ${r.ms.toFixed(0)} ms${r.exact ? "" : " (peak not resettable: RSS after, a lower bound)"}`,
      );
    }
  }
  const report = { benchmark: LARGE ? "memory-large" : "memory", quick: QUICK, machine: info, loadAfter: (await machine()).loadAverage, datasets: Object.fromEntries(Object.entries(DATASETS).map(([k, v]) => [k, v.what])), rows };
  await emitReport(report, markdown(report), args);
  if (args.options.write && !QUICK && !LARGE) await plot();
  printPeaks(report);
}

/** The libraries the chart shows (the output strategies are the benchmark's own, in the tables). */
const CHARTED = ["@resizable/msgpack", "msgpackr", "@msgpack/msgpack", "notepack.io", "msgpack-lite", "JSON"];

/**
 * Draws results/memory.svg from the saved full runs,
 * results/memory-{node,bun,deno}.json: per data set, each library's peak
 * over the baseline as × its output, one bar per runtime, on one linear
 * scale with a line at 1 (the output alone). The subtitle names the runs.
 */
async function plot() {
  /** @type {[string, any][]} */
  const runs = [];
  for (const rt of ["node", "bun", "deno"]) {
    const text = await readResult(`memory-${rt}.json`);
    if (text) runs.push([rt, JSON.parse(text)]);
  }
  if (runs.length === 0) {
    console.error("No results/memory-<runtime>.json to plot: run with --write first");
    return;
  }
  const first = runs[0][1];
  const svg = barChartSvg({
    title: "Peak memory while encoding once, as × the output size (smaller is better; 1 = the output alone)",
    subtitle:
      `From results/memory-*.json (the README's numbers): ${runs.map(([, r]) => `${r.machine.runtime} ${r.machine.version}`).join(", ")}; ` +
      `commit ${[...new Set(runs.map(([, r]) => r.machine.commit))].join(", ")}; one fresh process per bar; ${first.machine.date.slice(0, 10)}`,
    series: runs.map(([rt, r]) => ({ name: `${rt} ${r.machine.version}`, color: RUNTIME_COLORS[/** @type {keyof typeof RUNTIME_COLORS} */ (rt)] ?? "#888" })),
    panelWidth: 300,
    panels: Object.keys(first.datasets).map((ds) => ({
      title: ds,
      scale: /** @type {const} */ ("linear"),
      reference: { x: 1, label: "the output" },
      xLabel: "peak over baseline ÷ output size",
      rows: CHARTED.map((name) => ({
        label: name,
        note: "cannot encode binaries",
        values: runs.map(([, r]) => {
          const row = r.rows.find((/** @type {any} */ x) => x.dataset === ds && x.library === name);
          return row && !row.skipped && !row.error && row.bytes > 0 ? row.overBaseline / row.bytes : null;
        }),
      })),
    })),
    notes: [
      `Data: ${Object.entries(first.datasets).map(([ds, what]) => `${ds} = ${what}`).join("; ")}.`,
      "Linux VmHWM after resetting it, minus the RSS before the encode; the output counts, so 1 is the floor for a library that returns one buffer.",
    ],
  });
  const path = await writeResult("memory.svg", svg);
  if (path) console.log(`wrote ${path}`);
}

/**
 * The last lines of every run: per data set, each library's peak as a
 * multiple of its output (the figures the README quotes for full runs),
 * smallest first, and with --quick the note that these are not them.
 * @param {any} report
 */
function printPeaks(report) {
  console.log("\npeak over the baseline as × the output size (smaller is better; 1.00x = the output alone):");
  for (const ds of Object.keys(report.datasets)) {
    const rows = report.rows.filter((/** @type {any} */ r) => r.dataset === ds && !r.skipped && !r.error && r.bytes > 0);
    if (rows.length === 0) continue;
    rows.sort((/** @type {any} */ a, /** @type {any} */ b) => a.overBaseline / a.bytes - b.overBaseline / b.bytes);
    console.log(`peaks, ${ds}: ${rows.map((/** @type {any} */ r) => `${r.library} ${(r.overBaseline / r.bytes).toFixed(2)}x${r.exact ? "" : " (lower bound)"}`).join(", ")}`);
  }
  if (report.quick) console.log(QUICK_CAVEAT);
}

/** @param {any} report */
export function markdown(report) {
  const m = report.machine;
  const out = [
    `### Memory on ${m.runtime} ${m.version}`,
    "",
    `${m.line}; ${describeLoad(m.loadAverage, m.cpus)}; ${m.date}.`,
    "",
    "Peak RSS over the baseline while encoding once, one fresh process per cell (Linux VmHWM after resetting it via /proc/self/clear_refs, minus the RSS before the encode; the output itself is included). In brackets: the peak as × the output size (smaller is better; 1.00x = the output alone).",
    "",
    ...(report.quick ? [QUICK_CAVEAT, ""] : []),
  ];
  const libs = [...new Set(report.rows.map((/** @type {any} */ r) => r.library))];
  const sets = Object.keys(report.datasets);
  const rows = libs.map((name) => [
    name,
    ...sets.map((ds) => {
      const r = report.rows.find((/** @type {any} */ x) => x.library === name && x.dataset === ds);
      if (!r) return "-";
      if (r.skipped) return `n/a (${r.skipped})`;
      if (r.error) return `failed: ${r.error.slice(0, 60)}`;
      return `${formatSize(r.overBaseline)} (${(r.overBaseline / r.bytes).toFixed(2)}x)${r.exact ? "" : " ≥"}`;
    }),
    ...sets.map((ds) => {
      const r = report.rows.find((/** @type {any} */ x) => x.library === name && x.dataset === ds);
      return r && !r.skipped && !r.error ? `${r.ms.toFixed(0)} ms` : "-";
    }),
  ]);
  out.push(mdTable(["library", ...sets.map((s) => `${s}: ${report.datasets[s]}`), ...sets.map((s) => `time ${s}`)], rows), "");
  return out.join("\n");
}

await useResultsDir(args.options.results);
if (args.child) await child(args.child);
else if (args.options.summary) await plot();
else await main();
