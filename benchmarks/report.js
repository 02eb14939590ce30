// Shared helpers of strategies.js, peers.js and memory.js: loading the
// library's build, describing the machine, Markdown tables and writing
// benchmarks/results/. Dependency-free; node: built-ins are loaded lazily
// and only where a script writes files (Deno: --allow-read --allow-write).

import { runtimeInfo, runtimeLine, runtimeName } from "./lib/round-robin.js";

const g = /** @type {any} */ (globalThis);

/** URL of benchmarks/results/. */
export const RESULTS_DIR = new URL("./results/", import.meta.url);

/** Where readResult and writeResult look: benchmarks/results/ unless a script's --results=DIR says otherwise. */
let resultsDir = RESULTS_DIR;

/**
 * Reads and writes results in `dir` (a path, relative to the working
 * directory) instead of benchmarks/results/: the tests redraw the charts
 * from a copy of the saved runs without touching the repository. Nothing
 * happens for undefined.
 * @param {unknown} dir
 */
export async function useResultsDir(dir) {
  if (dir === undefined || dir === true) return;
  const { resolve } = await import("node:path");
  const { pathToFileURL } = await import("node:url");
  resultsDir = pathToFileURL(resolve(String(dir)) + "/");
}

/** The directory readResult and writeResult use (a file: URL ending in "/"). */
export function resultsUrl() {
  return resultsDir;
}

/** @returns {Promise<any>} the module namespace of the library's build, dist/index.js */
export async function loadLibrary() {
  try {
    // a literal specifier: Deno loads it without --allow-read, like a static import; the records
    // entry is the main entry's API with msgpackr's records installed (for the useRecords rows)
    return await import("../dist/records.js");
  } catch (error) {
    console.error(
      "Cannot load dist/records.js: build the library first with `npm run build` (or " +
        "`npx esbuild src/index.ts --bundle --format=esm --platform=neutral --target=es2022 --outfile=dist/index.js`)",
    );
    throw error;
  }
}

/** Parses sizes like 1e8, 100M, 64KiB, 1GB (decimal K/M/G, binary KiB/MiB/GiB). @param {string} s */
export function parseSize(s) {
  const m = /^([\d.]+(?:e\d+)?)\s*(k|m|g|kib|mib|gib|kb|mb|gb|b)?$/i.exec(String(s).trim());
  if (!m) throw new Error(`Cannot read size ${s}: use e.g. 1e8, 100M or 64KiB`);
  const unit = (m[2] ?? "").toLowerCase();
  const mult = { "": 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[unit] ?? 1;
  return Math.round(Number(m[1]) * mult);
}

/** Decimal size, short: 1 B, 32 B, 1 kB, 3.2 MB, 900 MB. @param {number} n */
export function formatSize(n) {
  if (n < 1e3) return `${n} B`;
  for (const [div, unit] of /** @type {const} */ ([[1e9, "GB"], [1e6, "MB"], [1e3, "kB"]])) {
    if (n >= div) {
      const v = n / div;
      return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1).replace(/\.0$/, "") : v.toFixed(2).replace(/\.?0+$/, "")} ${unit}`;
    }
  }
  return `${n} B`;
}

/** A number with 3 significant digits (no exponent below 1e6). @param {number} x */
export function sig3(x) {
  if (!Number.isFinite(x)) return "-";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}

/** The 1/5/15-minute load averages, or null where they cannot be read. */
export async function loadAverage() {
  if (!allowed("sys")) return readLoadavg();
  try {
    if (runtimeName() === "deno") return g.Deno.loadavg();
    const os = g.process?.getBuiltinModule?.("node:os") ?? (await import("node:os"));
    return os.loadavg();
  } catch {
    return null;
  }
}

/** /proc/loadavg where it can be read without asking. */
async function readLoadavg() {
  if (!allowed("read")) return null;
  try {
    const fs = await import("node:fs");
    return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
  } catch {
    return null;
  }
}

/** Total RAM in bytes, or null. */
export async function totalMemory() {
  if (!allowed("sys")) return null;
  try {
    if (runtimeName() === "deno") return g.Deno.systemMemoryInfo().total;
    const os = g.process?.getBuiltinModule?.("node:os") ?? (await import("node:os"));
    return os.totalmem();
  } catch {
    return null;
  }
}

/** Under Deno, whether a permission is granted already (queried, so Deno never prompts); true elsewhere. @param {string} name */
export function allowed(name) {
  if (runtimeName() !== "deno") return true;
  try {
    return g.Deno.permissions.querySync({ name }).state === "granted";
  } catch {
    return false;
  }
}

/** The checked-out commit (read from .git, no git process), or null. */
export async function gitCommit() {
  if (!allowed("read")) return null;
  try {
    const fs = await import("node:fs");
    const git = new URL("../.git/", import.meta.url);
    const head = fs.readFileSync(new URL("HEAD", git), "utf8").trim();
    if (!head.startsWith("ref: ")) return head.slice(0, 12);
    const ref = head.slice(5);
    try {
      return fs.readFileSync(new URL(ref, git), "utf8").trim().slice(0, 12);
    } catch {
      const packed = fs.readFileSync(new URL("packed-refs", git), "utf8");
      return packed.split("\n").find((l) => l.endsWith(` ${ref}`))?.slice(0, 12) ?? null;
    }
  } catch {
    return null;
  }
}

/** Everything a results file needs to say where its numbers come from. */
export async function machine() {
  return {
    ...runtimeInfo(),
    line: runtimeLine(),
    commit: await gitCommit(),
    totalMemory: await totalMemory(),
    loadAverage: await loadAverage(),
    date: new Date().toISOString(),
  };
}

/** "load 1.23 0.62 0.31 (high for 2 CPUs)" or "" when unknown. @param {number[] | null} load @param {number} cpus */
export function describeLoad(load, cpus) {
  if (!load) return "load average unknown";
  const text = `load average ${load.map((x) => x.toFixed(2)).join(" ")}`;
  return load[0] > 0.75 * (cpus || 1) ? `${text} (HIGH for ${cpus} CPUs: other work was running; expect noise)` : text;
}

/**
 * A Markdown table.
 * @param {string[]} header @param {(string | number)[][]} rows @param {string[]} [align] "l" or "r" per column
 */
export function mdTable(header, rows, align = []) {
  const sep = header.map((_, i) => ((align[i] ?? (i === 0 ? "l" : "r")) === "r" ? "---:" : ":---"));
  const line = (/** @type {(string | number)[]} */ cells) => `| ${cells.map((c) => String(c).replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), `| ${sep.join(" | ")} |`, ...rows.map(line)].join("\n");
}

/**
 * Writes text to benchmarks/results/<name> (creating the directory).
 * Returns the path, or null when this process may not write (Deno without --allow-write).
 * @param {string} name @param {string} text
 */
export async function writeResult(name, text) {
  try {
    const fs = await import("node:fs");
    fs.mkdirSync(resultsDir, { recursive: true });
    const url = new URL(name, resultsDir);
    fs.writeFileSync(url, text);
    return decodeURIComponent(url.pathname);
  } catch (error) {
    console.error(`Cannot write benchmarks/results/${name}: ${/** @type {any} */ (error)?.message ?? error}`);
    return null;
  }
}

/** Reads benchmarks/results/<name>, or null. @param {string} name */
export async function readResult(name) {
  try {
    const fs = await import("node:fs");
    return fs.readFileSync(new URL(name, resultsDir), "utf8");
  } catch {
    return null;
  }
}

/** Markdown tables wider than this many columns are left out of the console output unless --wide. */
const CONSOLE_COLUMNS = 120;

/**
 * The Markdown report for the console: each table with a line wider than
 * 120 columns is replaced by a note saying how to see it.
 * @param {string} md @param {string} where the file that holds the full tables
 */
export function narrowTables(md, where) {
  const out = [];
  const lines = md.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("|")) {
      out.push(lines[i]);
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j].startsWith("|")) j++;
    const table = lines.slice(i, j);
    if (table.some((l) => l.length > CONSOLE_COLUMNS)) {
      out.push(`(a table wider than ${CONSOLE_COLUMNS} columns: add --wide to print it; it is in ${where})`);
    } else out.push(...table);
    i = j - 1;
  }
  return out.join("\n");
}

/**
 * Prints a finished report (Markdown, and the JSON with --json) and with
 * --write saves `<benchmark>-<runtime>[-quick].json` and `.md` in results/
 * (`runtime`: "node", "bun" or "deno" unless the script names its runs
 * otherwise, as peers.js does with Node's major version: "node24").
 * @param {{ benchmark: string, quick: boolean }} report @param {string} md
 * @param {{ json?: boolean, wide?: boolean, options: Record<string, unknown> }} args
 * @param {string} [runtime]
 */
export async function emitReport(report, md, args, runtime = runtimeName()) {
  console.log("\n" + (args.wide ? md : narrowTables(md, `results/${report.benchmark}-${runtime}.md with --write`)));
  if (args.json) console.log(JSON.stringify(report));
  if (!args.options.write) return;
  const base = `${report.benchmark}-${runtime}${report.quick ? "-quick" : ""}`;
  for (const [name, text] of [
    [`${base}.json`, JSON.stringify(report, null, 1) + "\n"],
    [`${base}.md`, md + "\n"],
  ]) {
    const path = await writeResult(name, text);
    if (path) console.log(`wrote ${path}`);
  }
}
