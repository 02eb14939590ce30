// Smoke test of benchmarks/adversarial.js --quick: it runs on the built
// package, times every crafted input under every decode entry against its
// random twin (useMap skips number keys, by design), and reports finite
// ratios. The ratios themselves are the benchmark's reading, not a test's.
import { describe, expect, test } from "vitest";
import { assertBuilt, explain, run } from "./tools/harness.ts";

describe("benchmarks/adversarial.js --quick", () => {
  test("reports a finite per-byte ratio for every case and entry", async () => {
    assertBuilt();
    const r = await run(process.execPath, ["benchmarks/adversarial.js", "--quick", "--rounds=1", "--json"], { timeout: 120_000 });
    expect(r.code, explain("adversarial.js --quick", r)).toBe(0);
    expect(r.stdout).toMatch(/^runtime: node \d+\.\d+\.\d+ /m);
    const { rows } = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!) as { rows: { case: string; entry: string; bytes: number; ratio: number }[] };
    const cases = [...new Set(rows.map((x) => x.case))];
    expect(cases.length).toBe(8);
    for (const c of cases) {
      const entries = rows.filter((x) => x.case === c).map((x) => x.entry);
      expect(entries, c).toEqual(/number hash|integer hash/.test(c) ? ["decode()", "int64: bigint", "decodeAsync()"] : ["decode()", "useMap", "int64: bigint", "decodeAsync()"]);
    }
    for (const x of rows) {
      expect(Number.isFinite(x.ratio) && x.ratio > 0, `${x.case} / ${x.entry}: ${x.ratio}`).toBe(true);
      expect(x.bytes).toBeGreaterThan(10_000);
    }
    expect(r.stdout).toMatch(/^(every crafted input within 10x|\d+ over 10x) of a random input per byte \(30 case x entry pairs\)$/m);
  }, 180_000);
});
