// The bundle size budget, through the same script users run (npm run size):
// the full codec's minified ESM bundle must stay within its enforced ceiling
// (BUDGET_GZIP); the 4 KB target (TARGET_GZIP) is reported, not yet met.
import { describe, expect, test } from "vitest";
import { assertBuilt, explain, run } from "./tools/harness.ts";

describe("browser bundle size (test/tools/bundle-size.mjs, npm run size)", () => {
  test("the full codec stays under its gzip ceiling and every browser bundle is measured", async () => {
    assertBuilt();
    const r = await run(process.execPath, ["test/tools/bundle-size.mjs", "--json"], { timeout: 120_000 });
    const report = JSON.parse(r.stdout);
    for (const b of report.bundles) console.log(`${b.bundle}: ${b.minified} B minified, ${b.gzip} B gzip`);
    const names = report.bundles.map((b: { bundle: string }) => b.bundle);
    expect(names).toEqual(expect.arrayContaining(["dist/browser/msgpack.min.js", "dist/browser/msgpack.iife.min.js"]));
    for (const b of report.bundles) expect(b.gzip).toBeLessThan(b.minified);
    expect(report.modules.length).toBeGreaterThan(0);
    expect(report.budget.target).toBe(4096);
    console.log(`target ${report.budget.target} B gzip: ${report.budget.targetMet ? "met" : `not met (${report.budget.actual} B)`}`);
    expect(report.budget.actual, `${report.budget.bundle} is ${report.budget.actual} B gzip`).toBeLessThanOrEqual(report.budget.gzip);
    expect(r.code, explain("bundle-size.mjs", r)).toBe(0);
  });
});
