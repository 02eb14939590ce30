// The bundle size budgets, through the same script users run (npm run size):
// the main entry's bundle and what a bundler keeps of the main entry for a
// page that imports encode only, decode only or both, each within its
// ceiling, and every bundle measured. Then the sizes docs/browsers.md and
// the README print, against what `npm run size` and `npm pack --dry-run`
// print today.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { constants, gzipSync } from "node:zlib";
import { build } from "esbuild";
import { beforeAll, describe, expect, test } from "vitest";
import { ROOT, assertBuilt, cleanEnv, explain, npmCommand, run } from "./tools/harness.ts";

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
    expect(modules).toEqual(expect.arrayContaining(["src/encode/walk.ts", "src/decode/reader.ts", "src/format/forms.ts", "src/common/errors.ts"]));
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
    expect(Object.keys(added).sort()).toEqual(["compat/msgpack", "compat/notepack", "records", "schema"]);
    expect(added["schema"].brings).toEqual(["src/decode/schema.ts", "src/schema.ts"]);
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

// ---- the numbers the docs print are the numbers `npm run size` and `npm pack` print today ----

/** Within `percent` of `actual`, or within `bytes` for small numbers (one decimal of KiB is 0.05 KiB). */
function near(documented: number, actual: number, percent = 3, bytes = 60): boolean {
  return Math.abs(documented - actual) <= Math.max((actual * percent) / 100, bytes);
}

/** A size as the docs write it ("55.7 KiB", "2,615 B", "616 kB", "2.3 MB"), in bytes. */
function bytesOf(text: string): number {
  const m = /^([\d,.]+)\s*(B|KiB|kB|MB)$/.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text}`);
  const n = Number(m[1]!.replace(/,/g, ""));
  return n * { B: 1, KiB: 1024, kB: 1000, MB: 1e6 }[m[2] as "B" | "KiB" | "kB" | "MB"];
}

describe("the sizes in docs/browsers.md and the README are today's (npm run size, npm pack)", () => {
  let report: any;
  beforeAll(async () => {
    assertBuilt();
    const r = await run(process.execPath, ["test/tools/bundle-size.mjs", "--json"], { timeout: 120_000 });
    if (r.code !== 0) throw new Error(explain("bundle-size.mjs --json", r));
    report = JSON.parse(r.stdout);
  }, 180_000);

  test("docs/browsers.md: each bundle's and each import's minified and gzip size, within 3%", () => {
    const doc = readFileSync(join(ROOT, "docs/browsers.md"), "utf8");
    const rows = doc.split("\n").filter((l) => /^\|.*\| [\d.]+ KiB \| [\d.]+ KiB \|$/.test(l));
    const sizes: Record<string, { minified: number; gzip: number }> = {};
    for (const b of report.bundles) sizes[`\`${b.bundle.replace("dist/browser/", "")}\``] = b;
    // "main entry, encode only" -> "`encode` only", "main entry, encode + decode" -> "`encode` + `decode`"
    for (const b of report.importSizes) sizes[b.bundle.replace("main entry, ", "").replace(/(encode|decode)/g, "`$1`")] = b;
    for (const p of report.peers) sizes[p.bundle.replace(/@(?=\d)/, " ")] = p; // "@msgpack/msgpack 3.1.3"
    const checked: string[] = [];
    for (const row of rows) {
      const cells = row.split("|").slice(1, -1).map((c) => c.trim());
      const label = cells[0] || cells[1]!;
      const key = Object.keys(sizes).find((k) => label.startsWith(k));
      expect(key, `a measured size for the row "${label}"`).toBeDefined();
      const actual = sizes[key!]!;
      const [minified, gzip] = cells.slice(-2).map(bytesOf);
      expect(near(minified!, actual.minified), `${label}: ${cells.at(-2)} documented, ${actual.minified} B measured`).toBe(true);
      expect(near(gzip!, actual.gzip), `${label}: ${cells.at(-1)} documented, ${actual.gzip} B measured`).toBe(true);
      checked.push(key!);
    }
    expect(checked.length, "every bundle, import and peer row").toBe(report.bundles.length + report.importSizes.length + report.peers.length);
  });

  test("docs/browsers.md: what each module adds, within 3% (or 16 B)", () => {
    const doc = readFileSync(join(ROOT, "docs/browsers.md"), "utf8").replace(/\s+/g, " ");
    for (const m of report.added) {
      const name = m.module === "records" ? "`@resizable/msgpack/records` [\\d.]+ KiB \\(([\\d,]+ B)\\)" : `\`${m.module}\` ([\\d,]+ B)`;
      const found = new RegExp(name).exec(doc);
      expect(found, `docs/browsers.md names what ${m.module} adds`).not.toBeNull();
      expect(near(bytesOf(found![1]!), m.adds, 3, 16), `${m.module}: ${found![1]} documented, ${m.adds} B measured`).toBe(true);
    }
  });

  test("README: encode + decode, encode alone, decode alone, records, and Decoder's cost, within 3%", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
    const [encodeOnly, decodeOnly, both] = report.importSizes.map((b: { gzip: number }) => b.gzip);
    const records = report.added.find((m: { module: string }) => m.module === "records").adds;
    const when = /`encode` \+ `decode` is ([\d.]+ KiB) gzip \(([\d.]+ KiB) with records\); `encode` alone is ([\d.]+ KiB) and `decode` alone ([\d.]+ KiB)/.exec(readme);
    expect(when, "the README's sizes under When not to use it").not.toBeNull();
    const [b, r, e, d] = when!.slice(1).map(bytesOf);
    expect([near(b!, both), near(r!, both + records), near(e!, encodeOnly), near(d!, decodeOnly)]).toEqual([true, true, true, true]);
    const table = /\| `encode` \+ `decode`, minified \+ gzip \| ([\d.]+ KiB) \(records: \+([\d.]+ KiB)\)/.exec(readme);
    expect(table).not.toBeNull();
    expect([near(bytesOf(table![1]!), both), near(bytesOf(table![2]!), records)]).toEqual([true, true]);
    // `Decoder` from the main entry with encode and decode, bundled as the "what a bundler keeps" rows are
    const decoder = /`Decoder` from the main entry also brings the stream decoders into a browser bundle: ([\d.]+ KiB) gzip instead of ([\d.]+ KiB)/.exec(readme);
    expect(decoder).not.toBeNull();
    const built = await build({ stdin: { contents: `export { encode, decode, Decoder } from "./src/index.ts";`, resolveDir: ROOT, loader: "ts" }, bundle: true, minify: true, format: "esm", platform: "neutral", target: "es2022", write: false });
    const withDecoder = gzipSync(built.outputFiles[0]!.contents, { level: constants.Z_BEST_COMPRESSION }).length;
    expect(near(bytesOf(decoder![1]!), withDecoder), `${decoder![1]} documented, ${withDecoder} B measured`).toBe(true);
    expect(near(bytesOf(decoder![2]!), both)).toBe(true);
  }, 120_000);

  test("README: the package's size, as npm pack --dry-run prints it, within 3%", async () => {
    const [npm, npmArgs] = npmCommand();
    const r = await run(npm, [...npmArgs, "pack", "--dry-run", "--json", "--ignore-scripts"], { env: cleanEnv(), timeout: 120_000 });
    expect(r.code, explain("npm pack --dry-run", r)).toBe(0);
    const { size, unpackedSize } = JSON.parse(r.stdout.slice(r.stdout.indexOf("[")))[0];
    const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
    const m = /The package is ([\d.]+ kB) packed \(([\d.]+ MB) unpacked\)/.exec(readme);
    expect(m, "the README's package size").not.toBeNull();
    expect(near(bytesOf(m![1]!), size, 3, 0), `${m![1]} documented, ${size} B packed`).toBe(true);
    expect(near(bytesOf(m![2]!), unpackedSize, 3, 0), `${m![2]} documented, ${unpackedSize} B unpacked`).toBe(true);
  }, 120_000);
});
