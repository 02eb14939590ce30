// The bundle size budgets, through the same script users run (npm run size):
// both bundles of the mini entry (encode + decode with every format,
// timestamps and extensions) and the main entry within their ceilings,
// every bundle measured, and the mini entry's one-direction imports
// (encode only, decode only) measured for the README.
import { describe, expect, test } from "vitest";
import { assertBuilt, explain, run } from "./tools/harness.ts";

describe("browser bundle size (test/tools/bundle-size.mjs, npm run size)", () => {
  test("the mini entry's bundles and the main entry are within their gzip ceilings; every bundle is measured", async () => {
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
    expect(report.mini.map((b: { bundle: string }) => b.bundle).sort()).toEqual(["dist/browser/msgpack-mini.iife.min.js", "dist/browser/msgpack-mini.min.js"]);
    // one ceiling for both mini bundles, well below the main entry's
    expect(new Set(report.mini.map((b: { gzip: number }) => b.gzip)).size).toBe(1);
    expect(report.mini[0].gzip).toBeLessThan(report.budget.gzip / 2);
    // what a bundler keeps from the mini entry for a page that only encodes or only decodes: less than both
    const miniGzip = report.bundles.find((b: { bundle: string }) => b.bundle === "dist/browser/msgpack-mini.min.js").gzip;
    expect(report.miniParts.map((p: { bundle: string }) => p.bundle)).toEqual(["mini, encode only", "mini, decode only"]);
    for (const part of report.miniParts) {
      expect(part.gzip, part.bundle).toBeGreaterThan(1000);
      expect(part.gzip, part.bundle).toBeLessThan(miniGzip);
    }
    for (const budget of report.mini) {
      expect(budget.actual, `${budget.bundle} is ${budget.actual} B gzip`).toBeLessThanOrEqual(budget.gzip);
    }
    expect(report.budget.actual, `${report.budget.bundle} is ${report.budget.actual} B gzip`).toBeLessThanOrEqual(report.budget.gzip);
    expect(r.code, explain("bundle-size.mjs", r)).toBe(0);
  });
});
