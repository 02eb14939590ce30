// The bundle size budgets, through the same script users run (npm run size):
// the main entry's bundle and what a bundler keeps of the main entry for a
// page that imports encode only, decode only or both, each within its
// ceiling, and every bundle measured.
import { describe, expect, test } from "vitest";
import { assertBuilt, explain, run } from "./tools/harness.ts";

describe("browser bundle size (test/tools/bundle-size.mjs, npm run size)", () => {
  test("the main entry's bundle and its encode-only, decode-only and encode + decode imports are within their gzip ceilings; every bundle is measured", async () => {
    assertBuilt();
    const r = await run(process.execPath, ["test/tools/bundle-size.mjs", "--json"], { timeout: 120_000 });
    const report = JSON.parse(r.stdout);
    for (const b of [...report.bundles, ...report.importSizes, ...report.packageImports]) console.log(`${b.bundle}: ${b.minified} B minified, ${b.gzip} B gzip`);
    const names = report.bundles.map((b: { bundle: string }) => b.bundle);
    expect(names).toEqual(expect.arrayContaining(["dist/browser/msgpack.min.js", "dist/browser/msgpack.iife.min.js", "dist/browser/msgpack-streams.min.js"]));
    for (const b of report.bundles) expect(b.gzip).toBeLessThan(b.minified);
    // what each module costs in `import { encode, decode }`: both sides, nothing of the streams or the inspector, adding up to the bundle
    const modules = report.modules.map((m: { module: string }) => m.module);
    expect(modules).toEqual(expect.arrayContaining(["src/encode/walk.ts", "src/decode/decoder.ts", "src/format/forms.ts", "src/common/errors.ts"]));
    expect(modules.filter((m: string) => /^src\/(stream|inspect)\//.test(m))).toEqual([]);
    const moduleBytes = report.modules.reduce((n: number, m: { bytes: number }) => n + m.bytes, 0);
    expect(moduleBytes).toBeLessThanOrEqual(report.importSizes[2].minified);
    expect(moduleBytes).toBeGreaterThan(0.95 * report.importSizes[2].minified);
    // what a bundler keeps of the main entry: one direction is less than both, both no more than the whole bundle
    expect(report.imports.map((b: { bundle: string }) => b.bundle)).toEqual([
      "main entry, encode only",
      "main entry, decode only",
      "main entry, encode + decode",
      "npm build, encode only",
      "npm build, decode only",
      "npm build, encode + decode",
    ]);
    const [encodeOnly, decodeOnly, both] = report.importSizes.map((b: { gzip: number }) => b.gzip);
    expect(encodeOnly).toBeLessThan(both);
    expect(decodeOnly).toBeLessThan(both);
    expect(decodeOnly).toBeGreaterThan(1000);
    expect(both).toBeLessThanOrEqual(report.budget.actual);
    for (const budget of report.imports) {
      expect(budget.actual, `${budget.bundle} is ${budget.actual} B gzip`).toBeLessThanOrEqual(budget.gzip);
    }
    expect(report.budget.actual, `${report.budget.bundle} is ${report.budget.actual} B gzip`).toBeLessThanOrEqual(report.budget.gzip);
    // the drop-in behaviours are in their modules only, and a decode-only page carries no ExtensionCodec
    expect(report.leaked).toEqual([]);
    expect(report.decodeOnlyKeeps).toEqual([]);
    // nor Encoder's other methods (encode() runs on a lean encoder), while the full bundle has them
    expect(report.encodeKeeps).toEqual([]);
    expect(r.stderr).not.toMatch(/bundle-size: /);
    expect(r.code, explain("bundle-size.mjs", r)).toBe(0);
  });

  test("each module imported alone adds what it carries, within its ceiling, and the main entry keeps none of it", async () => {
    const r = await run(process.execPath, ["test/tools/bundle-size.mjs", "--json"], { timeout: 120_000 });
    const report = JSON.parse(r.stdout);
    const added = Object.fromEntries(report.added.map((m: { module: string }) => [m.module, m]));
    expect(Object.keys(added).sort()).toEqual(["compat/msgpack", "compat/notepack", "records"]);
    expect(added["records"].brings).toEqual(["src/format/records.ts", "src/records.ts", "src/records/read.ts", "src/records/table.ts", "src/records/write.ts"]);
    expect(added["compat/msgpack"].brings).toEqual(["src/compat/msgpack.ts", "src/dropin/msgpack.ts"]);
    expect(added["compat/notepack"].brings).toEqual(["src/compat/notepack.ts", "src/dropin/buffers.ts"]);
    for (const m of report.added) {
      console.log(`${m.module}: adds ${m.adds} B gzip (${m.gzip} B in all)`);
      expect(m.adds, `${m.module} adds something`).toBeGreaterThan(0);
      expect(m.adds, `${m.module} adds ${m.adds} B gzip`).toBeLessThanOrEqual(m.ceiling);
    }
  });
});
