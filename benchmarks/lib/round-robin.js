// Round-robin benchmark harness: dependency-free, plain ESM JavaScript.
//
// Runs unchanged under `node`, `bun` and `deno run`. The only clock is
// performance.now(). Nothing here imports a package; the optional
// process-isolation helpers load `node:child_process` lazily, which all three
// runtimes provide (Deno needs --allow-run --allow-env for it).
//
// Method
// - Cases are grouped; only cases of one group are compared with each other.
// - Every iteration runs each case of a group once, starting at a different
//   case each time (iteration i starts at case i mod n), so no case is always
//   first (cold caches) or always last (warm JIT, pending GC of the others).
// - One sample = one call of `fn` repeated `batch` times; `batch` is
//   calibrated during warm-up so a sample lasts at least `minSampleMs`, far
//   above the clock's resolution. Time per op = sample time / batch.
//   A batch size is accepted only after CONFIRMATIONS timings in a row reach
//   `minSampleMs`: one timing can be long because the process was
//   descheduled, collected garbage or compiled, and a batch accepted on it
//   would be far too small (a 0.5 µs op calibrated to 2 calls instead of
//   100), so its samples would carry the harness's own per-sample cost.
// - Results per case: p1/p25/p50/p75/p99 of time per op, throughput from
//   `bytes` (bytes per op) at p50, and speed = p50 of the group's baseline
//   (the case marked `baseline: true`, else the group's first case) / p50 of
//   the case: bigger is faster, 2 = twice the baseline's speed.
//
// See benchmarks/README.md for the API and how to read the tables.

/** @typedef {{ name: string, group?: string, fn?: () => unknown, setup?: () => (() => unknown), bytes?: number, baseline?: boolean, note?: string }} Case */

const g = /** @type {any} */ (globalThis);

/** Sink for benchmark results, so the JIT cannot drop the work that made them. */
export let blackhole = undefined;
/** @param {unknown} v */
export function consume(v) {
  blackhole = v;
}

// ---------------------------------------------------------------------------
// Runtime detection and CLI arguments

/** @returns {"deno" | "bun" | "node" | "unknown"} */
export function runtimeName() {
  if (typeof g.Deno?.version?.deno === "string") return "deno";
  if (typeof g.Bun?.version === "string") return "bun";
  if (typeof g.process?.versions?.node === "string") return "node";
  return "unknown";
}

/**
 * The runtime with Node's major version: "node24", "bun", "deno". The peers
 * results are saved under it, so runs of several Node versions sit side by side.
 */
export function runtimeKey() {
  const rt = runtimeName();
  return rt === "node" ? `node${String(g.process.versions.node).split(".")[0]}` : rt;
}

/**
 * Runtime name and version, engine and version, OS, architecture and CPU count.
 * `load` is the 1-minute load average where the runtime can read it without
 * asking (null otherwise): above the CPU count, other processes share the CPUs.
 * @returns {{ runtime: string, version: string, engine: string, engineVersion: string, os: string, arch: string, cpus: number, cpuModel: string, load: number | null }}
 */
export function runtimeInfo() {
  const rt = runtimeName();
  let version = "?", engine = "?", engineVersion = "?", os = "?", arch = "?", cpuModel = "";
  if (rt === "deno") {
    version = g.Deno.version.deno;
    engine = "V8";
    engineVersion = g.Deno.version.v8;
    os = g.Deno.build.os;
    arch = g.Deno.build.arch;
  } else if (rt === "bun") {
    version = g.Bun.version;
    engine = "JavaScriptCore";
    engineVersion = "WebKit " + String(g.process?.versions?.webkit ?? "?").slice(0, 12);
    os = g.process?.platform ?? "?";
    arch = g.process?.arch ?? "?";
  } else if (rt === "node") {
    version = g.process.versions.node;
    engine = "V8";
    engineVersion = g.process.versions.v8;
    os = g.process.platform;
    arch = g.process.arch;
  }
  let cpus = Number(g.navigator?.hardwareConcurrency) || 0;
  // node:os through getBuiltinModule (Node >= 20.16, Bun) keeps this sync; Deno needs no fallback.
  const nodeOs = rt !== "deno" ? g.process?.getBuiltinModule?.("node:os") : undefined;
  if (nodeOs) {
    try {
      const list = nodeOs.cpus();
      if (!cpus) cpus = nodeOs.availableParallelism?.() ?? list.length;
      cpuModel = list[0]?.model?.trim() ?? "";
    } catch {
      // cpus() may be unavailable in sandboxes; the count alone is enough.
    }
  }
  let load = null;
  try {
    if (nodeOs) load = nodeOs.loadavg()[0];
    else if (rt === "deno" && g.Deno.permissions.querySync({ name: "sys" }).state === "granted") load = g.Deno.loadavg()[0];
  } catch {
    // not available here
  }
  if (typeof load === "number" && !(load > 0)) load = null; // 0 where unsupported (Windows)
  return { runtime: rt, version, engine, engineVersion, os, arch, cpus, cpuModel, load };
}

/** One line such as "node 20.20.2 (V8 11.3.244.8) linux x64, 2 CPUs (AMD EPYC), load average 0.52". */
export function runtimeLine() {
  const i = runtimeInfo();
  const cpu = `${i.cpus} CPU${i.cpus === 1 ? "" : "s"}${i.cpuModel ? ` (${i.cpuModel})` : ""}`;
  const load = i.load === null ? "" : `, load average ${i.load.toFixed(2)}`;
  return `${i.runtime} ${i.version} (${i.engine} ${i.engineVersion}) ${i.os} ${i.arch}, ${cpu}${load}`;
}

/** Prints the runtime line (and a header) at the top of a run. @param {string} [title] */
export function printRuntimeInfo(title) {
  if (title) console.log(`# ${title}`);
  console.log(`runtime: ${runtimeLine()}`);
}

/** The script's own arguments, without the runtime and script path. @returns {string[]} */
export function scriptArgs() {
  if (runtimeName() === "deno") return [...g.Deno.args];
  return g.process?.argv ? g.process.argv.slice(2) : [];
}

/**
 * Parses the arguments every benchmark script understands:
 *   --quick            tiny sizes and few iterations (smoke tests)
 *   --filter=REGEX     only cases whose "group/name" matches (also: any bare word)
 *   --json             also print the results as one JSON line
 *   --in-process       don't isolate cases in subprocesses
 *   --child=ID         internal: run one isolated case ("group/name") and print its samples
 *   --child-group=G    internal: run one group round-robin in this process and print its samples
 * Unknown `--key=value` pairs are kept in `options`.
 * @param {string[]} [argv]
 */
export function parseArgs(argv = scriptArgs()) {
  /** @type {{ quick: boolean, json: boolean, inProcess: boolean, filter: RegExp | null, child: string | null, childGroup: string | null, options: Record<string, string | true>, positional: string[] }} */
  const out = { quick: false, json: false, inProcess: false, filter: null, child: null, childGroup: null, options: {}, positional: [] };
  const filters = [];
  for (const a of argv) {
    if (a === "--quick") out.quick = true;
    else if (a === "--json") out.json = true;
    else if (a === "--in-process") out.inProcess = true;
    else if (a.startsWith("--filter=")) filters.push(a.slice(9));
    else if (a.startsWith("--child=")) out.child = a.slice(8);
    else if (a.startsWith("--child-group=")) out.childGroup = a.slice(14);
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq < 0) out.options[a.slice(2)] = true;
      else out.options[a.slice(2, eq)] = a.slice(eq + 1);
    } else {
      out.positional.push(a);
      filters.push(a);
    }
  }
  if (filters.length) out.filter = new RegExp(filters.join("|"), "i");
  return out;
}

/**
 * @typedef {object} Cli What a script accepts, for `--help` and for refusing unknown flags.
 * @property {string} script file name, e.g. "buffers.js"
 * @property {string} summary one paragraph: what the script measures
 * @property {string} fullRun how long a full run takes, e.g. "1-2 minutes per runtime on 2 cores"
 * @property {string} quickRun how long a --quick run took, measured: "about 45 s (measured on 2 cores at load 10)"
 * @property {string} deno the permissions `deno run` needs, e.g. "--allow-run --allow-env --allow-sys"
 * @property {Record<string, string>} options "name" or "name=VALUE" -> description
 * @property {string} [filter] what bare words filter, if the script takes them
 * @property {string[]} [examples] example command lines
 */

/** Flags every script understands (`--child*` are internal: a script passes them to its own subprocesses). */
const INTERNAL_FLAGS = new Set(["child", "child-group"]);

/** Ends the process with `code` in any runtime. @param {number} code @returns {never} */
export function exit(code) {
  if (runtimeName() === "deno") g.Deno.exit(code);
  g.process.exit(code);
  throw new Error("unreachable");
}

/** Wraps `text` at `width` columns, continuation lines indented by `indent`. @param {string} text @param {number} width @param {number} [indent] */
function wrap(text, width, indent = 0) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = " ".repeat(indent) + word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join("\n");
}

/** The `--help` text of a script, at most 100 columns wide. @param {Cli} cli */
export function helpText(cli) {
  const flags = Object.entries({ ...cli.options, help: "print this help and exit" });
  const width = Math.max(...flags.map(([name]) => name.length + 2));
  const lines = [
    `usage: node benchmarks/${cli.script} [options]${cli.filter ? " [FILTER...]" : ""}`,
    `       bun benchmarks/${cli.script} ...`,
    `       deno run ${cli.deno ? `${cli.deno} ` : ""}benchmarks/${cli.script} ...`,
    "",
    wrap(cli.summary, 100),
    "",
    wrap(`A full run takes ${cli.fullRun}; --quick takes ${cli.quickRun}.`, 100),
    "",
    "options:",
    ...flags.map(([name, text]) => `  ${`--${name}`.padEnd(width)}  ${wrap(text, 96 - width, width + 4)}`),
  ];
  if (cli.filter) lines.push(`  ${"FILTER".padEnd(width)}  ${wrap(cli.filter, 96 - width, width + 4)}`);
  if (cli.examples?.length) lines.push("", "examples:", ...cli.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}

/**
 * Parses a script's arguments against its declared options: `--help` (or
 * `-h`) prints the help and exits 0; an unknown flag, a value given to a
 * flag that takes none, a missing value, or a bare word where the script
 * takes no filter prints a message to stderr and exits 2. Returns what
 * {@link parseArgs} returns, with `wide` set by `--wide`.
 * @param {Cli} cli @param {string[]} [argv]
 */
export function parseCli(cli, argv = scriptArgs()) {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(helpText(cli));
    exit(0);
  }
  /** @type {Map<string, boolean>} name -> takes a value */
  const known = new Map(Object.keys(cli.options).map((k) => [k.split("=")[0], k.includes("=")]));
  const refuse = (/** @type {string} */ why) => {
    console.error(`${cli.script}: ${why} (see --help)`);
    exit(2);
  };
  for (const a of argv) {
    if (!a.startsWith("-")) {
      if (!cli.filter) refuse(`unexpected argument ${JSON.stringify(a)}`);
      continue;
    }
    const eq = a.indexOf("=");
    const name = a.slice(a.startsWith("--") ? 2 : 1, eq < 0 ? undefined : eq);
    if (INTERNAL_FLAGS.has(name) && a.startsWith("--") && eq > 0) continue;
    const takesValue = known.get(name);
    if (takesValue === undefined || !a.startsWith("--")) refuse(`unknown option ${a}`);
    if (takesValue && eq < 0) refuse(`${a} needs a value: --${name}=...`);
    if (!takesValue && eq >= 0) refuse(`${a.slice(0, eq)} takes no value`);
  }
  const args = parseArgs(argv);
  return { ...args, wide: args.options.wide === true };
}

/** @param {Case} c */
export function caseId(c) {
  return c.group ? `${c.group}/${c.name}` : c.name;
}

/** Keeps the cases whose "group/name" matches `filter` (all if null). @param {Case[]} cases @param {RegExp | null} filter */
export function filterCases(cases, filter) {
  return filter ? cases.filter((c) => filter.test(caseId(c))) : cases;
}

// ---------------------------------------------------------------------------
// Statistics

/** Percentile with linear interpolation of sorted values. @param {number[]} sorted @param {number} p 0..100 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const x = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(x), hi = Math.ceil(x);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo);
}

/**
 * Turns samples (ms per op) into a result row.
 * @param {Case} c @param {number[]} samples ms per op
 * @returns {Result}
 */
export function summarize(c, samples) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    group: c.group ?? "",
    name: c.name,
    samples: s.length,
    p1: percentile(s, 1),
    p25: percentile(s, 25),
    p50: percentile(s, 50),
    p75: percentile(s, 75),
    p99: percentile(s, 99),
    bytes: c.bytes,
    baseline: false,
    speed: NaN,
    note: c.note,
  };
}

/**
 * @typedef {{ group: string, name: string, samples: number, p1: number, p25: number, p50: number, p75: number, p99: number, bytes: number | undefined, baseline: boolean, speed: number, note?: string | undefined }} Result
 * Times are milliseconds per op; `speed` is the baseline's p50 / this case's
 * p50 (above 1: faster than the baseline).
 */

/** Fills in `baseline` and `speed` per group. @param {Result[]} results @param {Case[]} cases */
export function addSpeeds(results, cases) {
  for (const group of new Set(results.map((r) => r.group))) {
    const rows = results.filter((r) => r.group === group);
    const marked = cases.find((c) => (c.group ?? "") === group && c.baseline);
    const base = (marked && rows.find((r) => r.name === marked.name)) ?? rows[0];
    for (const r of rows) {
      r.baseline = r === base;
      r.speed = base.p50 / r.p50;
    }
  }
  return results;
}

// ---------------------------------------------------------------------------
// The round-robin runner

/**
 * @typedef {object} RunOptions
 * @property {number} [iterations=60] recorded round-robin iterations per group (at most)
 * @property {number} [minIterations=5] recorded iterations per group even past maxTimeMs
 * @property {number} [maxTimeMs=10000] stop recording a group after this long
 * @property {number} [warmup=5] unrecorded warm-up iterations (after calibration)
 * @property {number} [minSampleMs=2] each sample repeats fn until at least this long
 * @property {number} [maxBatch=1e6] upper bound on repetitions per sample
 * @property {(iteration: number) => void} [afterIteration] untimed hook after each iteration (e.g. a GC)
 * @property {(msg: string) => void} [log] progress messages (default: none)
 */

/**
 * Runs cases round-robin, one group after another.
 * A case has either `fn` (one op) or `setup` (called once, returns the op function).
 * @param {Case[]} cases @param {RunOptions} [opts]
 * @returns {Result[]} one row per case, in input order, with speeds relative to the baseline
 */
export function runRoundRobin(cases, opts = {}) {
  /** @type {Map<Case, number[]>} */
  const samples = new Map();
  for (const group of new Set(cases.map((c) => c.group ?? ""))) {
    const members = cases.filter((c) => (c.group ?? "") === group);
    opts.log?.(`running ${group || "(no group)"}: ${members.length} case${members.length === 1 ? "" : "s"}`);
    const lists = collectSamples(members, opts);
    members.forEach((c, i) => samples.set(c, lists[i]));
  }
  return addSpeeds(cases.map((c) => summarize(c, samples.get(c) ?? [])), cases);
}

/**
 * Calibrates, warms up and samples the members of one group round-robin.
 * @param {Case[]} members @param {RunOptions} opts @returns {number[][]} ms per op, per member
 */
function collectSamples(members, opts) {
  const {
    iterations = 60,
    minIterations = 5,
    maxTimeMs = 10_000,
    warmup = 5,
    minSampleMs = 2,
    maxBatch = 1e6,
    afterIteration,
  } = opts;
  const fns = members.map((c) => (c.setup ? c.setup() : /** @type {() => unknown} */ (c.fn)));
  const n = members.length;

  // Calibrate: grow each batch until CONFIRMATIONS samples in a row take minSampleMs.
  // The cases alternate here too, so calibration is itself a warm-up.
  const search = members.map(() => newBatchSearch());
  const done = new Array(n).fill(false);
  for (let round = 0; done.includes(false) && round < 40 + CONFIRMATIONS; round++) {
    for (let k = 0; k < n; k++) {
      const i = (k + round) % n;
      if (!done[i]) done[i] = searchStep(search[i], timeBatch(fns[i], search[i].batch), minSampleMs, maxBatch);
    }
    afterIteration?.(-1);
  }
  const batch = search.map((s) => s.batch);
  for (let it = 0; it < warmup; it++) {
    for (let k = 0; k < n; k++) timeBatch(fns[(k + it) % n], batch[(k + it) % n]);
    afterIteration?.(-1);
  }

  const lists = members.map(() => /** @type {number[]} */ ([]));
  const start = performance.now();
  for (let it = 0; it < iterations; it++) {
    for (let k = 0; k < n; k++) {
      const i = (k + it) % n;
      lists[i].push(timeBatch(fns[i], batch[i]) / batch[i]);
    }
    afterIteration?.(it);
    if (it + 1 >= minIterations && performance.now() - start > maxTimeMs) break;
  }
  return lists;
}

/** Timings in a row that must reach the target before a batch size is accepted. */
export const CONFIRMATIONS = 3;

/**
 * @typedef {{ batch: number, confirmed: number, best: number }} BatchSearch
 * The search for a batch size: the current size, how many timings in a row
 * at this size reached the target, and the shortest of them (ms).
 */

/** @returns {BatchSearch} */
export function newBatchSearch() {
  return { batch: 1, confirmed: 0, best: Infinity };
}

/**
 * One step of the batch-size search, given the time `t` (ms) of one batch:
 * a batch shorter than `targetMs` grows (by the shortfall, 2x to 8x, 8x if
 * the clock saw nothing) and the count starts again; one that reaches it
 * counts. Returns true once CONFIRMATIONS timings in a row reached it, or
 * the batch is at `maxBatch`. A single long timing (the process descheduled,
 * a GC, a compile) never ends the search: each later short timing grows the
 * batch again.
 * @param {BatchSearch} s @param {number} t @param {number} targetMs @param {number} maxBatch
 */
export function searchStep(s, t, targetMs, maxBatch) {
  if (t >= targetMs) {
    s.confirmed++;
    s.best = Math.min(s.best, t);
    return s.confirmed >= CONFIRMATIONS;
  }
  if (s.batch >= maxBatch) return true;
  s.batch = Math.min(maxBatch, s.batch * (t > 0 ? Math.min(8, Math.max(2, Math.ceil(targetMs / t))) : 8));
  s.confirmed = 0;
  s.best = Infinity;
  return false;
}

/**
 * Time per call of `fn` (ms), for choosing how many calls to time together:
 * the shortest of CONFIRMATIONS timings in a row of one batch lasting at
 * least `batchMs`, the batch grown from 1 (see searchStep). Warm `fn` up
 * first: the first calls of cold code are slow.
 * @param {() => unknown} fn @param {number} [batchMs] @param {number} [maxBatch]
 * @returns {number} ms per call
 */
export function timePerCall(fn, batchMs = 10, maxBatch = 1 << 24) {
  const s = newBatchSearch();
  for (let i = 0; i < 200 && !searchStep(s, timeBatch(fn, s.batch), batchMs, maxBatch); i++);
  return (Number.isFinite(s.best) ? s.best : timeBatch(fn, s.batch)) / s.batch;
}

/** @param {() => unknown} fn @param {number} batch @returns {number} ms */
function timeBatch(fn, batch) {
  let r;
  const t0 = performance.now();
  for (let j = 0; j < batch; j++) r = fn();
  const t = performance.now() - t0;
  blackhole = r;
  return t;
}

// ---------------------------------------------------------------------------
// Process isolation: one case per fresh process, still round-robin

/**
 * Whether this process may start subprocesses with node:child_process.
 * Deno without --allow-run/--allow-env says no (queried, never prompted).
 */
export async function canSpawn() {
  if (runtimeName() === "deno") {
    try {
      const q = (name) => g.Deno.permissions.querySync({ name }).state === "granted";
      return q("run") && q("env");
    } catch {
      return false;
    }
  }
  return runtimeName() !== "unknown";
}

/** Command (program, leading args) that starts this runtime on a script. @param {string} script */
function selfCommand(script) {
  const rt = runtimeName();
  if (rt === "deno") return { program: g.Deno.execPath(), args: ["run", ...denoChildFlags(), script] };
  return { program: g.process.execPath, args: [...(g.process.execArgv ?? []), script] };
}

/** Deno permission flags for children: the same ones this process has, nothing more. */
function denoChildFlags() {
  const flags = [];
  for (const name of ["read", "run", "env", "sys"]) {
    try {
      if (g.Deno.permissions.querySync({ name }).state === "granted") flags.push(`--allow-${name}`);
    } catch {
      // unknown permission name in this Deno: skip
    }
  }
  return flags;
}

/** Path of a module from its import.meta.url. @param {string} url */
export function pathFromUrl(url) {
  const u = new URL(url);
  if (u.protocol !== "file:") throw new Error(`Cannot run ${url} in a subprocess: not a file URL`);
  return decodeURIComponent(u.pathname);
}

/**
 * Runs this runtime on `script` with `args`, synchronously, and returns stdout.
 * Throws with the child's stderr if it fails.
 * @param {string} script path @param {string[]} args
 */
export async function spawnSelf(script, args) {
  const { spawnSync } = await import("node:child_process");
  const { program, args: lead } = selfCommand(script);
  const r = spawnSync(program, [...lead, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`Child ${[...args].join(" ")} exited with ${r.status ?? r.signal}:\n${String(r.stderr).slice(-2000)}`);
  }
  return String(r.stdout);
}

const CHILD_MARK = "@@round-robin-child@@ ";

/** In a child: print a JSON payload the parent will find. @param {unknown} payload */
export function sendToParent(payload) {
  console.log(CHILD_MARK + JSON.stringify(payload));
}

/** In the parent: the payload a child printed. @param {string} stdout */
export function receiveFromChild(stdout) {
  const line = stdout.split("\n").find((l) => l.startsWith(CHILD_MARK));
  if (!line) throw new Error(`Child printed no result:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice(CHILD_MARK.length));
}

/**
 * Child side of runIsolated. If this process was started with --child=ID,
 * runs that one case (calibration, warm-up, samples: the same method as
 * runRoundRobin); with --child-group=G, runs the cases of group G
 * round-robin. Prints the samples for the parent and returns true; returns
 * false in the parent. Call it first thing in the script, before anything
 * else creates buffers or runs cases.
 * @param {Case[]} cases @param {RunOptions} [opts] @param {ReturnType<typeof parseArgs>} [args]
 */
export function runChildIfRequested(cases, opts = {}, args = parseArgs()) {
  if (args.child) {
    const c = cases.find((x) => caseId(x) === args.child);
    if (!c) throw new Error(`Cannot run case ${args.child}: no such case`);
    const [samples] = collectSamples([c], opts);
    sendToParent({ samples: [samples] });
    return true;
  }
  if (args.childGroup !== null) {
    const members = cases.filter((c) => (c.group ?? "") === args.childGroup);
    if (!members.length) throw new Error(`Cannot run group ${args.childGroup}: no such group`);
    sendToParent({ samples: collectSamples(members, opts) });
    return true;
  }
  return false;
}

/**
 * Runs cases in fresh subprocesses of this runtime (same executable, same
 * flags, same script), so no case inherits type feedback, heap or kernel
 * state from cases it is not compared with. The script must call
 * runChildIfRequested(cases, opts) first thing, with the same cases.
 *
 * - `per: "case"` (default): round r starts one child per case of a group,
 *   in an order rotated by r; each child records `opts.iterations` samples
 *   of its one case. Samples of all rounds are pooled per case.
 * - `per: "group"`: each round starts one child per group, which runs that
 *   group round-robin in-process (as runRoundRobin would).
 * @param {Case[]} cases
 * @param {{ script: string, per?: "case" | "group", rounds?: number, childArgs?: string[], log?: (msg: string) => void }} opts
 * @returns {Promise<Result[]>}
 */
export async function runIsolated(cases, opts) {
  const { script, per = "case", rounds = per === "case" ? 5 : 1, childArgs = [], log } = opts;
  /** @type {Map<Case, number[]>} */
  const samples = new Map(cases.map((c) => [c, []]));
  for (const group of new Set(cases.map((c) => c.group ?? ""))) {
    const members = cases.filter((c) => (c.group ?? "") === group);
    const name = group || "(no group)";
    if (per === "group") {
      log?.(`running ${name}: ${members.length} cases round-robin in a fresh process${rounds > 1 ? `, ${rounds} times` : ""}`);
      for (let r = 0; r < rounds; r++) {
        const got = receiveFromChild(await spawnSelf(script, [`--child-group=${group}`, ...childArgs])).samples;
        members.forEach((c, i) => samples.get(c)?.push(...(got[i] ?? [])));
      }
    } else {
      log?.(`running ${name}: ${members.length} cases, ${rounds} round${rounds === 1 ? "" : "s"} of one fresh process per case`);
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < members.length; k++) {
          const c = members[(k + r) % members.length];
          const got = receiveFromChild(await spawnSelf(script, [`--child=${caseId(c)}`, ...childArgs])).samples;
          samples.get(c)?.push(...(got[0] ?? []));
        }
      }
    }
  }
  return addSpeeds(cases.map((c) => summarize(c, samples.get(c) ?? [])), cases);
}

// ---------------------------------------------------------------------------
// Output

/** Geometric mean of positive numbers (NaN for none). @param {number[]} xs */
export function geomean(xs) {
  return xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : NaN;
}

/** Human time for milliseconds. @param {number} ms */
export function formatTime(ms) {
  if (!Number.isFinite(ms)) return "-";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(ms >= 100 ? 0 : ms >= 10 ? 1 : 2)} ms`;
  const us = ms * 1000;
  if (us >= 1) return `${us.toFixed(us >= 100 ? 0 : us >= 10 ? 1 : 2)} µs`;
  return `${(us * 1000).toFixed(1)} ns`;
}

/** Human size for bytes (binary units). @param {number} n */
export function formatBytes(n) {
  if (!Number.isFinite(n)) return "-";
  const neg = n < 0 ? "-" : "";
  let v = Math.abs(n);
  for (const unit of ["B", "KiB", "MiB", "GiB"]) {
    if (v < 1024 || unit === "GiB") return `${neg}${Number.isInteger(v) ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${unit}`;
    v /= 1024;
  }
  return `${n} B`;
}

/** Human throughput. @param {number} bytes @param {number} ms */
export function formatRate(bytes, ms) {
  if (!bytes || !Number.isFinite(ms) || ms <= 0) return "-";
  const perS = bytes / (ms / 1000);
  if (perS >= 1e9) return `${(perS / 1e9).toFixed(2)} GB/s`;
  if (perS >= 1e6) return `${(perS / 1e6).toFixed(perS >= 1e8 ? 0 : 1)} MB/s`;
  return `${(perS / 1e3).toFixed(1)} kB/s`;
}

/**
 * A speed ratio (bigger is faster): two decimals, one from 10, two
 * significant digits below 0.1.
 * @param {number} x
 */
export function formatSpeed(x) {
  if (!Number.isFinite(x)) return "-";
  return x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
}

/** The speed column's name in every timing table: the unit and the direction are in it. */
export const SPEED_COLUMN = "speed ×base";
/** What the speed column means, printed above each group's table. */
export const SPEED_HEADER = "speed ×base = p50 of the base case / p50 of this case: above 1 = faster than the base, bigger is better";

export const SPEED_LEGEND =
  "speed ×base = p50 of its group's baseline (marked 'base') / p50 of this case: bigger is faster (2.00 = twice the base's speed, 0.50 = half). " +
  "p1..p99 are percentiles of the time per op over all samples, a sample being a batch of ops timed together (p25 and p75 with --wide). " +
  "MB/s = bytes per op / p50. Compare speeds within one run; absolute times depend on the machine and its load.";

/**
 * Renders rows as a plain text table: a header, a rule, one line per row,
 * columns separated by two spaces, numbers and times right-aligned. No
 * index column and no quotes, so tables stay narrower than console.table's.
 * @param {Record<string, unknown>[]} rows @returns {string}
 */
export function formatPlainTable(rows) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => (r[c] === undefined ? "" : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const right = columns.map((_, i) => cells.every((row) => row[i] === "" || /^[\d.,≥<>~×x+-]/.test(row[i])) && cells.some((row) => row[i] !== ""));
  const line = (/** @type {string[]} */ values) => values.map((v, i) => (right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(columns), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}

/**
 * Prints results as plain tables, one per group, then the legend. Columns:
 * case, p1, p50, p99, MB/s, speed ×base, samples; with `wide`, p25 and p75 too.
 * @param {Result[]} results @param {{ title?: string, legend?: string | false, wide?: boolean }} [opts]
 */
export function printTable(results, opts = {}) {
  if (opts.title) console.log(`\n## ${opts.title}`);
  for (const group of new Set(results.map((r) => r.group))) {
    const rows = results.filter((r) => r.group === group);
    console.log(`\n${group ? `${group}: ` : ""}${SPEED_HEADER}`);
    const hasBytes = rows.some((r) => r.bytes);
    const hasNote = rows.some((r) => r.note);
    console.log(
      formatPlainTable(
        rows.map((r) => {
          /** @type {Record<string, string | number>} */
          const row = { case: r.name, p1: formatTime(r.p1) };
          if (opts.wide) row.p25 = formatTime(r.p25);
          row.p50 = formatTime(r.p50);
          if (opts.wide) row.p75 = formatTime(r.p75);
          row.p99 = formatTime(r.p99);
          if (hasBytes) row["MB/s (p50)"] = formatRate(r.bytes ?? 0, r.p50);
          row[SPEED_COLUMN] = r.baseline ? "1.00 (base)" : formatSpeed(r.speed);
          row.samples = r.samples;
          if (hasNote) row.note = r.note ?? "";
          return row;
        }),
      ),
    );
  }
  if (opts.legend !== false) console.log(`legend: ${opts.legend ?? SPEED_LEGEND}`);
}

/** Prints arbitrary rows as a plain table and a legend line. @param {Record<string, unknown>[]} rows @param {{ title?: string, legend?: string }} [opts] */
export function printRows(rows, opts = {}) {
  if (opts.title) console.log(`\n## ${opts.title}`);
  console.log(formatPlainTable(rows));
  if (opts.legend) console.log(`legend: ${opts.legend}`);
}
