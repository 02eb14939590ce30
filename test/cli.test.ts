// The `msgpack` command as users run it: dist/bin/msgpack.js (package.json
// `bin`) spawned as a child process, on files and on standard input: each
// command and its --help, back-to-back values, exit codes for invalid
// input (1) and for a missing file, a directory or a bad option (2),
// colours (--color, FORCE_COLOR, NO_COLOR), to-json/from-json round trips
// byte for byte over the shared vectors and against outputs written out
// by hand, a stream of more than 4 GiB that is never held, and stats and
// validate in bounded memory on a large input, with --records too; input
// that is not MessagePack (or, for from-json, not JSON) named as such.
// Peak memory is the child's own count (Linux's VmHWM, else
// `process.resourceUsage().maxRSS`), written as it exits by a module loaded
// with `node -r`: exact, with no polling that could miss the peak.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as msgpackr from "msgpackr";
import { encode } from "../src/index.ts";
import { duration, progress } from "../src/inspect/progress.ts";
import { fromHex } from "./_support/arbitrary.ts";
import { CONTROLS, rawControls, wideDeclaration } from "./_support/hostile.ts";
import { loadVectors } from "./_support/vectors.ts";
import { ROOT, assertBuilt, readJson } from "./tools/harness.ts";

const BIN = join(ROOT, readJson("package.json").bin.msgpack);

interface Result {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Peak resident memory of the child (kB), as it counted it when it exited; 0 when it did not exit by itself. */
  peakKb: number;
}

/** Whether `script` (util-linux) is here to run a command on a terminal. */
const SCRIPT = existsSync("/usr/bin/script");
let runs = 0;

/** Runs the command with `args`; `input` (bytes, or a generator of chunks) goes to its standard input. */
function cli(args: string[], input?: Uint8Array | string | (() => AsyncGenerator<Uint8Array>), env: NodeJS.ProcessEnv = {}, nodeArgs = false): Promise<Result> {
  return new Promise((resolve, reject) => {
    // with nodeArgs, `args` starts with node's own options and the script
    const peakFile = join(work, `peak-${++runs}`);
    const child = spawn(process.execPath, ["-r", join(work, "peak.cjs"), ...(nodeArgs ? args : [BIN, ...args])], { cwd: work, env: { PATH: process.env.PATH, MSGPACK_TEST_PEAK: peakFile, ...env } });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const peakKb = existsSync(peakFile) ? Number(readFileSync(peakFile, "utf8")) : 0;
      resolve({ code, stdout: Buffer.concat(out), stderr: err, peakKb });
    });
    child.stdin.on("error", () => {}); // the child may stop reading early
    if (typeof input === "function") {
      void (async () => {
        for await (const chunk of input()) if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once("drain", r));
        child.stdin.end();
      })();
    } else child.stdin.end(input ?? "");
  });
}

let work: string;
const file = (name: string, bytes: Uint8Array | string): string => {
  writeFileSync(join(work, name), bytes);
  return name;
};

beforeAll(() => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), "msgpack-cli-"));
  // The peak resident memory of the command, written as it exits: Linux's VmHWM of its own memory
  // (getrusage's maxRSS keeps the peak of the process it was forked from, here the test's), else maxRSS.
  writeFileSync(
    join(work, "peak.cjs"),
    `const fs = require("node:fs");
process.on("exit", () => {
  let kb;
  try { kb = Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]); } catch { kb = process.resourceUsage().maxRSS; }
  fs.writeFileSync(process.env.MSGPACK_TEST_PEAK, String(kb));
});
`,
  );
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const SAMPLE = new Uint8Array([...encode({ name: "cli", n: [1, 2.5] }), ...encode("second"), ...encode(null)]);

describe("msgpack (dist/bin/msgpack.js)", () => {
  test("is the package's bin, a Node script", () => {
    expect(existsSync(BIN)).toBe(true);
    expect(readFileSync(BIN, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  test("--help on the command and on every subcommand", async () => {
    const main = await cli(["--help"]);
    expect(main.code).toBe(0);
    for (const command of ["inspect", "to-json", "from-json", "stats", "validate"]) {
      expect(main.stdout.toString()).toContain(`  ${command} `);
      const r = await cli([command, "--help"]);
      expect(r.code, command).toBe(0);
      expect(r.stdout.toString()).toMatch(new RegExp(`^Usage: msgpack ${command} `));
    }
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout.toString()).toMatch(/^Usage: msgpack <command>/);
  });

  test("inspect: one line per value, back-to-back values, from a file and from standard input", async () => {
    const name = file("sample.msgpack", SAMPLE);
    const expected = [
      "00000000  82                          fixmap (2 entries)",
      '00000001  a4                            fixstr (4 B) "name"',
      '00000006  a3                              fixstr (3 B) "cli"',
      '0000000a  a1                            fixstr (1 B) "n"',
      "0000000c  92                              fixarray (2 items)",
      "0000000d  01                                positive fixint 1",
      "0000000e  cb 40 04 00 00 00 00 00 00        float 64 2.5",
      '00000017  a6                          fixstr (6 B) "second"',
      "0000001e  c0                          nil",
      "",
    ].join("\n");
    const fromFile = await cli(["inspect", name]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout.toString()).toBe(expected);
    for (const args of [["inspect", "-"], ["inspect"]]) {
      const r = await cli(args, SAMPLE);
      expect(r.code).toBe(0);
      expect(r.stdout.toString()).toBe(expected);
    }
    const depth = await cli(["inspect", "--depth", "0", name]);
    expect(depth.stdout.toString().split("\n")[1]).toMatch(/\.\.\. 2 entries$/);
    const json = await cli(["inspect", "--json", name]);
    const lines = json.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.form)).toEqual(["fixmap", "fixstr", "nil"]);
    expect(lines[0].children[3]).toMatchObject({ offset: 12, header: "92", form: "fixarray", count: 2 });
    expect(lines[0].children[3].children[1]).toMatchObject({ header: "cb4004000000000000", value: 2.5 });
  });

  test("colours only on request or a terminal: --color, FORCE_COLOR, and never with NO_COLOR or --no-color", async () => {
    const name = file("colors.msgpack", encode("x"));
    const has = (r: Result) => r.stdout.toString().includes("\x1b[");
    expect(has(await cli(["inspect", name]))).toBe(false);
    expect(has(await cli(["inspect", "--color", name]))).toBe(true);
    expect(has(await cli(["inspect", name], undefined, { FORCE_COLOR: "1" }))).toBe(true);
    expect(has(await cli(["inspect", name], undefined, { FORCE_COLOR: "1", NO_COLOR: "1" }))).toBe(false);
    expect(has(await cli(["inspect", "--no-color", name], undefined, { FORCE_COLOR: "1" }))).toBe(false);
  });

  test("bad input: exit 1 with the error at its offset; a missing file, a directory or a bad option: exit 2", async () => {
    const cut = file("cut.msgpack", fromHex("92-01-a3-61"));
    const v = await cli(["validate", cut]);
    expect(v.code).toBe(1);
    expect(v.stdout.toString()).toBe(
      "invalid: TRUNCATED at offset 2 (0x2): Cannot decode string at offset 2: insufficient data, input is 2 byte(s) short\n  bytes at 0: 92 01 [a3] 61\n",
    );
    expect((await cli(["validate", "-q", cut])).stdout.length).toBe(0);
    expect((await cli(["validate", "-"], fromHex("c1"))).stdout.toString()).toMatch(/^invalid: INVALID_BYTE at offset 0 /);
    // from standard input, the bytes around the error come from the last chunks read
    const piped = await cli(["validate", "-"], new Uint8Array([...new Array(20).fill(0), 0xc1, 7]));
    expect(piped.stdout.toString()).toBe(
      "invalid: INVALID_BYTE at offset 20 (0x14): Cannot decode value at offset 20: unrecognized type byte 0xc1 (reserved)\n  bytes at c: 00 00 00 00 00 00 00 00 [c1] 07\n",
    );
    const ok = await cli(["validate", file("ok.msgpack", SAMPLE)]);
    expect([ok.code, ok.stdout.toString()]).toEqual([0, "valid: 3 values, 31 bytes\n"]);
    const inspected = await cli(["inspect", cut]);
    expect(inspected.code).toBe(1);
    expect(inspected.stdout.toString()).toContain("! TRUNCATED: Cannot decode string at offset 2");
    const toJson = await cli(["to-json", cut]);
    expect(toJson.code).toBe(1);
    expect(toJson.stderr).toMatch(/TRUNCATED: Cannot decode string at offset 2/);
    const badJson = await cli(["from-json", "-"], '{"a": 1}\n{"b": ');
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toMatch(/JSON text 2 is not JSON/);
    expect(badJson.stdout).toEqual(Buffer.from(encode({ a: 1 })));
    const badTag = await cli(["from-json", "-"], '{"$uint8": 300}');
    expect([badTag.code, badTag.stderr]).toEqual([1, "msgpack from-json: JSON text 1: Cannot convert JSON at $.$uint8: 300 is out of range\n"]);
    for (const command of ["inspect", "to-json", "from-json", "stats", "validate"]) {
      const missing = await cli([command, "no-such-file.msgpack"]);
      expect([missing.code, missing.stderr], command).toEqual([2, "msgpack: no-such-file.msgpack: no such file\n"]);
      const dir = await cli([command, "."]);
      expect([dir.code, dir.stderr], command).toEqual([2, "msgpack: .: is a directory, not a file\n"]);
    }
    expect(await cli(["inspect", "--nope"])).toMatchObject({ code: 2, stderr: "msgpack: unknown option --nope for inspect\n" });
    expect(await cli(["inspect", "--depth", "x"])).toMatchObject({ code: 2, stderr: "msgpack: --depth takes a whole number, not x\n" });
    expect(await cli(["frobnicate"])).toMatchObject({ code: 2 });
  });

  test("to-json and from-json round trip every vector encoding byte for byte (values JSON lacks included), through files and pipes", async () => {
    const encodings = loadVectors().filter((v) => v.decodable).flatMap((v) => v.encodings);
    const all = new Uint8Array(encodings.reduce((n, e) => n + e.length, 0));
    encodings.reduce((at, e) => (all.set(e, at), at + e.length), 0);
    const json = await cli(["to-json", file("vectors.msgpack", all)]);
    expect(json.code, json.stderr).toBe(0);
    const text = json.stdout.toString();
    expect(text.trim().split("\n").length).toBe(encodings.length);
    for (const tag of ["$uint64", "$bin", "$timestamp", "$float64", "$map", "$ext"]) expect(text).toContain(`"${tag}`);
    const back = await cli(["from-json", file("vectors.json", text)]);
    expect(back.code, back.stderr).toBe(0);
    expect(new Uint8Array(back.stdout)).toEqual(all);
    const piped = await cli(["from-json"], text);
    expect(new Uint8Array(piped.stdout)).toEqual(all);
  });

  test("stats: bytes and counts per format and per key path", async () => {
    const r = await cli(["stats", "--json", "-"], new Uint8Array([...encode([{ id: 1, tags: ["a"] }, { id: 2, tags: [] }]), ...encode("x")]));
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stdout.toString());
    expect(stats).toMatchObject({ bytes: 27, values: 2, error: null });
    expect(stats.forms.fixstr).toEqual({ count: 6, bytes: 20 });
    expect(stats.paths["$[].tags"]).toEqual({ count: 2, bytes: 4 });
    expect(stats.paths["$[].tags[]"]).toEqual({ count: 1, bytes: 2 });
    const text = await cli(["stats", "--top", "2", "-"], SAMPLE);
    expect(text.stdout.toString()).toMatch(/^31 bytes \(31 B\), 3 values\n/);
    expect(text.stdout.toString()).toContain("more paths; --top N shows more");
  });

  test("a stream of more than 4 GiB is read in constant memory, with offsets past 2^32", async () => {
    // a bin 32 of 2^32-1 zero bytes, a str, then an array cut short
    async function* huge(): AsyncGenerator<Uint8Array> {
      yield fromHex("c6-ff-ff-ff-ff");
      const zeros = new Uint8Array(1 << 20);
      for (let left = 0xffffffff; left > 0; left -= zeros.length) yield zeros.subarray(0, Math.min(left, zeros.length));
      yield fromHex("a3-61-62-63-92-01");
    }
    const r = await cli(["stats", "--json", "-"], huge);
    const stats = JSON.parse(r.stdout.toString());
    expect(r.code).toBe(1);
    expect(stats).toMatchObject({ bytes: 2 ** 32 + 10, values: 2 });
    expect(stats.forms["bin 32"]).toEqual({ count: 1, bytes: 2 ** 32 + 4 });
    expect(stats.error).toEqual({ code: "TRUNCATED", offset: 2 ** 32 + 8, message: `Cannot decode array of 2 items at offset ${2 ** 32 + 8}: insufficient data, input is 1 byte(s) short` });
    expect(r.peakKb).toBeGreaterThan(0);
    expect(r.peakKb, `peak ${r.peakKb} kB`).toBeLessThan(200 * 1024);
  }, 120_000);

  test("stats holds no more than a chunk of a large input (peak memory far below its size)", async () => {
    const records = encode(Array.from({ length: 200 }, (_, i) => ({ id: i, name: "user".repeat(50) + i, blob: new Uint8Array(2000).fill(i), tags: ["a", "b"] })));
    const total = 512e6;
    async function* large(): AsyncGenerator<Uint8Array> {
      for (let sent = 0; sent < total; sent += records.length) yield records;
    }
    const r = await cli(["stats", "--json", "-"], large);
    expect(r.code, r.stderr).toBe(0);
    const stats = JSON.parse(r.stdout.toString());
    expect(stats.bytes).toBeGreaterThanOrEqual(total);
    expect(stats.paths["$[].blob"].count).toBe(200 * stats.values);
    expect(r.peakKb).toBeGreaterThan(0);
    expect(r.peakKb, `peak ${r.peakKb} kB for ${total / 1e6} MB`).toBeLessThan(160 * 1024);
  }, 120_000);

  test("stats --records and validate --records stream too: peak memory far below the input's size", async () => {
    // msgpackr's sequential messages: the first declares the structure, the rest are an identifier and the fields
    const packr = new msgpackr.Packr({ sequential: true });
    const row = { id: 1, name: "user".repeat(50), blob: new Uint8Array(2000).fill(7), tags: ["a", "b"] };
    const first = new Uint8Array(packr.pack(row));
    const next = new Uint8Array(packr.pack(row));
    expect(next.length).toBeLessThan(first.length);
    const copies = Math.floor((1 << 20) / next.length);
    const chunk = new Uint8Array(copies * next.length);
    for (let i = 0; i < copies; i++) chunk.set(next, i * next.length);
    const total = 256e6;
    const chunks = Math.ceil(total / chunk.length);
    async function* large(): AsyncGenerator<Uint8Array> {
      yield first;
      for (let i = 0; i < chunks; i++) yield chunk;
    }
    const bytes = first.length + chunks * chunk.length;
    const values = 1 + chunks * copies;
    const stats = await cli(["stats", "--json", "--records", "-"], large);
    expect(stats.code, stats.stderr).toBe(0);
    const out = JSON.parse(stats.stdout.toString());
    expect([out.bytes, out.values, out.error]).toEqual([bytes, values, null]);
    expect(out.paths["$.blob"]).toEqual({ count: values, bytes: values * 2003 });
    expect(out.forms.record).toEqual({ count: values, bytes: values - 1 });
    expect(stats.peakKb).toBeGreaterThan(0);
    expect(stats.peakKb, `peak ${stats.peakKb} kB for ${bytes / 1e6} MB`).toBeLessThan(160 * 1024);
    const validate = await cli(["validate", "--records", "-"], large);
    expect([validate.code, validate.stdout.toString()]).toEqual([0, `valid: ${values} values, ${bytes} bytes\n`]);
    expect(validate.peakKb, `peak ${validate.peakKb} kB for ${bytes / 1e6} MB`).toBeLessThan(160 * 1024);
  }, 240_000);

  test("inspect --records and to-json --records hold one value at a time: peak memory far below the input's size", async () => {
    // sequential messages of 100 kB: the first declares the structure, the rest only use it
    const packr = new msgpackr.Packr({ sequential: true });
    const row = { id: 1, blob: new Uint8Array(100_000).fill(7) };
    const first = new Uint8Array(packr.pack(row));
    const next = new Uint8Array(packr.pack(row));
    expect(next.length).toBeLessThan(first.length);
    const chunk = new Uint8Array(10 * next.length);
    for (let i = 0; i < 10; i++) chunk.set(next, i * next.length);
    const chunks = Math.ceil(192e6 / chunk.length);
    async function* large(): AsyncGenerator<Uint8Array> {
      yield first;
      for (let i = 0; i < chunks; i++) yield chunk;
    }
    const bytes = first.length + chunks * chunk.length;
    const values = 1 + 10 * chunks;
    const json = await cli(["to-json", "--records", "-"], large);
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stdout.toString().trimEnd().split("\n");
    expect(lines.length).toBe(values);
    // every value, the first (declaration and record) and the ones that only name the structure, as the plain map
    const plain = `{"id":1,"blob":{"$bin":"${Buffer.from(row.blob).toString("base64")}"}}`;
    expect(new Set(lines)).toEqual(new Set([plain]));
    expect(json.peakKb, `peak ${json.peakKb} kB for ${bytes / 1e6} MB`).toBeGreaterThan(0);
    expect(json.peakKb, `peak ${json.peakKb} kB for ${bytes / 1e6} MB`).toBeLessThan(160 * 1024);
    const text = await cli(["inspect", "--records", "--no-color", "-"], large);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.toString().match(/^[0-9a-f]{8} .*record 0x40 \(2 fields\)$/gm)?.length).toBe(values);
    expect(text.peakKb, `peak ${text.peakKb} kB for ${bytes / 1e6} MB`).toBeLessThan(160 * 1024);
  }, 240_000);
});

/** Runs the command under `node --max-old-space-size=<heapMb>`. */
function cliHeap(heapMb: number, args: string[], input?: Uint8Array | string | (() => AsyncGenerator<Uint8Array>)): Promise<Result> {
  return cli([`--max-old-space-size=${heapMb}`, BIN, ...args], input, {}, true);
}

describe("msgpack against hostile input", () => {
  const all = CONTROLS.join("");
  const hostile = {
    [all]: all,
    ["key\u001b]52;c;aGk=\u0007"]: "\u001b[2J\u009b31m\u202eevil",
    list: CONTROLS,
    keys: Object.fromEntries(CONTROLS.map((c, i) => [`${c}${i}`, `${i}${c}`])),
  };

  test("every command, fed strings, keys and JSON holding every C0, DEL, C1 and bidi control, prints none of them raw", async () => {
    const bytes = encode(hostile);
    const name = file("hostile.msgpack", bytes);
    const broken = file("hostile-cut.msgpack", new Uint8Array([...bytes, ...encode(all).subarray(0, 20)]));
    // JSON holding the controls: escaped (C0 must be), raw (DEL, C1, bidi may be); and JSON that is not JSON, with them raw
    const json = file("hostile.json", JSON.stringify(hostile) + "\n" + JSON.stringify({ raw: CONTROLS.slice(0x20).join("") }) + "\n");
    const badJson = file("bad.json", `{"a": 1}\n{"${all}": ${all}}\n`);
    const badTag = file("bad-tag.json", `{"${CONTROLS.slice(0x20).join("")}": {"$${CONTROLS.slice(0x20).join("")}": 1}}\n`);
    const runs: [string[], Result][] = [];
    for (const args of [
      ["inspect", name],
      ["inspect", "--color", name],
      ["inspect", "--json", name],
      ["inspect", "--records", broken],
      ["to-json", name],
      ["to-json", broken],
      ["stats", name],
      ["stats", "--color", broken],
      ["stats", "--json", broken],
      ["validate", broken],
      ["validate", "--color", broken],
      ["from-json", badJson],
      ["from-json", badTag],
    ]) {
      runs.push([args, await cli(args)]);
    }
    const back = await cli(["from-json", json]);
    expect(back.code, back.stderr).toBe(0);
    expect(rawControls(back.stderr)).toEqual([]);
    for (const [args, r] of runs) {
      const colors = args.includes("--color");
      // from-json writes MessagePack, bytes that hold the strings as they are (and never to a terminal)
      if (args[0] !== "from-json") expect(rawControls(r.stdout.toString(), { lines: true, colors }), args.join(" ")).toEqual([]);
      expect(rawControls(r.stderr, { lines: true }), args.join(" ")).toEqual([]);
    }
    // the controls are shown escaped, and still read back
    const toJson = runs.find(([a]) => a.join(" ") === `to-json ${name}`)![1];
    expect(toJson.stdout.toString()).toContain("\\u001b]52;c;aGk=\\u0007");
    expect(toJson.stdout.toString()).toContain("\\u009b");
    const again = await cli(["from-json"], toJson.stdout);
    expect(new Uint8Array(again.stdout)).toEqual(bytes);
    const fromBad = runs.find(([a]) => a[1] === badJson)![1];
    expect([fromBad.code, fromBad.stderr]).toEqual([1, expect.stringContaining("msgpack from-json: JSON text 2 is not JSON")]);
    expect(runs.find(([a]) => a[1] === badTag)![1].stderr).toContain("\\u007f");
  });

  test("from-json on endless zero bytes: exit 1 at once with its own error (they are MessagePack), in bounded memory", async () => {
    // 4 GiB of zeros, made as they are read: the command stops at the first text
    async function* zeros(): AsyncGenerator<Uint8Array> {
      const chunk = new Uint8Array(1 << 20);
      for (let i = 0; i < 4096; i++) yield chunk;
    }
    const zero = await cliHeap(64, ["from-json"], zeros);
    expect([zero.code, zero.stderr]).toEqual([
      1,
      'msgpack from-json: JSON text 1 is not JSON: Unexpected token \'\\u0000\', "\\u0000" is not valid JSON; the input looks like MessagePack, not JSON: "msgpack to-json" converts MessagePack to JSON\n',
    ]);
    // a string that never ends: refused at the limit the heap allows, not held until the heap is gone
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode('["');
      const x = new Uint8Array(1 << 20).fill(0x78);
      for (let i = 0; i < 256; i++) yield x;
    }
    const open = await cliHeap(64, ["from-json"], endless);
    expect(open.code, open.stderr).toBe(1);
    expect(open.stderr).toMatch(/^msgpack from-json: JSON text 1 is longer than \d+ characters, more than from-json holds/);
    expect(open.peakKb, `peak ${open.peakKb} kB`).toBeLessThan(400 * 1024);
  }, 120_000);

  test("from-json: nesting past 10,000 levels is its own error, not a stack overflow", async () => {
    const deep = await cli(["from-json"], "[".repeat(50_000) + "]".repeat(50_000));
    expect(deep.code).toBe(1);
    expect(deep.stderr).toMatch(/^msgpack from-json: JSON text 1: Cannot convert JSON at \$(\[0\]){20}\(\d+ levels\)(\[0\]){20}: nested too deep \(more than 10000 levels\)\n$/);
    const ok = await cli(["from-json"], "[".repeat(10_000) + "]".repeat(10_000));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.length).toBe(10_000);
  });

  test("to-json writes a large value as it walks it: no tree, the bytes of one value in a small heap", async () => {
    // 24 MB in one value of small maps: its tree was 30-50x that, past this heap
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ["a", "b"], score: i / 7, ok: i % 3 === 0, bin: new Uint8Array([i & 255]) }));
    const bytes = encode(rows);
    expect(bytes.length).toBeGreaterThan(11e6);
    const r = await cliHeap(64, ["to-json", file("large.msgpack", bytes)]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.toString();
    expect(JSON.parse(lines).length).toBe(rows.length);
    const back = await cli(["from-json"], r.stdout);
    expect(Buffer.compare(back.stdout, Buffer.from(bytes))).toBe(0);
    expect(r.peakKb, `peak ${r.peakKb} kB for ${bytes.length} B`).toBeLessThan(250 * 1024);
  }, 120_000);

  test("inspect shows a window of a value too large for its heap, and never aborts: a 1 MB array of zeros in a 256 MB heap", async () => {
    // a tree node per byte used to take 500-630 bytes of heap: this value aborted the process (exit 134)
    const bytes = new Uint8Array(5 + (1 << 20));
    bytes.set([0xdd, 0x00, 0x10, 0x00, 0x00]); // array 32 of 1,048,576 items, all positive fixint 0
    const name = file("zeros-array.msgpack", bytes);
    const r = await cliHeap(256, ["inspect", name]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.toString().split("\n");
    // the array and its first 9,999 items (10,000 nodes), then a count of the rest at the offset where they start
    expect(lines.length).toBe(1 + 9_999 + 1 + 1);
    expect(lines[0]).toBe("00000000  dd 00 10 00 00              array 32 (1048576 items)");
    expect(lines[1]).toBe("00000005  00                            positive fixint 0");
    expect(lines[9_999]).toBe("00002713  00                            positive fixint 0");
    expect(lines[10_000]).toBe("00002714                                ... 1038577 more items");
    expect(r.stderr).toMatch(/^msgpack inspect: the value at offset 0 has more than 10000 nodes: the first 10000 are shown \(--nodes \d+ shows more\), the rest counted; "msgpack to-json" prints all of it\n$/);
    expect(r.peakKb).toBeGreaterThan(0);
    expect(r.peakKb, `peak ${r.peakKb} kB`).toBeLessThan(200 * 1024);
    // --depth 0 counts every item, the ones outside the window too
    const depth = await cliHeap(256, ["inspect", "--depth", "0", name]);
    expect([depth.code, depth.stdout.toString()]).toEqual([0, "00000000  dd 00 10 00 00              array 32 (1048576 items)\n00000005                                ... 1048576 items\n"]);
    // a window larger than a sixteenth of the heap (at 1 kB a node) is refused before anything is read
    const wide = await cliHeap(256, ["inspect", "--nodes", "1000000", name]);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(/^msgpack: --nodes takes 1 to \d+ here \(a node takes about 1 kB of this process's heap; node --max-old-space-size raises it\), not 1000000\n$/);
    // the window is the nodes kept: errors after it are still found, at their offsets
    const cut = file("zeros-cut.msgpack", bytes.subarray(0, bytes.length - 1));
    const broken = await cliHeap(256, ["inspect", cut]);
    expect(broken.code).toBe(1);
    expect(broken.stdout.toString()).toContain("! TRUNCATED: Cannot decode array of 1048576 items at offset 0: insufficient data");
  }, 120_000);

  test("validate --records and stats --records keep constant memory for a declaration of 10 million fields", async () => {
    const n = 10_000_000;
    const b = wideDeclaration(n);
    const name = file("fields.msgpack", b);
    const validate = await cliHeap(64, ["validate", "--records", name]);
    expect([validate.code, validate.stdout.toString()]).toEqual([0, `valid: 1 value, ${b.length} bytes\n`]);
    expect(validate.peakKb, `peak ${validate.peakKb} kB`).toBeLessThan(150 * 1024);
    const stats = await cliHeap(64, ["stats", "--json", "--records", name]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout.toString()).paths["(other paths)"]).toEqual({ count: n - 1024, bytes: n - 1024 });
    expect(stats.peakKb, `peak ${stats.peakKb} kB`).toBeLessThan(150 * 1024);
  }, 120_000);
});

describe("msgpack: version, help, colours, input that is not MessagePack, progress", () => {
  test("--version and -V print the package's version", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await cli([flag]);
      expect([r.code, r.stdout.toString()]).toEqual([0, `${readJson("package.json").version}\n`]);
    }
  });

  test("--help shows an example for every command", async () => {
    const main = (await cli(["--help"])).stdout.toString();
    for (const command of ["inspect", "to-json", "from-json", "stats", "validate"]) {
      expect(main).toMatch(new RegExp(`^  msgpack ${command} .+$`, "m"));
      const help = (await cli([command, "--help"])).stdout.toString();
      expect(help, command).toMatch(new RegExp(`\\nExample:\\n  msgpack ${command} .+\\n$`));
    }
  });

  test("every command that reads MessagePack names text, JSON, HTML and compressed input as decode() does, and fails on it", async () => {
    const { gzipSync } = await import("node:zlib");
    const inputs: [string, Uint8Array | string][] = [
      ["JSON text", '{"a": 1}\n'],
      ["HTML or XML text", "<!doctype html><p>hi</p>\n"],
      ["text", "just some words, no MessagePack at all\n"],
      ["gzip data", gzipSync(encode({ a: 1 }))],
    ];
    for (const [looks, input] of inputs) {
      const name = file("wrong.bin", input);
      const v = await cli(["validate", name]);
      expect([v.code, v.stdout.toString()], looks).toEqual([1, `invalid: the input looks like ${looks}, not MessagePack\n`]);
      const convert = looks === "JSON text" ? '; "msgpack from-json" converts JSON to MessagePack' : "";
      for (const args of [["inspect", name], ["inspect", "--json", name], ["to-json", name], ["stats", name], ["stats", "--json", name], ["to-json"]]) {
        const r = await cli(args, args.length === 1 ? input : undefined);
        expect([r.code, r.stdout.toString(), r.stderr], `${args.join(" ")}: ${looks}`).toEqual([1, "", `msgpack ${args[0]}: invalid: the input looks like ${looks}, not MessagePack${convert}\n`]);
      }
    }
    // MessagePack stays valid, and msgpackr's records get a hint without --records
    expect((await cli(["validate", file("ok.msgpack", SAMPLE)])).code).toBe(0);
    const packr = file("packr.msgpack", new Uint8Array(new msgpackr.Packr().pack({ a: 1, b: [2] })));
    const hint = await cli(["validate", packr]);
    expect([hint.code, hint.stdout.toString()]).toEqual([0, expect.stringContaining("note: it looks like msgpackr records")]);
    expect((await cli(["validate", "--records", packr])).stdout.toString()).not.toContain("note");
    for (const command of ["inspect", "to-json", "stats"]) expect((await cli([command, packr])).code, command).toBe(0);
  });

  test("from-json names MessagePack and compressed input, and suggests to-json for MessagePack", async () => {
    const { gzipSync } = await import("node:zlib");
    const msgpack = await cli(["from-json", file("sample.msgpack", SAMPLE)]);
    expect([msgpack.code, msgpack.stdout.length]).toEqual([1, 0]);
    expect(msgpack.stderr).toMatch(/^msgpack from-json: JSON text 1 is not JSON: .*; the input looks like MessagePack, not JSON: "msgpack to-json" converts MessagePack to JSON\n$/);
    const gzip = await cli(["from-json"], gzipSync('{"a": 1}'));
    expect([gzip.code, gzip.stderr]).toEqual([1, expect.stringMatching(/; the input looks like gzip data, not JSON\n$/)]);
    // JSON that is wrong later, or text that is not JSON, gets no such hint
    const text = await cli(["from-json"], "hello");
    expect([text.code, text.stderr]).toEqual([1, expect.not.stringContaining("looks like")]);
  });

  test("to-json and from-json against outputs written out by hand", async () => {
    // each line: the bytes (hex), the JSON to-json writes for them (docs/inspect.md's tags)
    const cases: [string, string][] = [
      ["cf-ff-ff-ff-ff-ff-ff-ff-ff", '{"$uint64":"18446744073709551615"}'],
      ["c4-02-01-02", '{"$bin":"AQI="}'],
      ["d6-ff-00-00-00-01", '{"$timestamp":"1970-01-01T00:00:01Z"}'],
      ["ca-3f-c0-00-00", '{"$float32":1.5}'],
      ["cb-80-00-00-00-00-00-00-00", '{"$float64":"-0"}'],
      ["81-01-a1-78", '{"$map":[[1,"x"]]}'],
      ["d4-05-07", '{"$ext":[5,"Bw=="]}'],
      ["cc-05", '{"$uint8":5}'],
      ["92-c0-c3", "[null,true]"],
      ["82-a1-61-01-a1-62-93-01-ff-a0", '{"a":1,"b":[1,-1,""]}'],
    ];
    const bytes = new Uint8Array(cases.flatMap(([hex]) => [...fromHex(hex)]));
    const json = await cli(["to-json", file("by-hand.msgpack", bytes)]);
    expect([json.code, json.stdout.toString()]).toEqual([0, cases.map(([, text]) => text + "\n").join("")]);
    // from-json: plain JSON takes encode()'s forms (safe integers as ints, other numbers as float 64)
    const back = await cli(["from-json"], '{"a": [1, -1, 1.5]}\n{"$uint16": 1}\n"\u00e9"');
    expect([back.code, Buffer.from(back.stdout).toString("hex")]).toEqual([0, "81a161" + "9301ffcb3ff8000000000000" + "cd0001" + "a2c3a9"]);
  });

  test("stats and validate colour as inspect does: only on request or a terminal, never with NO_COLOR", async () => {
    const name = file("colors2.msgpack", SAMPLE);
    const cut = file("colors-cut.msgpack", fromHex("92-01-a3-61"));
    const has = (r: Result) => r.stdout.toString().includes("\x1b[");
    for (const args of [["stats", name], ["validate", cut]]) {
      expect(has(await cli(args)), args.join(" ")).toBe(false);
      expect(has(await cli([args[0]!, "--color", args[1]!])), args.join(" ")).toBe(true);
      expect(has(await cli(args, undefined, { FORCE_COLOR: "1" })), args.join(" ")).toBe(true);
      expect(has(await cli(args, undefined, { FORCE_COLOR: "1", NO_COLOR: "1" })), args.join(" ")).toBe(false);
    }
    expect((await cli(["stats", "--color", name])).stdout.toString()).toContain("\x1b[33mfixstr");
  });

  /** Runs a shell command on a terminal (`script`), killed after `timeout` ms; returns what the terminal showed. */
  function onTerminal(command: string, timeout = 60_000): Promise<string> {
    return new Promise((resolve) => {
      const child = spawn("/usr/bin/script", ["-qec", command, "/dev/null"], { env: { PATH: process.env.PATH } });
      let out = "";
      const timer = setTimeout(() => child.kill(), timeout);
      child.stdout.on("data", (d: Buffer) => (out += d));
      child.on("close", () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
  }

  test.skipIf(!SCRIPT)("from-json does not write MessagePack to a terminal (needs util-linux `script`, skipped without it)", async () => {
    const r = await onTerminal(`${process.execPath} ${BIN} from-json ${join(work, file("one.json", "[1]"))}; echo "exit $?"`);
    expect(r).toContain("msgpack: not writing MessagePack (bytes, not text) to a terminal");
    expect(r).toContain("exit 2");
  });

  test.skipIf(!SCRIPT)("a command with no file, on a terminal, prints its usage instead of waiting (needs util-linux `script`)", async () => {
    for (const command of ["inspect", "to-json", "from-json", "stats", "validate"]) {
      // killed after 20 s: a command that waits for the terminal's input shows no usage and no exit code
      const r = await onTerminal(`${process.execPath} ${BIN} ${command} > /dev/null; echo "exit $?"`, 20_000);
      expect(r, command).toContain(`msgpack ${command}: no input: name a file, or pipe the input in`);
      expect(r, command).toContain("exit 2");
      const usage = await onTerminal(`${process.execPath} ${BIN} ${command} 2> /dev/null`, 20_000);
      expect(usage, command).toMatch(new RegExp(`^Usage: msgpack ${command} `));
    }
  }, 240_000);

  test.skipIf(!SCRIPT)("on a terminal, a progress line shows the bytes and values read, then is cleared (needs util-linux `script`)", async () => {
    // 1 MiB of zeros, a pause of a second (the line is drawn at most every 250 ms), another MiB
    const writer = join(work, "slow-writer.cjs");
    writeFileSync(writer, `const z = Buffer.alloc(1 << 20); process.stdout.write(z, () => setTimeout(() => process.stdout.write(z), 1000));\n`);
    const out = await onTerminal(`${process.execPath} ${writer} | ${process.execPath} ${BIN} validate`);
    expect(out).toMatch(/\rread \d+\.\d MB, \d+ values/);
    expect(out).toMatch(/\r +\r/); // cleared before the verdict
    expect(out).toContain("valid: 2097152 values, 2097152 bytes");
  }, 120_000);

  test("the progress line: the share read and the time left when the input's size is known", () => {
    expect(progress(128e6, 256e6, 5, 2000)).toBe("read 128.0 MB of 256.0 MB (50%), 2 s left, 5 values");
    expect(progress(64e6, 256e6, 1, 10_000)).toBe("read 64.0 MB of 256.0 MB (25%), 30 s left, 1 value");
    // under a second read: no time left yet
    expect(progress(1, 256e6, 1, 999)).toBe("read 1 B of 256.0 MB (0%), 1 value");
    // standard input from a pipe: no size
    expect(progress(10e6, null, 3, 5000)).toBe("read 10.0 MB, 3 values");
    expect([duration(42), duration(200), duration(3725)]).toEqual(["42 s", "3 min 20 s", "1 h 02 min"]);
  });
});
