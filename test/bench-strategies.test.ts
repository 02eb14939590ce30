// Smoke test for benchmarks/strategies.js, peers.js and memory.js: each runs
// at tiny sizes (--quick) so they don't rot. strategies.js is dependency-free
// and must run as-is under node, bun and `deno run` (no permissions); the
// peer and memory scripts use the devDependencies. Needs dist/ (npm run build).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run as runCommand } from "./tools/harness.ts";

const run = (program: string, args: string[]) => runCommand(program, args, { timeout: 110_000 });

const bin = (name: string): string => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

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
const STRATEGIES = ["default", "resizable-no-est", "exact", "chunks", "doubling"];

describe("benchmarks/strategies.js --quick", () => {
  it.each(runtimes)("runs as-is under $label and reports every strategy per data set", async (rt) => {
    const r = await run(rt.program, [...rt.lead, "benchmarks/strategies.js", "--quick", "--json", "--wide"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(rt.runtime);
    for (const header of ["p1", "p25", "p50", "p75", "p99", "ratio", "MB/s (p50)"]) expect(r.stdout).toContain(header);
    expect(r.stdout).toMatch(/^legend: GB\/s = output bytes/m);
    expect(r.stdout).toContain("**Answers**");
    const rep = report(r.stdout);
    const families = new Set(rep.groups.map((g: any) => g.family));
    expect([...families].sort()).toEqual(["nested", "records", "vectors"]);
    for (const g of rep.groups) {
      expect(g.results.map((x: any) => x.strategy)).toEqual(STRATEGIES);
      for (const x of g.results) expect(Number.isFinite(x.gbps) && x.gbps > 0 && Number.isFinite(x.ratio)).toBe(true);
      expect(g.results[0].ratio).toBe(1);
    }
  });
});

describe("benchmarks/peers.js --quick", () => {
  it.each([
    runtimes[0],
    runtimes[1],
    { ...runtimes[2], lead: ["run", "-A"] },
  ])("checks round trips and times every library under $label", async (rt) => {
    const r = await run(rt.program, [...rt.lead, "benchmarks/peers.js", "--quick", "--json", "rpc|records-100k|blob-1m"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(rt.runtime);
    expect(r.stdout).toMatch(/^legend: MB\/s = /m);
    const rep = report(r.stdout);
    expect(rep.sets.map((s: any) => s.name)).toEqual(["rpc", "records-100k", "blob-1m"]);
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
  });
});

describe("benchmarks/memory.js --quick", () => {
  it("measures peak RSS over the baseline in fresh processes (node)", async () => {
    const r = await run(process.execPath, ["benchmarks/memory.js", "--quick", "--json", "/(@resizable/msgpack|msgpackr|JSON)$"]);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r.stdout);
    const measured = rep.rows.filter((x: any) => !x.skipped);
    expect(measured.length).toBe(8); // 3 libraries on each of the two record sets, 2 on binary (JSON skipped)
    for (const x of measured) {
      expect(x.error, x.error).toBeUndefined();
      expect(x.bytes).toBeGreaterThan(1e6);
      expect(x.overBaseline).toBeGreaterThan(0);
    }
    expect(rep.rows.find((x: any) => x.dataset === "binary-200m" && x.library === "JSON").skipped).toMatch(/binary/);
  });
});
