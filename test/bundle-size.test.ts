// The bundle size budgets, through the same script users run (npm run size):
// the full codec's and the mini entry's minified ESM bundles must stay within
// their enforced ceilings; the 4 KB target (TARGET_GZIP) is reported for both.
import { describe, expect, test } from "vitest";
import { assertBuilt, explain, run } from "./tools/harness.ts";

describe("browser bundle size (test/tools/bundle-size.mjs, npm run size)", () => {
  test("the full codec stays under its gzip ceiling and every browser bundle is measured", async () => {
    assertBuilt();
    const r = await run(process.execPath, ["test/tools/bundle-size.mjs", "--json"], { timeout: 120_000 });
    const report = JSON.parse(r.stdout);
    for (const b of report.bundles) console.log(`${b.bundle}: ${b.minified} B minified, ${b.gzip} B gzip`);
    const names = report.bundles.map((b: { bundle: string }) => b.bundle);
    expect(names).toEqual(
      expect.arrayContaining(["dist/browser/msgpack.min.js", "dist/browser/msgpack.iife.min.js", "dist/browser/msgpack-mini.min.js", "dist/browser/msgpack-mini.iife.min.js"]),
    );
    for (const b of report.bundles) expect(b.gzip).toBeLessThan(b.minified);
    expect(report.modules.length).toBeGreaterThan(0);
    for (const budget of [report.budget, report.mini]) {
      expect(budget.target).toBe(4096);
      console.log(`${budget.bundle}: target ${budget.target} B gzip ${budget.targetMet ? "met" : `not met (${budget.actual} B)`}`);
      expect(budget.actual, `${budget.bundle} is ${budget.actual} B gzip`).toBeLessThanOrEqual(budget.gzip);
    }
    // the mini entry exists to be small: well under the full codec
    expect(report.mini.actual).toBeLessThan(report.budget.actual / 2);
    expect(r.code, explain("bundle-size.mjs", r)).toBe(0);
  });
});
