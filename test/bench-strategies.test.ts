// Smoke test for benchmarks/strategies.js, peers.js and memory.js: each runs
// at tiny sizes (--quick) so they don't rot. strategies.js is dependency-free
// and must run as-is under node, bun and `deno run` (no permissions); the
// peer and memory scripts use the devDependencies. Needs dist/ (npm run build).
// Each also says in every table's header which way its ratios go (bigger is
// faster, or the unit: "× the output"), ends its run with the geometric means
// (peaks, for memory) the README quotes for full runs, and labels --quick data
// with its real size.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run as runCommand } from "./tools/harness.ts";

const run = (program: string, args: string[]) => runCommand(program, args, { timeout: 110_000 });

const bin = (name: string): string => fileURLToPath(new URL(`./node_modules/.bin/${name}`, import.meta.url));

/** The lines after the last line that starts with `marker` (trailing blank lines dropped). */
function tail(stdout: string, marker: string): string[] {
  const lines = stdout.trimEnd().split("\n");
  const at = lines.findLastIndex((l) => l.startsWith(marker));
  expect(at, `"${marker}" in ${stdout.slice(-1500)}`).toBeGreaterThanOrEqual(0);
  return lines.slice(at + 1);
}

/** The one JSON line a script prints with --json. */
function report(stdout: string): any {
  const line = stdout.split("\n").find((l) => l.startsWith('{"benchmark"'));
  expect(line, stdout.slice(-2000)).toBeDefined();
  return JSON.parse(line ?? "{}");
}

const runtimes = [
  { label: "node", program: process.execPath, lead: [] as string[], runtime: /^runtime: node \d+\.\d+\.\d+/m },
  { label: "bun", program: bin("bun"), lead: [] as string[], runtime: /^runtime: bun \d+\.\d+\.\d+/m },
  { label: "deno", program: bin("deno"), lead: ["run"], runtime: /^runtime: deno \d+\.\d+\.\d+/m },
];
const STRATEGIES = ["default", "exact", "chunks"];

describe("benchmarks/strategies.js --quick", () => {
  it.each(runtimes)("runs as-is under $label and reports every strategy per data set", async (rt) => {
    const r = await run(rt.program, [...rt.lead, "benchmarks/strategies.js", "--quick", "--json", "--wide"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(rt.runtime);
    for (const header of ["p1", "p25", "p50", "p75", "p99", "speed ×base", "MB/s (p50)"]) expect(r.stdout).toContain(header);
    expect(r.stdout).not.toMatch(/\bratio\b/);
    expect(r.stdout).toMatch(/^legend: GB\/s = output bytes .* speed ×base = p50 of the default strategy \(the base\) \/ p50 of this one: above 1 = faster than the default/m);
    expect(r.stdout).toContain("**Answers**");
    const rep = report(r.stdout);
    const families = new Set(rep.groups.map((g: any) => g.family));
    expect([...families].sort()).toEqual(["nested", "records", "vectors"]);
    // each console table says the direction above it, each Markdown table in its caption
    expect(r.stdout.match(/^.+: speed ×base = p50 of the base case \/ p50 of this case: above 1 = faster than the base, bigger is better$/gm)?.length).toBe(rep.groups.length);
    for (const title of ["Vectors of doubles", "Nested list obj = [obj, obj]", "Record arrays"]) {
      expect(r.stdout).toContain(`**${title}**: each cell GB/s (speed ×default; above 1 = faster than the default)`);
    }
    for (const g of rep.groups) {
      expect(g.results.map((x: any) => x.strategy)).toEqual(STRATEGIES);
      for (const x of g.results) {
        expect(Number.isFinite(x.gbps) && x.gbps > 0).toBe(true);
        expect(x.speed).toBeCloseTo(g.results[0].p50 / x.p50, 9); // the default's time / this one's: bigger is faster
      }
      expect(g.results[0].speed).toBe(1);
    }
    // the end: geometric means of the speeds per family past the scratch, as results/strategies-summary.md gives them
    const means = tail(r.stdout, "geometric means of speed ×default (above 1 = faster than the default), over the sizes past the ");
    expect(r.stdout).toContain("; --quick: outputs up to 1 MB, not the sizes the README quotes:");
    expect(means.length).toBe(3);
    expect(means.find((l) => l.startsWith("geometric mean, records ("))).toMatch(
      /^geometric mean, records \(\d sizes?\): default 1\.00, exact [\d.]+, chunks [\d.]+$/,
    );
    expect(means).toContain("geometric mean, nested: no size past the scratch in this run");
  });
});

describe("benchmarks/peers.js --quick", () => {
  it.each([
    runtimes[0],
    runtimes[1],
    { ...runtimes[2], lead: ["run", "-A"] },
  ])("checks round trips and times every library under $label", async (rt) => {
    const r = await run(rt.program, [...rt.lead, "benchmarks/peers.js", "--quick", "--json", "records-100k|blob-1m"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(rt.runtime);
    expect(r.stdout).toMatch(/^legend: MB\/s = .* ×msgpackr, ×@msgpack\/msgpack and ×JSON = speed relative to that row: this row's MB\/s \/ its MB\/s \(above 1: faster than it, bigger is better\)/m);
    const rep = report(r.stdout);
    // every console table says the direction of its ratios above it, and so does every Markdown table
    const header = "MB/s at p50; ×msgpackr, ×@msgpack/msgpack and ×JSON = speed relative to that row (above 1 = faster, bigger is better)";
    for (const op of ["encode", "decode"]) {
      expect(r.stdout.split("\n").filter((l) => l === `${op}: ${header}`).length, op).toBe(2);
      expect(r.stdout).toContain(`**${op}** (MB/s · speed ×msgpackr · speed ×@msgpack/msgpack · speed ×JSON; above 1 = faster)`);
    }
    expect(rep.sets.map((s: any) => s.name)).toEqual(["records-100k", "blob-1m"]); // rpc and the other small messages: bench-peers.test.ts
    for (const set of rep.sets) {
      expect(set.checks["@resizable/msgpack"].ok, JSON.stringify(set.checks)).toBe(true);
      for (const op of ["encode", "decode"]) {
        for (const name of ["@resizable/msgpack", "msgpackr", "@msgpack/msgpack"]) expect(set.results[op][name].mbps).toBeGreaterThan(0);
      }
    }
    // JSON cannot carry a binary: reported, not timed
    const blob = rep.sets.find((s: any) => s.name === "blob-1m");
    expect(blob.checks.JSON.ok).toBe(false);
    expect(blob.results.encode.JSON).toBeUndefined();
    expect(r.stdout).toContain("**Faithfulness**");

    // the end of the run: the geometric means of the ratios, as --summary gives them from the saved runs
    const means = tail(r.stdout, "geometric means of this library's speed ×peer over the 2 data sets of this run (above 1 = faster, bigger is better; binary decode left out)");
    expect(r.stdout).toContain("; --quick: small data sets, one round, not the README's numbers:");
    expect(means.map((l) => l.replace(/: .*/, ""))).toEqual([
      "geometric mean ×msgpackr",
      "geometric mean ×msgpackr, with poolResults",
      "geometric mean ×@msgpack/msgpack",
      "geometric mean ×@msgpack/msgpack, with poolResults",
      "geometric mean ×JSON",
      "geometric mean ×JSON, with poolResults",
    ]);
    // the printed mean is the geometric mean of the report's ratios (blob decode left out: a copy against a view)
    const ratio = (set: any, op: string) => set.results[op]["@resizable/msgpack"].mbps / set.results[op].msgpackr.mbps;
    const gm = (xs: number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
    const enc = gm(rep.sets.map((s: any) => ratio(s, "encode")));
    const dec = gm(rep.sets.filter((s: any) => s.name !== "blob-1m").map((s: any) => ratio(s, "decode")));
    expect(means[0]).toBe(`geometric mean ×msgpackr: encode ${enc.toFixed(2)}, decode ${dec.toFixed(2)}`);
  });
});

describe("benchmarks/memory.js --quick", () => {
  it("measures peak RSS over the baseline in fresh processes (node)", async () => {
    const r = await run(process.execPath, ["benchmarks/memory.js", "--quick", "--json", "/(@resizable/msgpack|msgpackr|JSON)$"]);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r.stdout);
    // data sets named by their real size, not the full run's
    expect(Object.keys(rep.datasets)).toEqual(["records-1.3m", "rope-records-1.3m", "binary-2m"]);
    expect(r.stdout).not.toMatch(/130m|200m/);
    expect(rep.datasets["binary-2m"]).toBe("2 MiB Uint8Array (--quick)");
    // the unit of every bracket is named, with its direction
    expect(r.stdout).toContain("In brackets: the peak as × the output size (smaller is better; 1.00x = the output alone).");
    const measured = rep.rows.filter((x: any) => !x.skipped);
    expect(measured.length).toBe(8); // 3 libraries on each of the two record sets, 2 on binary (JSON skipped)
    for (const x of measured) {
      expect(x.error, x.error).toBeUndefined();
      expect(x.bytes).toBeGreaterThan(1e6);
      expect(x.overBaseline).toBeGreaterThan(0);
    }
    expect(rep.rows.find((x: any) => x.dataset === "binary-2m" && x.library === "JSON").skipped).toMatch(/binary/);
    // the end: each data set's peaks as × the output, smallest first, then why a quick run is no full run
    const end = tail(r.stdout, "peak over the baseline as × the output size (smaller is better; 1.00x = the output alone):");
    expect(end.length).toBe(4);
    for (const [i, ds] of ["records-1.3m", "rope-records-1.3m", "binary-2m"].entries()) {
      expect(end[i]!.startsWith(`peaks, ${ds}: `), end[i]).toBe(true);
      const cells = end[i]!.slice(`peaks, ${ds}: `.length).split(", ").map((c) => /^(.+) ([\d.]+)x$/.exec(c));
      const libs = ds.startsWith("binary") ? ["@resizable/msgpack", "msgpackr"] : ["@resizable/msgpack", "JSON", "msgpackr"];
      expect(cells.map((c) => c?.[1]).sort(), end[i]).toEqual(libs);
      const xs = cells.map((c) => Number(c?.[2]));
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
      // each is that row's peak over its output
      for (const c of cells) {
        const row = rep.rows.find((x: any) => x.dataset === ds && x.library === c?.[1]);
        expect(c?.[2]).toBe((row.overBaseline / row.bytes).toFixed(2));
      }
    }
    expect(end[3]).toMatch(/^note: --quick encodes ~1\.3 MB of records and a 2 MiB binary, too little to show what a full run \(~130 MB, 200 MiB\) does: /);
    expect(end[3]).toContain("quote full runs only");
  });
});
