// Smoke test for the dependency-free benchmarks: `benchmarks/buffers.js --quick`
// must keep running under node, bun and deno (with and without Deno permissions),
// print the runtime line and the result tables, and produce finite timings.
// Every table reads bigger-is-better (speed relative to its group's base, said
// above the table), and the run ends with the geometric means of those speeds.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run as runCommand } from "./tools/harness.ts";

const run = (program: string, args: string[]) => runCommand(program, args, { timeout: 60_000 });

const script = "benchmarks/buffers.js";
const bin = (name: string): string => fileURLToPath(new URL(`./node_modules/.bin/${name}`, import.meta.url));

const runtimes: { label: string; program: string; args: string[]; runtime: RegExp; isolated: boolean }[] = [
  { label: "node", program: process.execPath, args: [script], runtime: /^runtime: node \d+\.\d+\.\d+ \(V8 [\w.-]+\)/m, isolated: true },
  { label: "bun", program: bin("bun"), args: [script], runtime: /^runtime: bun \d+\.\d+\.\d+ \(JavaScriptCore /m, isolated: true },
  {
    label: "deno with --allow-run --allow-env",
    program: bin("deno"),
    args: ["run", "--allow-run", "--allow-env", script],
    runtime: /^runtime: deno \d+\.\d+\.\d+ \(V8 [\w.-]+\)/m,
    isolated: true,
  },
  { label: "deno run as-is", program: bin("deno"), args: ["run", script], runtime: /^runtime: deno \d+\.\d+\.\d+ /m, isolated: false },
];

describe("benchmarks/buffers.js --quick", () => {
  it.each(runtimes)("runs under $label and prints the runtime, tables and legend", async (rt) => {
    const r = await run(rt.program, [...rt.args, "--quick", "--json", "--wide"]);
    expect(r.stderr, r.stdout).not.toMatch(/error/i);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(rt.runtime);
    // what it measures, first: the platform, not this library
    expect(r.stdout).toMatch(/^# buffers benchmark \(--quick\): the platform's ArrayBuffer costs, not this library \(see --help\)$/m);
    for (const title of ["## alloc", "## grow", "## element", "## bulk", "## memory"]) expect(r.stdout).toContain(title);
    for (const header of ["p1", "p25", "p50", "p75", "p99", "speed ×base", "MB/s (p50)"]) expect(r.stdout).toContain(header);
    expect(r.stdout).not.toMatch(/\bratio\b/); // one word, one direction: speed, bigger is faster
    expect(r.stdout).toMatch(/^legend: speed ×base = p50 of its group's baseline \(marked 'base'\) \/ p50 of this case: bigger is faster/m);
    // every timing table says the direction above it
    const tables = r.stdout.split("\n").filter((l) => /^case +p1 /.test(l)).length;
    const said = r.stdout.match(/^.*: speed ×base = p50 of the base case \/ p50 of this case: above 1 = faster than the base, bigger is better$/gm) ?? [];
    expect(tables).toBeGreaterThan(5);
    expect(said.length).toBe(tables);
    // the memory table names its unit and direction
    expect(r.stdout).toMatch(/^## memory: .*× output: smaller is better, 1 is the floor$/m);
    expect(r.stdout).toContain(rt.isolated ? "one fresh process per case" : "isolation: none");

    const line = r.stdout.split("\n").find((l) => l.startsWith('{"runtime"'));
    expect(line).toBeDefined();
    const report = JSON.parse(line ?? "{}");
    for (const key of ["alloc", "grow", "element", "bulk"]) {
      const rows = report.sections[key] as { group: string; p50: number; speed: number; baseline: boolean }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(Number.isFinite(row.p50) && row.p50 > 0).toBe(true);
        expect(Number.isFinite(row.speed) && row.speed > 0).toBe(true);
        // speed = base p50 / p50: above 1 exactly when this case's p50 is below the base's
        const base = rows.find((b) => b.baseline && b.group === row.group)!;
        expect(row.speed).toBeCloseTo(base.p50 / row.p50, 9);
      }
      expect(rows.some((row) => row.baseline && row.speed === 1)).toBe(true);
    }
    expect(report.sections.memory.length).toBe(6);

    // the end of the run: the geometric means of the speeds, per section and case, after everything else
    const lines = r.stdout.trimEnd().split("\n");
    const head = lines.findIndex((l) => l.startsWith("geometric means of speed ×base over each section's groups (above 1 = faster than the group's base case)"));
    expect(head, r.stdout.slice(-1500)).toBeGreaterThan(lines.findIndex((l) => l.startsWith("done in ")));
    const means = lines.slice(head + 1);
    expect(means.length).toBeGreaterThan(5);
    for (const l of means) expect(l).toMatch(/^geometric mean, (alloc|grow|element|bulk): .+: \d+(\.\d+)?x the base's speed \(\d+ groups?\)$/);
    for (const key of ["alloc", "grow", "element", "bulk"]) expect(means.some((l) => l.startsWith(`geometric mean, ${key}: `)), key).toBe(true);
  });

  it("prints tables that fit 120 columns without --wide", async () => {
    const r = await run(process.execPath, [script, "--quick"]);
    expect(r.code, r.stderr).toBe(0);
    // table lines: columns separated by two or more spaces (prose lines wrap in a terminal)
    const tableLines = r.stdout.split("\n").filter((l) => /\S {2,}\S/.test(l) && !/^(legend|isolation|runtime):/.test(l));
    expect(tableLines.length).toBeGreaterThan(20);
    expect(tableLines.filter((l) => l.length > 120)).toEqual([]);
    const headers = tableLines.filter((l) => /^case +p1 +p50 /.test(l));
    expect(headers.length).toBeGreaterThan(5);
    expect(headers.filter((l) => /\bp25\b/.test(l))).toEqual([]); // p25 and p75 only with --wide
  });
});
