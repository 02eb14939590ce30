// Strategies benchmark: this library's `encode` under each output strategy,
// from one double to 900 MB of output.
//
//   node benchmarks/strategies.js [--quick] [--max-size=1e8] [--write] [--json] [FILTER...]
//   bun benchmarks/strategies.js
//   deno run benchmarks/strategies.js            (add --allow-read --allow-write for --write)
//   node benchmarks/strategies.js --plot-only     (redraw results/strategies.svg from results/*.json)
//
// Strategies (one Encoder each, kept across calls as an application would;
// each built from the public API, see lib/output-strategies.js):
//   default           encode(): resizable store sized from the estimate, else chunks
//   exact             plain buffer of encodedSize(value) bytes filled by encodeInto (two walks)
//   chunks            encodeChunks(), one concat at the end
// Data:
//   vectors/N   N doubles (float 64), N = 10^0 .. 10^8 in half-decade steps
//   nested      obj = [obj, obj] 20 times (2^20 leaves, ~2 MB)
//   records/B   arrays of records whose encoding is ~B bytes, 1 kB .. 100 MB
// Each group (one data set) runs round-robin: every iteration runs each
// strategy once, in rotating order. Bandwidth is GB/s of output at p50;
// speed ×default is the default's p50 time / this strategy's p50 time
// (above 1: faster than the default). Every run ends with the geometric
// means of those speeds per data family (what results/strategies-summary.md
// and the README quote for full runs).
//
// Dependency-free: imports the library's build (dist/index.js), the
// round-robin harness, the strategies and sibling helpers only.

import { strategyEncode } from "./lib/output-strategies.js";
import { consume, formatBytes, formatSpeed, formatTime, geomean, parseCli, printTable, printRuntimeInfo, runRoundRobin, runtimeName } from "./lib/round-robin.js";
import { doubles, halfDecades, nestedList, recordsOfSize } from "./fixtures.js";
import { describeLoad, emitReport, formatSize, loadLibrary, machine, mdTable, parseSize, readResult, sig3, useResultsDir, writeResult } from "./report.js";
import { RUNTIME_COLORS, gridSvg } from "./plot.js";

const args = parseCli({
  script: "strategies.js",
  summary:
    "This library's encode speed under each output strategy (default, exact, chunks), from one double to 900 MB of output, on arrays of doubles, a nested array and record arrays. " +
    "Needs the library built (npm run build).",
  fullRun: "5-8 minutes per runtime on 2 cores (up to 900 MB of output; --max-size shortens it)",
  quickRun: "about 4 s (measured on 2 cores at load average 10-12, shared with other jobs)",
  deno: "--allow-read --allow-write --allow-sys",
  options: {
    quick: "outputs up to 1 MB, few samples (what the tests run)",
    "max-size=SIZE": "stop at this output size: 1e8, 100M, 64MiB... (default 1e9, --quick 1e6)",
    "only=LIST": "data families to run, comma-separated: vectors, nested, records (default all)",
    write: "also write results/strategies-<runtime>.{json,md} and redraw results/strategies.svg (full runs only)",
    json: "also print the report as one JSON line",
    "plot-only": "only redraw results/strategies.svg and rewrite results/strategies-summary.md and results/strategies-<runtime>.md from the results/strategies-*.json files",
    wide: "show every percentile column (p1, p25, p50, p75, p99); the tables are then wider than 120 columns",
    "results=DIR": "read and write the results files in DIR instead of benchmarks/results (the tests redraw from a copy)",
  },
  filter: "regular expressions on \"<data set>\" or \"<data set>/<strategy>\", e.g. 'vectors/1000$'",
  examples: ["node benchmarks/strategies.js --quick", "node benchmarks/strategies.js --max-size=10M --only=records"],
});
const QUICK = args.quick;
const MAX_SIZE = args.options["max-size"] ? parseSize(String(args.options["max-size"])) : QUICK ? 1e6 : 1e9;
const ONLY = args.options.only ? String(args.options.only).split(",") : ["vectors", "nested", "records"];

/** Strategy name (see lib/output-strategies.js) and the title of its panel in the plot. */
export const STRATEGIES = /** @type {const} */ ([
  { name: "default", label: "default (auto: resizable + estimate)" },
  { name: "exact", label: "exact (encodedSize pre-pass)" },
  { name: "chunks", label: "chunk list + concat" },
]);

const LEGEND =
  "GB/s = output bytes / p50 time per encode. speed ×base = p50 of the default strategy (the base) / p50 of this one: above 1 = faster than the default, below 1 = slower. " +
  "p1..p99: percentiles of the time per encode over all round-robin samples.";

/** Run options by output size: many short samples for small data, a few single encodes for huge data. @param {number} bytes */
function runOptions(bytes) {
  if (QUICK) return { iterations: 6, minIterations: 3, warmup: 1, maxTimeMs: 100, minSampleMs: 0.5 };
  if (bytes < 1e6) return { iterations: 80, minIterations: 10, warmup: 5, maxTimeMs: 1500, minSampleMs: 2 };
  if (bytes < 1e8) return { iterations: 25, minIterations: 5, warmup: 2, maxTimeMs: 4000, minSampleMs: 0 };
  return { iterations: 3, minIterations: 3, warmup: 1, maxTimeMs: 0, minSampleMs: 0 };
}

/** Same bytes? @param {Uint8Array} a @param {Uint8Array} b */
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The data sets, lazily built: [family, label, param, build()]. @param {(v: unknown) => number} sizeOf */
function datasets(sizeOf) {
  /** @type {{ family: string, label: string, param: number, build: () => unknown }[]} */
  const list = [];
  if (ONLY.includes("vectors")) {
    for (const n of halfDecades(0, 8)) {
      if (9 * n + 5 > MAX_SIZE) break;
      list.push({ family: "vectors", label: `vectors/${n}`, param: n, build: () => doubles(n) });
    }
  }
  if (ONLY.includes("nested")) {
    const depth = QUICK ? 10 : 20;
    list.push({ family: "nested", label: `nested/2^${depth}`, param: depth, build: () => nestedList(depth) });
  }
  if (ONLY.includes("records")) {
    for (const b of halfDecades(3, 8)) {
      if (b > MAX_SIZE) break;
      list.push({ family: "records", label: `records/${formatSize(b)}`, param: b, build: () => recordsOfSize(b, sizeOf) });
    }
  }
  return list.filter((d) => !args.filter || args.filter.test(d.label) || STRATEGIES.some((s) => args.filter?.test(`${d.label}/${s.name}`)));
}

async function main() {
  const lib = await loadLibrary();
  const info = await machine();
  printRuntimeInfo("strategies: encode under each output strategy");
  console.log(`${describeLoad(info.loadAverage, info.cpus)}; max output size ${formatSize(MAX_SIZE)}${QUICK ? " (--quick)" : ""}`);

  const encoders = STRATEGIES.map((s) => strategyEncode(s.name, new lib.Encoder()));
  const sizeOf = (/** @type {unknown} */ v) => lib.encodedSize(v);
  /** @type {any[]} */
  const groups = [];
  for (const d of datasets(sizeOf)) {
    const t0 = performance.now();
    let value = d.build();
    const built = performance.now() - t0;
    const bytes = sizeOf(value);
    // verify: every strategy gives the same bytes, of the exact size
    const ref = encoders[0](value);
    if (ref.length !== bytes) throw new Error(`${d.label}: default encode gave ${ref.length} bytes, encodedSize says ${bytes}`);
    encoders.forEach((e, i) => {
      if (i > 0 && !sameBytes(e(value), ref)) throw new Error(`${d.label}: strategy ${STRATEGIES[i].name} gave different bytes`);
    });
    consume(ref);
    const cases = STRATEGIES.map((s, i) => ({
      group: d.label,
      name: s.name,
      bytes,
      baseline: i === 0,
      fn: () => encoders[i](value),
    }));
    const results = runRoundRobin(cases, runOptions(bytes));
    printTable(results, { legend: false, wide: args.wide });
    console.log(`(${formatSize(bytes)} of output; data built in ${formatTime(built)}, all cases ${formatTime(performance.now() - t0 - built)})`);
    groups.push({
      family: d.family,
      label: d.label,
      param: d.param,
      bytes,
      results: results.map((r) => ({ strategy: r.name, samples: r.samples, p1: r.p1, p25: r.p25, p50: r.p50, p75: r.p75, p99: r.p99, gbps: bytes / r.p50 / 1e6, speed: r.speed })),
    });
    value = null;
  }
  console.log(`legend: ${LEGEND}`);

  const report = { benchmark: "strategies", quick: QUICK, maxSize: MAX_SIZE, scratchBytes: scratchBytes(lib), machine: info, loadAfter: (await machine()).loadAverage, strategies: STRATEGIES, groups };
  await emitReport(report, markdown(report), args);
  if (args.options.write && !QUICK) await plotAll();
  console.log("\n" + geometricMeans(report));
}

/**
 * The last lines of every run: per data family, the geometric mean of each
 * strategy's speed relative to the default over the sizes past the scratch,
 * as results/strategies-summary.md gives them for full runs.
 * @param {any} report
 */
function geometricMeans(report) {
  const lines = [`geometric means of speed ×default (above 1 = faster than the default), over the sizes past the ${formatBytes(scratchOf(report))} scratch${report.quick ? "; --quick: outputs up to 1 MB, not the sizes the README quotes" : ""}:`];
  for (const family of ["vectors", "nested", "records"]) {
    const gs = report.groups.filter((/** @type {any} */ x) => x.family === family && x.bytes > scratchOf(report));
    if (gs.length === 0) {
      if (report.groups.some((/** @type {any} */ x) => x.family === family)) lines.push(`geometric mean, ${family}: no size past the scratch in this run`);
      continue;
    }
    const cells = STRATEGIES.map((st) => `${st.name} ${formatSpeed(geomean(gs.map((/** @type {any} */ gr) => speedOf(gr, st.name))))}`);
    lines.push(`geometric mean, ${family} (${gs.length} size${gs.length === 1 ? "" : "s"}): ${cells.join(", ")}`);
  }
  return lines.join("\n");
}

/**
 * A strategy's speed relative to the default in one group: the default's
 * p50 / its p50 (from the times, so results saved before the speed was
 * recorded read the same way).
 * @param {any} group @param {string} strategy
 */
function speedOf(group, strategy) {
  const def = group.results.find((/** @type {any} */ r) => r.strategy === "default");
  const r = group.results.find((/** @type {any} */ x) => x.strategy === strategy);
  return def && r ? def.p50 / r.p50 : NaN;
}

/** The encoder's scratch size in a report (reports before it was recorded ran with 64 KiB). @param {any} report @returns {number} */
function scratchOf(report) {
  return report.scratchBytes ?? 65536;
}

/**
 * The default scratch size of this build: read off a fresh Encoder's output (not
 * exported; private fields are plain properties in the build), else 256 KiB.
 * @param {any} lib
 */
function scratchBytes(lib) {
  const n = /** @type {any} */ (new lib.Encoder()).output?.scratchSize;
  return typeof n === "number" && n > 0 ? n : 256 * 1024;
}

/** The summary tables and answers, as Markdown. @param {any} report */
export function markdown(report) {
  const m = report.machine;
  const lines = [
    `### Strategies on ${m.runtime} ${m.version}`,
    "",
    `${m.line}; ${describeLoad(m.loadAverage, m.cpus)} at start, ${describeLoad(report.loadAfter, m.cpus).replace(/ \(HIGH.*/, "")} at the end; ${m.date}.`,
    "",
    "GB/s of output at p50 per strategy, and in brackets its speed ×default: the default's p50 / this strategy's p50 (above 1 = faster than the default, bigger is better).",
    "",
  ];
  for (const family of ["vectors", "nested", "records"]) {
    const gs = report.groups.filter((/** @type {any} */ x) => x.family === family);
    if (gs.length === 0) continue;
    const title = { vectors: "Vectors of doubles", nested: "Nested list obj = [obj, obj]", records: "Record arrays" }[family];
    lines.push(`**${title}**: each cell GB/s (speed ×default; above 1 = faster than the default)`, "");
    const header = [family === "vectors" ? "doubles" : family === "nested" ? "depth" : "target", "output", ...STRATEGIES.map((s) => s.name), "fastest"];
    const rows = gs.map((/** @type {any} */ gr) => {
      const best = [...gr.results].sort((a, b) => a.p50 - b.p50)[0];
      return [
        family === "records" ? formatSize(gr.param) : family === "nested" ? `2^${gr.param}` : gr.param.toLocaleString("en-US"),
        formatSize(gr.bytes),
        ...gr.results.map((/** @type {any} */ r) => `${sig3(r.gbps)} (${speedOf(gr, r.strategy).toFixed(2)})`),
        best.strategy,
      ];
    });
    lines.push(mdTable(header, rows), "");
  }
  lines.push(...answers(report), "");
  return lines.join("\n");
}

/** "What does this runtime prefer", from the numbers. @param {any} report */
function answers(report) {
  const out = ["**Answers**", ""];
  for (const family of ["vectors", "nested", "records"]) {
    // below the scratch every strategy but exact runs the same code: differences there are noise
    const gs = report.groups.filter((/** @type {any} */ x) => x.family === family && x.bytes > scratchOf(report));
    if (gs.length === 0) continue;
    /** @type {string[]} */
    const spans = [];
    let cur = "", start = 0, end = 0;
    for (const gr of gs) {
      const sorted = [...gr.results].sort((a, b) => a.p50 - b.p50);
      // strategies within 3% of the fastest count as tied
      const best = sorted.filter((r) => r.p50 <= sorted[0].p50 * 1.03).map((r) => r.strategy).join(" = ");
      if (best !== cur) {
        if (cur) spans.push(`${cur} (${formatSize(start)}${start !== end ? `..${formatSize(end)}` : ""})`);
        cur = best;
        start = gr.bytes;
      }
      end = gr.bytes;
    }
    if (cur) spans.push(`${cur} (${formatSize(start)}${start !== end ? `..${formatSize(end)}` : ""})`);
    out.push(`- Fastest strategy on ${report.machine.runtime}, ${family}, above the ${formatBytes(scratchOf(report))} scratch (ties within 3%): ${spans.join(", ")}.`);
  }
  return out;
}

/** Redraws results/strategies.svg from the full-run JSON of every runtime present. */
export async function plotAll() {
  /** @type {any[]} */
  const reports = [];
  for (const rt of ["node", "bun", "deno"]) {
    const text = await readResult(`strategies-${rt}.json`);
    if (text) reports.push(JSON.parse(text));
    // the per-runtime tables too, in this version's wording, from the same numbers
    if (text && args.options["plot-only"]) {
      const md = await writeResult(`strategies-${rt}.md`, markdown(JSON.parse(text)) + "\n");
      if (md) console.log(`wrote ${md}`);
    }
  }
  if (reports.length === 0) {
    console.error("No results/strategies-<runtime>.json to plot: run with --write first");
    return;
  }
  // One idea per panel, one line per runtime (the colours of the other charts): first what the default
  // reaches, then each other strategy's speed relative to it, so a line above 1 is a strategy that beats it.
  const families = /** @type {const} */ ([["vectors", "vectors of doubles"], ["records", "record arrays"]]);
  const series = (/** @type {(report: any, group: any) => number} */ y, /** @type {string} */ family) =>
    reports.map((rep) => ({
      name: `${rep.machine.runtime} ${rep.machine.version}`,
      color: RUNTIME_COLORS[/** @type {keyof typeof RUNTIME_COLORS} */ (rep.machine.runtime)] ?? "#888",
      points: rep.groups.filter((/** @type {any} */ x) => x.family === family).map((/** @type {any} */ gr) => /** @type {[number, number]} */ ([gr.bytes, y(rep, gr)])),
    }));
  const scratch = Math.max(...reports.map(scratchOf));
  const markers = [{ x: scratch, label: `${formatBytes(scratch)} scratch` }];
  /** @type {import("./plot.js").Panel[]} */
  const bandwidth = families.map(([family, what]) => ({
    title: `default: GB/s, ${what}`,
    xLabel: "output size (log scale)",
    yLabel: "GB/s of output (p50)",
    markers,
    series: series((_, gr) => gr.results.find((/** @type {any} */ r) => r.strategy === "default")?.gbps ?? NaN, family),
  }));
  /** @type {import("./plot.js").Panel[]} */
  const versus = STRATEGIES.slice(1).flatMap((st) =>
    families.map(([family, what]) => ({
      title: `${st.label}, ${what}`,
      xLabel: "output size (log scale)",
      yLabel: "speed ×default",
      markers,
      reference: { y: 1, label: "the default" },
      series: series((_, gr) => speedOf(gr, st.name), family),
    })),
  );
  // one y scale for the bandwidth panels and one for the ratios, so panels compare by eye
  for (const same of [bandwidth, versus]) {
    const top = Math.max(0, ...same.flatMap((p) => p.series.flatMap((s) => s.points.map(([, y]) => y)).filter(Number.isFinite)));
    for (const p of same) if (top > 0) p.yMax = top;
  }
  const m = reports[0].machine;
  const svg = gridSvg({
    title: "@resizable/msgpack encode: the default output strategy, and each other one relative to it",
    subtitle: `${m.os} ${m.arch}, ${m.cpus} CPUs ${m.cpuModel}; one line per runtime; ${reports.map((r) => `${r.machine.runtime} ${r.machine.version}`).join(", ")}; ${m.date.slice(0, 10)}`,
    panels: [...bandwidth, ...versus],
    columns: 2,
    panelHeight: 230,
    notes: [
      "speed ×default = the default's p50 time / this strategy's (above the line at 1: faster than the default). Top row: the default's own GB/s.",
      `Left of the dashed ${formatBytes(scratch)} line the output fits the scratch buffer: every strategy but exact runs the default's code there (differences are noise).`,
    ],
  });
  const path = await writeResult("strategies.svg", svg);
  if (path) console.log(`wrote ${path}`);
  const summary = summaryMarkdown(reports);
  console.log("\n" + summary);
  const sp = await writeResult("strategies-summary.md", summary + "\n");
  if (sp) console.log(`wrote ${sp}`);
}

/**
 * Across runtimes: per family, the geometric mean over sizes past the
 * scratch of each strategy's speed relative to the default (bigger is
 * faster), and how often it was fastest (ties within 3% count for each).
 * @param {any[]} reports
 */
export function summaryMarkdown(reports) {
  const lines = [
    "### Strategies summary: all runtimes",
    "",
    "Per runtime and data family, over every size past the encoder's scratch buffer (below it all strategies but `exact` run the same code): " +
      "the geometric mean of each strategy's speed ×default (the default's p50 time / the strategy's; above 1 = faster than the default, bigger is better), and in brackets how many sizes it was fastest at (ties within 3% count for each).",
    "",
  ];
  const rows = [];
  for (const rep of reports) {
    for (const family of ["vectors", "nested", "records"]) {
      const gs = rep.groups.filter((/** @type {any} */ x) => x.family === family && x.bytes > scratchOf(rep));
      if (gs.length === 0) continue;
      const cells = STRATEGIES.map((st) => {
        let wins = 0;
        for (const gr of gs) {
          const r = gr.results.find((/** @type {any} */ x) => x.strategy === st.name);
          const best = Math.min(...gr.results.map((/** @type {any} */ x) => x.p50));
          if (r.p50 <= best * 1.03) wins++;
        }
        return `${geomean(gs.map((/** @type {any} */ gr) => speedOf(gr, st.name))).toFixed(2)} (${wins}/${gs.length})`;
      });
      const load = rep.machine.loadAverage ? rep.machine.loadAverage[0].toFixed(1) : "?";
      const span = gs.length === 1 ? formatSize(gs[0].bytes) : `${formatSize(gs[0].bytes)}..${formatSize(gs[gs.length - 1].bytes)}`;
      rows.push([`${rep.machine.runtime} ${rep.machine.version}`, `${family} (${span})`, ...cells, formatBytes(scratchOf(rep)), load]);
    }
  }
  lines.push(mdTable(["runtime", "data", ...STRATEGIES.map((st) => st.name), "scratch", "load at start"], rows), "");
  return lines.join("\n");
}

await useResultsDir(args.options.results);
if (args.options["plot-only"]) await plotAll();
else await main();
