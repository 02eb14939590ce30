// Smoke test for the shapes of benchmarks/peers.js that stress small-message
// and mixed-value paths: the 125 B RPC message, the events stream (each event
// encoded and decoded as its own message), the wide map of every kind of
// value, the time-series batch (millisecond timestamps past 2^32) and the
// chat stream (small messages heavy in accented, CJK and emoji text). Under node, bun and deno (--quick), every library that should
// round-trip them does so (peers.js checks each message, byte for byte for
// binaries, before timing), every mode is timed (encode, decode, this
// library's poolResults, inline and hoisted options, binaryAsView where a
// binary is inside), and the generated data is the same on every runtime.
// Needs dist/ (npm run build). The other peers data sets: bench-strategies.test.ts.
// Each run is also one of the runtimes the saved results cover (Node 20, 24 and
// 26, Bun, Deno), saved in a temporary directory: each report says where JSON
// beats this library, and --summary builds its tables, chart and the README's
// speed table from the five files.
// Last, the harness's batch calibration (benchmarks/lib/round-robin.js, used by
// peers.js too) must not settle on a batch size from one disturbed timing.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ROOT, explain, run as runCommand } from "./tools/harness.ts";

const run = (program: string, args: string[]) => runCommand(program, args, { timeout: 110_000 });
const bin = (name: string): string => fileURLToPath(new URL(`./node_modules/.bin/${name}`, import.meta.url));

const node = (major: number): string => fileURLToPath(new URL(`./node_modules/node${major}/bin/node`, import.meta.url));

/** Each runtime with the name its results are saved under (peers-<key>.json): Node by major version. */
const runtimes = [
  { label: "node", key: `node${process.versions.node.split(".")[0]}`, program: process.execPath, lead: [] as string[] },
  { label: "node24", key: "node24", program: node(24), lead: [] as string[] },
  { label: "node26", key: "node26", program: node(26), lead: [] as string[] },
  { label: "bun", key: "bun", program: bin("bun"), lead: [] as string[] },
  { label: "deno", key: "deno", program: bin("deno"), lead: ["run", "-A"] },
];
/** Where the runs save their results (--write --results=DIR), for the summary below. */
const saved = mkdtempSync(join(tmpdir(), "bench-peers-"));
afterAll(() => rmSync(saved, { recursive: true, force: true }));

const OURS = "@resizable/msgpack";
const POOLED = "@resizable/msgpack (poolResults)";
const INLINE = "@resizable/msgpack (options inline)";
const HOISTED = "@resizable/msgpack (options hoisted)";
const VIEWS = "@resizable/msgpack (binaryAsView)";
const OWN_BUFFER_REF = "reference: Uint8Array#slice of each result";
/** Libraries that must round-trip every shape here faithfully. */
const FAITHFUL = [OURS, "msgpackr", "@msgpack/msgpack"];

/** benchmarks/report.js's sig3: a number as the reports print it. */
function sig3(x: number): string {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(3);
}

/** The JSON-ahead line of a report, computed here from its MB/s: JSON's speed ÷ this library's, above 1, fastest first. */
function jsonAhead(rep: any): string {
  const list = (op: string) => {
    const ahead = rep.sets
      .filter((set: any) => set.results[op].JSON && set.results[op][OURS])
      .map((set: any) => [set.name, set.results[op].JSON.mbps / set.results[op][OURS].mbps] as const)
      .filter(([, x]: readonly [string, number]) => x > 1)
      .sort((a: readonly [string, number], b: readonly [string, number]) => b[1] - a[1]);
    return ahead.length ? ahead.map(([name, x]: readonly [string, number]) => `${name} ${x.toFixed(2)}x`).join(", ") : "none";
  };
  return `JSON ahead: encode ${list("encode")}; decode ${list("decode")}`;
}

/** The one JSON line peers.js prints with --json. */
function report(stdout: string): any {
  const line = stdout.split("\n").find((l) => l.startsWith('{"benchmark"'));
  expect(line, stdout.slice(-2000)).toBeDefined();
  return JSON.parse(line ?? "{}");
}

const digests = new Map<string, Record<string, string>>();

describe("benchmarks/peers.js --quick: rpc, events, wide-map, timeseries, chat", () => {
  it.each(runtimes)("round-trips and times every mode under $label", async (rt) => {
    const r = await run(rt.program, [...rt.lead, "benchmarks/peers.js", "--quick", "--json", "--write", `--results=${saved}`, "^(rpc|events|wide-map|timeseries|chat)$"]);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r.stdout);
    expect(rt.key).toBe(rep.machine.runtime === "node" ? `node${rep.machine.version.split(".")[0]}` : rep.machine.runtime);
    expect(r.stdout).toContain(`wrote ${join(saved, `peers-${rt.key}-quick.json`)}`);

    // JSON is in every table, and one line says where it beats this library (console and saved Markdown alike)
    expect(r.stdout).toContain("×msgpackr, ×@msgpack/msgpack and ×JSON = speed relative to that row");
    const md = readFileSync(join(saved, `peers-${rt.key}-quick.md`), "utf8");
    const line = jsonAhead(rep);
    expect(r.stdout).toContain(`\n${line}\n`);
    expect(md).toContain(`\n${line} (data sets on which JSON.stringify`);
    expect(md).toMatch(/\n\| rpc \(\d+ B\) \| [\d.]+ · [\d.]+ · [\d.]+ · [\d.]+ \|/); // MB/s · ×msgpackr · ×@msgpack/msgpack · ×JSON
    expect(md).toMatch(/\n\| wide-map \([\d.]+ kB\) \| [\d.]+ · [\d.]+ · [\d.]+ · - \|/); // JSON cannot carry binaries
    expect(rep.sets.map((s: any) => s.name)).toEqual(["rpc", "events", "wide-map", "timeseries", "chat"]);
    const byName = Object.fromEntries(rep.sets.map((s: any) => [s.name, s]));

    for (const set of rep.sets) {
      for (const name of FAITHFUL) expect(set.checks[name], `${set.name}: ${name}`).toMatchObject({ ok: true });
      // every library that round-trips is timed in both directions, at a positive, finite speed
      for (const [name, check] of Object.entries<any>(set.checks)) {
        for (const op of ["encode", "decode"]) {
          if (check.ok) expect(Number.isFinite(set.results[op][name]?.mbps) && set.results[op][name].mbps > 0, `${set.name} ${op} ${name}`).toBe(true);
          else expect(set.results[op][name], `${set.name} ${op} ${name}`).toBeUndefined();
        }
      }
      expect(set.digest).toMatch(/^[0-9a-f]{8}$/);
    }

    // events: the stream's size is the sum of its messages, each 80-170 B; the small-message rows are there
    const events = byName.events;
    expect(events.checks[OURS].largest).toBeLessThanOrEqual(170);
    expect(events.bytes).toBe(events.checks[OURS].size);
    expect(events.bytes / 500).toBeGreaterThan(100); // --quick: 500 events, ~115 B each
    expect(events.bytes / 500).toBeLessThan(130);
    for (const name of [POOLED, INLINE, HOISTED]) expect(events.results.encode[name]?.mbps, name).toBeGreaterThan(0);
    for (const name of [INLINE, HOISTED]) expect(events.results.decode[name]?.mbps, name).toBeGreaterThan(0);
    expect(byName.rpc.results.encode[POOLED]?.mbps).toBeGreaterThan(0);

    // wide map: one value of ~12 KB (--quick: 500 keys) holding binaries, so the zero-copy decode row is timed;
    // JSON cannot carry binaries, and the peers that lose a kind are named with where
    const wide = byName["wide-map"];
    expect(wide.checks[OURS].largest).toBe(wide.bytes);
    expect(wide.bytes).toBeGreaterThan(8000);
    expect(wide.results.decode[VIEWS]?.mbps).toBeGreaterThan(0);
    expect(wide.checks.JSON).toMatchObject({ ok: false, reason: expect.stringMatching(/binary became/) });
    for (const c of Object.values<any>(wide.checks)) if (!c.ok) expect(c.reason).toMatch(/at \$\./);

    // like with like: the inline options (sortKeys, maxDepth) have no ratio to the peers, only to the same options hoisted
    for (const set of rep.sets) {
      for (const op of ["encode", "decode"]) {
        const inline = set.results[op][INLINE], hoisted = set.results[op][HOISTED];
        if (set.name === "wide-map" || set.name === "timeseries") {
          expect(inline, `${set.name} is over 4 KiB: no options rows`).toBeUndefined();
          continue;
        }
        const vs = (inline.mbps / hoisted.mbps).toFixed(2);
        // every row and line names the options it passes
        const options = op === "encode" ? "{ sortKeys: true }" : "{ maxDepth: 100 }";
        expect(r.stdout, `${set.name} ${op}`).toContain(`options ${options} inline: ${vs}x the speed of the same options hoisted (like with like: the peers have no such options)`);
        expect(r.stdout).toContain(`- ${set.name}: @resizable/msgpack (${options} inline): ${sig3(inline.mbps)} · ${vs}x the speed of the same options hoisted`);
        expect(r.stdout).toContain(`- ${set.name}: @resizable/msgpack (${options} hoisted): ${sig3(hoisted.mbps)}\n`);
      }
    }
    const optionRows = r.stdout.split("\n").filter((l) => /^@resizable\/msgpack \(\{ (sortKeys: true|maxDepth: 100) \} (inline|hoisted)\) /.test(l));
    expect(optionRows.length).toBe(2 * 2 * 3); // two rows, two ops, three data sets
    for (const l of optionRows) expect(l).toMatch(/^@resizable\/msgpack \(\{ (sortKeys: true|maxDepth: 100) \} (inline|hoisted)\) +[\d.]+ +- +- /);
    // (the JSON report keeps its keys: "@resizable/msgpack (options inline)")
    expect(r.stdout.split("\n").filter((l) => !l.startsWith('{"benchmark"')).join("\n")).not.toMatch(/\(options (inline|hoisted)\)/);
    expect(r.stdout).not.toMatch(/^- \w+: @resizable\/msgpack \(\{[^}]*\} (inline|hoisted)\): [\d.]+ · [\d.]+ · /m);

    // time series: one batch value (--quick: 10 series of 30 points), every peer that round-trips it timed
    const ts = byName.timeseries;
    expect(ts.checks[OURS].largest).toBe(ts.bytes);
    expect(ts.bytes).toBeGreaterThan(5000);
    expect(ts.what).toMatch(/\[ms timestamp past 2\^32, value\] pairs/);

    // chat: a stream of small messages (--quick: 300), each at most 250 B, with the small-message rows
    const chat = byName.chat;
    expect(chat.bytes).toBe(chat.checks[OURS].size);
    expect(chat.checks[OURS].largest).toBeLessThanOrEqual(250);
    expect(chat.bytes / 300).toBeGreaterThan(100);
    expect(chat.bytes / 300).toBeLessThan(180);
    for (const name of [POOLED, INLINE, HOISTED]) expect(chat.results.encode[name]?.mbps, name).toBeGreaterThan(0);
    for (const name of ["notepack.io", "msgpack-lite", "JSON"]) expect(chat.checks[name], name).toMatchObject({ ok: true });

    // the allocation an owned result costs, alone: timed on the small-message sets only, and named as a reference
    for (const set of rep.sets) {
      const small = set.checks[OURS].largest <= 4096;
      expect(set.results.encode[OWN_BUFFER_REF]?.mbps > 0, set.name).toBe(small);
      expect(set.results.decode[OWN_BUFFER_REF], set.name).toBeUndefined();
    }
    expect(r.stdout).toMatch(/- chat: reference: Uint8Array#slice of each result: [\d.]+ · [\d.]+ · [\d.]+ · [\d.]+ \(this library: [\d.]+x of it\)/);

    digests.set(rt.label, Object.fromEntries(rep.sets.map((s: any) => [s.name, s.digest])));
  });

  it("generates the same data on every runtime", () => {
    expect(digests.size, "the runtime runs above passed").toBe(5);
    const [first, ...rest] = [...digests.values()];
    for (const d of rest) expect(d).toEqual(first);
  });

  it("--summary builds the cross-runtime tables, the chart and the README's speed table (Node 24's) from the five saved runs", async () => {
    expect(digests.size, "the runtime runs above passed").toBe(5);
    // the quick runs, saved as full runs would be (the summary refuses --quick runs), with a copy of the README
    const dir = join(saved, "summary");
    mkdirSync(dir);
    const reports = runtimes.map((rt) => {
      const r = JSON.parse(readFileSync(join(saved, `peers-${rt.key}-quick.json`), "utf8"));
      writeFileSync(join(dir, `peers-${rt.key}.json`), JSON.stringify({ ...r, quick: false }));
      return r;
    });
    copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
    const r = await run(process.execPath, ["benchmarks/peers.js", "--summary", "--readme", `--results=${dir}`]);
    expect(r.code, explain("--summary --readme", r)).toBe(0);
    const versions = reports.map((x) => `${x.machine.runtime[0].toUpperCase()}${x.machine.runtime.slice(1)} ${x.machine.version}`);
    expect(versions.map((v) => v.split(".")[0])).toEqual(["Node 20", "Node 24", "Node 26", "Bun 1", "Deno 2"]);

    const summary = readFileSync(join(dir, "peers-summary.md"), "utf8");
    const header = summary.split("\n").find((l) => l.startsWith("| data set |"));
    expect(header).toBe(`| data set | ${["Node 20", "Node 24", "Node 26", "Bun", "Deno"].flatMap((rt) => [`${rt} encode`, `${rt} decode`]).join(" | ")} |`);
    // one JSON-ahead line per run, as each run computed it
    for (const [i, rep] of reports.entries()) expect(summary).toContain(`\n- ${versions[i]}: ${jsonAhead(rep)}\n`);
    expect(summary).toMatch(/\n\| JSON \| [\d.]+ \| [\d.]+ \|/); // JSON's own means ×@msgpack/msgpack
    const svg = readFileSync(join(dir, "peers.svg"), "utf8");
    for (const rep of reports) expect(svg).toContain(`${rep.machine.runtime} ${rep.machine.version}`);

    // the README: Node 24's means of each library, where JSON is ahead on Node 24, then every run's means
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("<!-- peers-table"), readme.indexOf("<!-- /peers-table -->"));
    expect(table).toContain(`\n| ${versions[1]} (V8 `);
    expect(table).toContain(`\nOn ${versions[1]}, ${jsonAhead(reports[1]).replace("JSON ahead", "JSON is ahead of this library")} (JSON's speed ÷ this library's).\n`);
    expect(table).toContain("One run of `npm run bench:peers:node24`");
    expect(table).toContain(`| this library's speed relative to | ${versions.flatMap((v) => [`${v} encode`, `${v} decode`]).join(" | ")} |`);
    for (const row of ["msgpackr", "@msgpack/msgpack", "JSON"]) expect(table).toMatch(new RegExp(`\\n\\| ${row.replace("/", "\\/")} \\|( [\\d.]+ \\|){10}\\n`));
    // the rest of the README is untouched
    const outside = (text: string) => text.slice(0, text.indexOf("<!-- peers-table")) + text.slice(text.indexOf("<!-- /peers-table -->"));
    expect(outside(readme)).toBe(outside(readFileSync(join(ROOT, "README.md"), "utf8")));

    // without a Node 24 run, the README quotes the newest Node run and says which
    rmSync(join(dir, "peers-node24.json"));
    const without = await run(process.execPath, ["benchmarks/peers.js", "--summary", "--readme", `--results=${dir}`]);
    expect(without.code, explain("--summary --readme without node24", without)).toBe(0);
    expect(without.stdout).toContain("no results/peers-node24.json yet: run `npm run bench:peers:node24`");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain(`\n| ${versions[2]} (V8 `);

    // a run saved under another runtime's name is refused, not mislabelled
    copyFileSync(join(dir, "peers-node26.json"), join(dir, "peers-node24.json"));
    const wrong = await run(process.execPath, ["benchmarks/peers.js", "--summary", `--results=${dir}`]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain(`results/peers-node24.json holds a run of node ${reports[2].machine.version}: save it as peers-node26.json`);
  });
});

describe("benchmarks/fixtures.js: the time-series batch and the chat stream", () => {
  // plain-JS modules without types: imported by a computed specifier
  const load = async (): Promise<any> => {
    const spec = "../benchmarks/fixtures.js";
    return import(spec);
  };

  it("time series: [ms timestamp past 2^32, value] pairs in order, tag maps of 3-5 strings, the same for the same seed", async () => {
    const f = await load();
    const batch = f.timeSeries(12, 40);
    expect(batch).toEqual(f.timeSeries(12, 40));
    expect(batch).toHaveLength(12);
    for (const s of batch) {
      expect(typeof s.metric).toBe("string");
      const tags = Object.values(s.tags);
      expect(tags.length).toBeGreaterThanOrEqual(3);
      expect(tags.length).toBeLessThanOrEqual(5);
      for (const t of tags) expect(typeof t).toBe("string");
      expect(s.points).toHaveLength(40);
      let last = 0;
      for (const [ts, v] of s.points) {
        expect(Number.isInteger(ts) && ts > 2 ** 32 && ts > last).toBe(true);
        expect(Number.isFinite(v)).toBe(true);
        last = ts;
      }
    }
    // both integral counters and fractional gauges occur
    const values = batch.flatMap((s: any) => s.points.map((p: number[]) => p[1]));
    expect(values.some(Number.isInteger)).toBe(true);
    expect(values.some((v: number) => !Number.isInteger(v))).toBe(true);
  });

  it("chat: small messages heavy in accented, CJK and emoji text, no lone surrogates", async () => {
    const f = await load();
    const msgs = f.chatMessages(400);
    expect(msgs).toEqual(f.chatMessages(400));
    const text = msgs.map((m: any) => `${m.text} ${m.from.name} ${m.room} ${Object.keys(m.reactions ?? {}).join("")}`).join("\n");
    expect(text.isWellFormed()).toBe(true);
    const count = (re: RegExp) => (text.match(re) ?? []).length;
    expect(count(/[\u00c0-\u024f]/g)).toBeGreaterThan(400); // accented Latin
    expect(count(/[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]/g)).toBeGreaterThan(1000); // kana, CJK, Hangul
    expect(count(/\p{Extended_Pictographic}/gu)).toBeGreaterThan(200); // emoji
    expect(new Set(msgs.map((m: any) => m.id)).size).toBe(400);
    expect(msgs.some((m: any) => m.reactions) && msgs.some((m: any) => m.replyTo)).toBe(true);
  });
});

describe("benchmarks/lib/round-robin.js batch calibration", () => {
  // a plain-JS module without types: imported by a computed specifier
  const load = async (): Promise<any> => {
    const spec = "../benchmarks/lib/round-robin.js";
    return import(spec);
  };

  /** Feeds the search the time one batch would take (ms), from a per-call time and an optional disturbance. */
  function calibrate(rr: any, perCallMs: number, disturb: (step: number, batch: number) => number = () => 0) {
    const s = rr.newBatchSearch();
    let step = 0;
    while (!rr.searchStep(s, s.batch * perCallMs + disturb(step, s.batch), 2, 1e6)) step++;
    return s;
  }

  it("does not accept a batch size on one long timing", async () => {
    const rr = await load();
    const quiet = calibrate(rr, 0.0005); // 0.5 µs per call, 2 ms samples: 4000 calls
    expect(quiet.batch).toBeGreaterThanOrEqual(4000);
    expect(quiet.batch).toBeLessThan(4000 * 8);
    // the process loses the CPU for 12 ms during one batch of 64 calls: one timing was the old rule, and it stopped there
    const disturbed = calibrate(rr, 0.0005, (step, batch) => (batch === 64 && step === 2 ? 12 : 0));
    expect(disturbed.batch).toBe(quiet.batch);
    expect(disturbed.best).toBeCloseTo(quiet.best, 9);
  });

  it("needs CONFIRMATIONS timings in a row and stops at maxBatch", async () => {
    const rr = await load();
    const s = rr.newBatchSearch();
    s.batch = 1000;
    for (let i = 1; i < rr.CONFIRMATIONS; i++) expect(rr.searchStep(s, 2.5, 2, 1e6)).toBe(false);
    expect(rr.searchStep(s, 2.1, 2, 1e6)).toBe(true);
    expect(s.best).toBe(2.1);
    const capped = rr.newBatchSearch();
    capped.batch = 16;
    expect(rr.searchStep(capped, 0.001, 2, 16)).toBe(true);
  });

  it("timePerCall finds the time per call of an op on a clock that advances 1 µs per call", async () => {
    const rr = await load();
    // a fake clock: only the op moves it, so the answer is known exactly
    let now = 0;
    let calls = 0;
    const clock = vi.spyOn(performance, "now").mockImplementation(() => now);
    try {
      const perCall = rr.timePerCall(() => (calls++, (now += 0.001)), 2);
      expect(perCall).toBeCloseTo(0.001, 9);
      // the batch grew until one lasted 2 ms (2000 calls), then CONFIRMATIONS more batches
      expect(calls).toBeGreaterThanOrEqual(rr.CONFIRMATIONS * 2000);
      expect(calls).toBeLessThan(8 * (rr.CONFIRMATIONS + 1) * 2000);
    } finally {
      clock.mockRestore();
    }
  });
});
