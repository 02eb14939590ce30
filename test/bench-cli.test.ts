// The benchmark scripts' command lines: every script in benchmarks/ answers
// --help with its options and how long a full run takes, at once (it starts
// no benchmark), and refuses an unknown flag with exit code 2 and a message,
// under node; one script also under bun and deno. Files in benchmarks/ that
// are modules, not scripts, are listed here so a new script cannot be missed.
// Last, the charts: each script redraws its SVG from a copy of the saved runs
// (--results=DIR), well-formed and identical to the committed one, so the
// pictures in the READMEs show the saved numbers.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { xmlProblems } from "./_support/xml.ts";
import { ROOT, RUNTIMES, explain, requireBinary, run } from "./tools/harness.ts";

/** Modules that other scripts import; they have no command line. */
const MODULES = ["fixtures.js", "plot.js", "report.js"];

const files = readdirSync(join(ROOT, "benchmarks")).filter((f) => f.endsWith(".js"));
const scripts = files.filter((f) => !MODULES.includes(f));

/** The `--name` flags a script's parseCli declaration lists. */
function declaredFlags(script: string): string[] {
  const source = readFileSync(join(ROOT, "benchmarks", script), "utf8");
  const block = /parseCli\(\{[\s\S]*?options: \{([\s\S]*?)\n {2}\},/.exec(source);
  expect(block, `${script} declares its options with parseCli`).not.toBeNull();
  return [...block![1]!.matchAll(/^\s*"?([a-z-]+)(?:=[A-Z]+)?"?:/gm)].map((m) => `--${m[1]}`);
}

const quick = { timeout: 30_000 };

test("every .js file in benchmarks/ is a script with a command line or a listed module", () => {
  expect(scripts.sort()).toEqual(["ab.js", "adversarial.js", "buffers.js", "bundle-targets.js", "memory.js", "peers.js", "strategies.js"]);
  for (const m of MODULES) expect(files).toContain(m);
  for (const s of scripts) expect(readFileSync(join(ROOT, "benchmarks", s), "utf8")).toMatch(/\bparseCli\(\{/);
});

describe.each(scripts)("benchmarks/%s under node", (script) => {
  test("--help lists every option and the time of a full run, and exits 0 without running anything", async () => {
    // the 30 s timeout of `quick` stops a script that runs its benchmarks instead
    const r = await run(process.execPath, [`benchmarks/${script}`, "--help"], quick);
    expect(r.code, explain(`${script} --help`, r)).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: node benchmarks/${script.replace(".", "\\.")} \\[options\\]`));
    expect(r.stdout).toMatch(/A full run takes \d+-\d+ minutes/);
    // how long --quick takes, as measured (a number of seconds, not "a few seconds")
    expect(r.stdout).toMatch(/--quick\s+takes\s+about\s+\d+\s+s\s+\(measured\s/);
    expect(r.stdout).not.toMatch(/a few seconds/);
    const flags = declaredFlags(script);
    expect(flags).toContain("--quick");
    for (const flag of [...flags, "--help"]) expect(r.stdout, flag).toMatch(new RegExp(`^ {2}${flag}\\b`, "m"));
    expect(r.stdout).not.toMatch(/^runtime: /m); // no benchmark started
    for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  test("an unknown flag exits 2 with a message on stderr", async () => {
    const r = await run(process.execPath, [`benchmarks/${script}`, "--no-such-flag"], quick);
    expect(r.code, explain(`${script} --no-such-flag`, r)).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${script.replace(".", "\\.")}: unknown option --no-such-flag \\(see --help\\)`, "m"));
    expect(r.stdout).not.toMatch(/^runtime: /m);
  });

  test("a value for a flag that takes none, and a single-dash flag, exit 2", async () => {
    const withValue = await run(process.execPath, [`benchmarks/${script}`, "--quick=1"], quick);
    expect(withValue.code, explain(`${script} --quick=1`, withValue)).toBe(2);
    expect(withValue.stderr).toMatch(/--quick takes no value/);
    const dash = await run(process.execPath, [`benchmarks/${script}`, "-q"], quick);
    expect(dash.code, explain(`${script} -q`, dash)).toBe(2);
    expect(dash.stderr).toMatch(/unknown option -q/);
  });
});

test("buffers.js says at its top and in --help (bench-smoke: when it runs) that it measures the platform's ArrayBuffer costs, not this library, and why that matters", async () => {
  const source = readFileSync(join(ROOT, "benchmarks/buffers.js"), "utf8");
  expect(source.split("\n")[0]).toBe("// Buffers benchmark: the platform's ArrayBuffer costs, not this library.");
  expect(source.slice(0, 1500)).toMatch(/Why it matters to this library/);
  const r = await run(process.execPath, ["benchmarks/buffers.js", "--help"], quick);
  const summary = r.stdout.split("\n\n")[1]!.replace(/\n/g, " ");
  expect(summary).toMatch(/^The platform's ArrayBuffer costs, not this library \(none of its code runs here\)/);
  expect(summary).toMatch(/Why it matters: .*encoder's design/);
});

test("peers.js --help says that --summary rewrites results/peers-summary.md", async () => {
  const r = await run(process.execPath, ["benchmarks/peers.js", "--help"], quick);
  expect(r.stdout).toMatch(/--summary +rewrite results\/peers-summary\.md/);
});

describe("ab.js: one build against another, in one process", () => {
  const cases = [
    { label: "node", bin: () => process.execPath, lead: [] as string[] },
    { label: "bun", bin: () => requireBinary(RUNTIMES.bun, "run npm ci"), lead: [] as string[] },
    { label: "deno", bin: () => requireBinary(RUNTIMES.deno, "run npm ci"), lead: ["run", "--allow-read", "--allow-env"] },
  ];
  test.each(cases)("$label: dist against itself gives a speed ratio for every data set, and the geometric means last", async ({ bin, lead }) => {
    const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
    const r = await run(bin(), [...lead, "benchmarks/ab.js", "--quick", "--rounds=1", "--a=dist", `--b=${join(ROOT, "dist")}`, "--json"], { timeout: 120_000, env });
    expect(r.code, explain("ab.js --quick", r)).toBe(0);
    expect(r.stdout).toMatch(/^# A\/B: build B's speed relative to build A \(above 1: B is faster\)$/m);
    expect(r.stdout).toMatch(/^data set +encode: speed ×A +decode: speed ×A$/m);
    const json = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { rows: { set: string; encode: number; decode: number }[] };
    expect(json.rows.map((row) => row.set)).toEqual(["rpc", "events", "nested-2k", "wide-map", "records-100k", "records-10m", "doubles-1e6", "ints-1e6", "blob-1m", "ascii-1m", "unicode-1m", "timeseries", "chat"]);
    for (const row of json.rows) for (const x of [row.encode, row.decode]) expect(x).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^geometric mean, speed ×A: encode \d\.\d{3}, decode \d\.\d{3} \(13 data sets\)$/m);
  });
});

test("ab.js --processes=2 times each data set in fresh processes, one loading B first, and reports the geometric mean of their ratios", async () => {
  const r = await run(process.execPath, ["benchmarks/ab.js", "--quick", "--rounds=1", "--processes=2", "--json", "rpc|ascii"], { timeout: 120_000 });
  expect(r.code, explain("ab.js --processes=2", r)).toBe(0);
  expect(r.stdout).toMatch(/^each data set timed in 2 fresh processes, half loading B first: the geometric mean of their ratios$/m);
  const json = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { rows: { set: string; encode: number; decode: number }[] };
  expect(json.rows.map((row) => row.set)).toEqual(["rpc", "ascii-1m"]);
  for (const row of json.rows) for (const x of [row.encode, row.decode]) expect(x).toBeGreaterThan(0);
});

describe("under bun and deno too (buffers.js)", () => {
  const cases = [
    { label: "bun", bin: () => requireBinary(RUNTIMES.bun, "run npm ci"), lead: [] as string[] },
    { label: "deno", bin: () => requireBinary(RUNTIMES.deno, "run npm ci"), lead: ["run", "--allow-run", "--allow-env", "--allow-sys"] },
  ];
  test.each(cases)("$label: --help exits 0, an unknown flag exits 2", async ({ bin, lead }) => {
    const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
    const help = await run(bin(), [...lead, "benchmarks/buffers.js", "--help"], { ...quick, env });
    expect(help.code, explain("--help", help)).toBe(0);
    expect(help.stdout).toMatch(/^usage: node benchmarks\/buffers\.js/);
    const bad = await run(bin(), [...lead, "benchmarks/buffers.js", "--no-such-flag"], { ...quick, env });
    expect(bad.code, explain("--no-such-flag", bad)).toBe(2);
    expect(bad.stderr).toMatch(/buffers\.js: unknown option --no-such-flag/);
  });
});

describe("charts drawn from the saved runs (a copy of benchmarks/results/*.json)", () => {
  let dir = "";
  const results = join(ROOT, "benchmarks", "results");
  const saved = (name: string) => readFileSync(join(results, name), "utf8");
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "bench-charts-"));
    for (const f of readdirSync(results)) if (f.endsWith(".json")) copyFileSync(join(results, f), join(dir, f));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The saved runs of a script: peers.js saves Node per major version (peers-node24.json), the others per runtime. */
  const runFiles = (prefix: string) =>
    prefix === "peers" ? readdirSync(results).filter((f) => /^peers-(node\d+|bun|deno)\.json$/.test(f)) : ["node", "bun", "deno"].map((rt) => `${prefix}-${rt}.json`);
  /** Runtime and version of each saved run of a script, e.g. "node 20.20.2". */
  const versions = (prefix: string) => runFiles(prefix).map((f) => JSON.parse(saved(f)).machine).map((m: any) => `${m.runtime} ${m.version}`);

  const cases = [
    {
      script: "peers.js",
      flag: "--summary",
      svg: "peers.svg",
      rewritten: ["peers-summary.md"],
      says: ["bigger is better", "speed ×msgpackr", "encode", "decode", "RPC message, 125 B", "records, 10 MB", "poolResults", "Geometric means"],
      prefix: "peers",
    },
    {
      script: "memory.js",
      flag: "--summary",
      svg: "memory.svg",
      rewritten: [] as string[],
      says: ["smaller is better", "records-130m", "rope-records-130m", "binary-200m", "@resizable/msgpack", "msgpackr", "notepack.io", "cannot encode binaries"],
      prefix: "memory",
    },
    {
      script: "strategies.js",
      flag: "--plot-only",
      svg: "strategies.svg",
      rewritten: ["strategies-summary.md", "strategies-node.md", "strategies-bun.md", "strategies-deno.md"],
      says: ["GB/s", "chunk list + concat", "speed ×default", "the default"],
      prefix: "strategies",
    },
  ];

  test.each(cases)("$script $flag draws results/$svg: well-formed, the committed chart, naming the runs", async (c) => {
    const r = await run(process.execPath, [`benchmarks/${c.script}`, c.flag, `--results=${dir}`], quick);
    expect(r.code, explain(`${c.script} ${c.flag}`, r)).toBe(0);
    expect(r.stdout).toContain(join(dir, c.svg));
    const svg = readFileSync(join(dir, c.svg), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+" viewBox="0 0 \d+ \d+">/);
    expect(xmlProblems(svg)).toEqual([]);
    for (const v of versions(c.prefix)) expect(svg, v).toContain(v);
    for (const text of c.says) expect(svg, text).toContain(text.replace(/&/g, "&amp;"));
    // what is committed is what the saved runs draw
    expect(svg).toBe(saved(c.svg));
    for (const f of c.rewritten) expect(readFileSync(join(dir, f), "utf8"), f).toBe(saved(f));
  });

  test("plot.js bar charts: escaped text, n/a for a value a run lacks, the row note where a whole row is empty", async () => {
    const spec = "../benchmarks/plot.js"; // a plain-JS module without types
    const { barChartSvg } = await import(spec);
    const svg: string = barChartSvg({
      title: "a <title> & more",
      series: [{ name: "node 1", color: "#111" }, { name: "bun 2", color: "#222" }],
      panels: [
        {
          title: "encode",
          scale: "log",
          reference: { x: 1, label: "peer" },
          rows: [
            { label: "set \"a\"", values: [0.5, 2] },
            { label: "set b", values: [1.5, null] },
            { label: "set c", values: [null, null], note: "copy vs view" },
          ],
        },
      ],
    });
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).toContain("a &lt;title&gt; &amp; more");
    expect(svg).toContain("set &quot;a&quot;");
    expect(svg.match(/>n\/a</g)?.length).toBe(1);
    expect(svg).toContain(">copy vs view<");
    for (const v of ["0.50", "2.00", "1.50"]) expect(svg).toContain(`>${v}</text>`);
  });

  test("plot.js linear bars start at 0, so a bar at the reference (1: the output alone) is as visible as its value", async () => {
    const spec = "../benchmarks/plot.js";
    const { barChartSvg } = await import(spec);
    const svg: string = barChartSvg({
      title: "peaks",
      series: [{ name: "node", color: "#111" }],
      panels: [{ title: "records", scale: "linear", reference: { x: 1, label: "the output" }, rows: [{ label: "best", values: [1.04] }, { label: "worst", values: [9.77] }] }],
    });
    const width = (label: string) => Number(new RegExp(`width="([\\d.]+)"[^>]*><title>${label}, node: `).exec(svg)?.[1]);
    expect(width("best") / width("worst")).toBeCloseTo(1.04 / 9.77, 2);
  });

  test("memory.svg: every bar is wide enough to see, the best (~1x the output) included", () => {
    const bars = [...saved("memory.svg").matchAll(/width="([\d.]+)"[^>]*><title>([^<]+)<\/title>/g)].map((m) => ({ width: Number(m[1]), what: m[2] }));
    expect(bars.length).toBeGreaterThan(40);
    for (const bar of bars) expect(bar.width, bar.what).toBeGreaterThanOrEqual(10);
  });

  test("strategies.svg: one idea per panel, one line per runtime: the default's GB/s, then each other strategy relative to it", () => {
    const svg = saved("strategies.svg");
    const panels = svg.split('<g transform="').slice(1);
    const titles = panels.map((p) => /<text [^>]*font-weight="600"[^>]*>([^<]+)<\/text>/.exec(p)?.[1]);
    const alternatives = ["exact (encodedSize pre-pass)", "chunk list + concat"];
    expect(titles).toEqual(
      ["default: GB/s", ...alternatives].flatMap((what) => [`${what}, vectors of doubles`, `${what}, record arrays`]),
    );
    for (const [i, panel] of panels.entries()) {
      // three lines, one per runtime, coloured as in the other charts
      expect(panel.match(/<path /g)?.length, titles[i]).toBe(3);
      for (const color of ["#3f8f3a", "#d9822b", "#3a6fb0"]) expect(panel, titles[i]).toMatch(new RegExp(`<path d="M[^"]+" fill="none" stroke="${color}"`));
      // a ratio panel has its line at 1, the default
      if (i >= 2) expect(panel, titles[i]).toContain(">the default</text>");
    }
    // the legend names the runtimes, not the strategies
    const legend = svg.slice(0, svg.indexOf('<g transform="'));
    for (const v of versions("strategies")) expect(legend).toContain(`>${v}</text>`);
    expect(legend).not.toContain("chunk list");
  });

  test("the chart test's XML check finds what is broken", () => {
    expect(xmlProblems('<svg xmlns="x"><g><rect width="1"/></g></svg>\n')).toEqual([]);
    expect(xmlProblems("<svg><g></svg>")).not.toEqual([]);
    expect(xmlProblems('<svg><text x="1">a < b</text></svg>')).not.toEqual([]);
    expect(xmlProblems("<svg><text>R&D</text></svg>")).not.toEqual([]);
    expect(xmlProblems('<svg a="1" a="2"></svg>')).not.toEqual([]);
    expect(xmlProblems("<svg></svg><svg></svg>")).not.toEqual([]);
    expect(xmlProblems("<svg><g>")).not.toEqual([]);
  });

  test("the peers runs are saved per runtime, Node per major version, and the summary reads every one", () => {
    const files = runFiles("peers");
    expect(files).toContain("peers-bun.json");
    expect(files).toContain("peers-deno.json");
    expect(files.some((f) => /^peers-node\d+\.json$/.test(f))).toBe(true);
    for (const f of files) {
      const m = JSON.parse(saved(f)).machine;
      expect(f, `${m.runtime} ${m.version}`).toBe(`peers-${m.runtime === "node" ? `node${m.version.split(".")[0]}` : m.runtime}.json`);
    }
    // no file of the old naming, which the summary would not read
    expect(readdirSync(results).filter((f) => /^peers-node(-quick)?\.(json|md)$/.test(f))).toEqual([]);
    const summary = saved("peers-summary.md");
    for (const v of versions("peers")) expect(summary, v).toContain(v);
  });

  test("docs/benchmarks.md names each runtime's version: the saved runs' and test/package.json's pins", () => {
    const doc = readFileSync(join(ROOT, "docs/benchmarks.md"), "utf8");
    const pins = JSON.parse(readFileSync(join(ROOT, "test/package.json"), "utf8")).devDependencies;
    const version = (spec: string) => /(\d+\.\d+\.\d+)$/.exec(spec)![1]!;
    const rows = doc.split("\n").filter((l) => /^\| (Node \d+|Bun|Deno)\b/.test(l));
    expect(rows.map((l) => l.split("|")[1]!.trim().split(" ").slice(0, 2).join(" ").replace(/ \(.*/, ""))).toEqual(["Node 20", "Node 24", "Node 26", "Bun", "Deno"]);
    const cell = (i: number) => rows[i]!.split("|")[2]!.trim();
    expect([cell(1), cell(2), cell(3), cell(4)]).toEqual([version(pins.node24), version(pins.node26), version(pins.bun), version(pins.deno)]);
    // each command that saves a run is there, and every saved run's version
    for (const rt of ["node24", "node26", "bun", "deno"]) expect(doc).toContain(`npm run bench:peers:${rt} `);
    for (const v of versions("peers")) expect(doc, v).toContain(`${v[0]!.toUpperCase()}${v.slice(1)}`);
  });

  test("README.md's speed table is the one --summary --readme writes from the saved runs", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
    const r = await run(process.execPath, ["benchmarks/peers.js", "--summary", "--readme", `--results=${dir}`], quick);
    expect(r.code, explain("peers.js --summary --readme", r)).toBe(0);
    expect(r.stdout).toContain(`wrote ${join(dir, "README.md")} (its speed table)`);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe(readme);
    const alone = await run(process.execPath, ["benchmarks/peers.js", "--readme", `--results=${dir}`], quick);
    expect(alone.code, explain("peers.js --readme", alone)).toBe(2);
    expect(alone.stderr).toContain("--readme goes with --summary");
    // the table is there, between its markers, with each library's means and JSON's
    const table = readme.slice(readme.indexOf("<!-- peers-table"), readme.indexOf("<!-- /peers-table -->"));
    expect(table).toMatch(/\| encode speed, relative to @msgpack\/msgpack \(geometric mean, 15 data sets\) \| [\d.]+x \| [\d.]+x \| 1x \| [\d.]+x \(\d+ data sets\) \|/);
    expect(table).toMatch(/\nOn (Node|Bun|Deno) [\d.]+, JSON is ahead of this library: encode .*; decode .*\(JSON's speed ÷ this library's\)\.\n/);
    for (const v of versions("peers")) expect(table, v).toContain(`${v[0]!.toUpperCase()}${v.slice(1)} encode`);
  });

  test("README.md shows the charts in its Benchmarks section and names the runs they come from", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Benchmarks\n"), readme.indexOf("\n## ", readme.indexOf("\n## Benchmarks\n") + 5));
    for (const svg of ["peers.svg", "memory.svg"]) expect(section).toMatch(new RegExp(`!\\[[^\\]]+\\]\\(benchmarks/results/${svg.replace(".", "\\.")}\\)`));
    for (const v of [...versions("peers"), ...versions("memory")]) {
      const [rt, version] = v.split(" ");
      expect(section, v).toMatch(new RegExp(`${rt![0]!.toUpperCase()}${rt!.slice(1)}\\s+${version!.replace(/\./g, "\\.")}`));
    }
  });
});
