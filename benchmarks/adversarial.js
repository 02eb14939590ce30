// Adversarial benchmark: how long crafted inputs take to decode against a
// random input of the same size and shape, per byte. The claim it measures:
// no crafted input of up to 1 MiB costs more than 10x a random one, under
// every decode entry and option (useMap with number keys excepted: it keeps
// them as Map keys, which the README warns are open to hash flooding).
// test/adversarial.test.ts checks what the decoder does with the same
// inputs (the values and errors); durations are measured here, where the
// machine's load is part of the reading, not asserted in a test.
//
//   node benchmarks/adversarial.js [--quick] [--rounds=N] [FILTER...]
//   bun benchmarks/adversarial.js ...      deno run --allow-read benchmarks/adversarial.js ...
//
// Method
// - Map keys computed to collide in V8's number hashes (ComputeLongHash,
//   ComputeUnseededHash: test/_support/number-hash.mjs), index-like string
//   keys sharing their low bits, records whose keys fill one slot of the key
//   cache; each is timed against its twin: the same shape with random keys.
//   Deep nesting, 500k one-byte strings and headers declaring 2^32-1 items
//   are timed against random records of about the same size.
// - Each round times the crafted input and its twin in turn (the order
//   swapped every round), each in batches of at least 20 ms; the ratio is the
//   median crafted time per byte over the median twin time per byte.
//
// Dependency-free: runs as-is under node, bun and deno (on the built dist/).

import { consume, formatPlainTable, parseCli, printRuntimeInfo } from "./lib/round-robin.js";
import { recordsOfSize, rng, int } from "./fixtures.js";
import { collidingFloats, collidingUint32, float64Keys, mapOfKeys, uint32Keys } from "../test/_support/number-hash.mjs";

const args = parseCli({
  script: "adversarial.js",
  summary:
    "Decode time per byte of crafted inputs (map keys colliding in V8's number hashes or in the key cache, deep nesting, " +
    "one-byte strings, headers declaring 2^32-1 items) over that of a random input of the same size and shape, under " +
    "decode(), useMap, int64: bigint and decodeAsync in 64 KiB chunks. Above 10x is flagged.",
  fullRun: "1-3 minutes on 2 cores (estimated from the --quick run's cases at ten times the size)",
  quickRun: "about 8 s (measured on 2 cores at load average 14, shared with other jobs)",
  deno: "--allow-read",
  options: {
    quick: "a tenth of the sizes, two rounds (what the tests run)",
    "rounds=N": "rounds per case and entry (default 5, --quick 2)",
    json: "also print the rows as one JSON line",
  },
  filter: "regular expressions: only cases whose name matches one",
  examples: ["node benchmarks/adversarial.js", "node benchmarks/adversarial.js --quick 'keys'"],
});
const QUICK = args.quick;
const ROUNDS = Number(args.options.rounds ?? (QUICK ? 2 : 5));
const { decode, encode, encodedSize } = await import(new URL("../dist/index.js", import.meta.url).href);
const { decodeAsync } = await import(new URL("../dist/streams.js", import.meta.url).href);

const MB = QUICK ? 1 << 17 : 1 << 20;
const SCALE = QUICK ? 0.1 : 1;

// ---- inputs ----

/** fixstr keys, all of one length. @param {string[]} keys */
const stringKeys = (keys) =>
  mapOfKeys(keys.length, 1 + keys[0].length, (dv, at, i) => {
    dv.setUint8(at, 0xa0 | keys[i].length);
    for (let j = 0; j < keys[i].length; j++) dv.setUint8(at + 1 + j, keys[i].charCodeAt(j));
  });

/** `n` distinct values from `draw`. @template T @param {number} n @param {() => T} draw */
function distinct(n, draw) {
  const seen = new Set();
  while (seen.size < n) seen.add(draw());
  return [...seen];
}

/** 16-letter keys with one h = h * 31 + c: (x, y) and (x + 1, y - 31) at each pair of positions hash alike. @param {number} n */
function sameSlotKeys(n) {
  const out = [];
  for (let i = 0; out.length < n && i < 6561; i++) {
    let s = "";
    for (let p = 0, k = i; p < 8; p++, k = Math.floor(k / 3)) s += String.fromCharCode(0x41 + (k % 3), 0x7e - 31 * (k % 3));
    out.push(s);
  }
  return out;
}

/** An array 32 of `count` maps of `per` keys cycling through `keys`. @param {string[]} keys @param {number} count @param {number} per */
function records(keys, count, per) {
  const len = keys[0].length;
  const out = new Uint8Array(5 + count * (1 + per * (2 + len)));
  out[0] = 0xdd;
  new DataView(out.buffer).setUint32(1, count);
  let at = 5;
  for (let i = 0, k = 0; i < count; i++) {
    out[at++] = 0x80 | per;
    for (let j = 0; j < per; j++, k++) {
      const key = keys[k % keys.length];
      out[at++] = 0xa0 | len;
      for (let c = 0; c < len; c++) out[at++] = key.charCodeAt(c);
      out[at++] = 0xc0;
    }
  }
  return out;
}

/** `unit` repeated over `size` bytes, closed with nils. @param {number[]} unit @param {number} size */
function repeated(unit, size) {
  const out = new Uint8Array(size).fill(0xc0);
  for (let at = 0; at + unit.length <= size - 1; at += unit.length) out.set(unit, at);
  return out;
}

const r = rng(46);
const n = (/** @type {number} */ x) => Math.round(x * SCALE);
/** @type {{ name: string, crafted: () => Uint8Array, twin?: () => Uint8Array, numberKeys?: boolean }[]} */
const CASES = [
  {
    name: "float64 keys colliding in V8's number hash",
    crafted: () => float64Keys(collidingFloats(n(100_000))),
    twin: () => float64Keys(distinct(n(100_000), () => (r() - 0.5) * 2 ** int(r, -60, 60))),
    numberKeys: true,
  },
  {
    name: "uint32 keys colliding in V8's integer hash",
    crafted: () => uint32Keys(collidingUint32(n(65_536))),
    twin: () => uint32Keys(distinct(n(65_536), () => int(r, 0, 2 ** 32 - 1))),
    numberKeys: true,
  },
  {
    name: "index-like string keys sharing their low bits",
    crafted: () => stringKeys(Array.from({ length: n(50_000) }, (_, i) => String(1_000_000 + i * 128))),
    twin: () => stringKeys(distinct(n(50_000), () => String(int(r, 1_000_000, 9_999_999)))),
  },
  {
    name: "records whose keys all fall in one key-cache slot",
    crafted: () => records(sameSlotKeys(6561), n(1000), 15),
    twin: () => records(distinct(6561, () => Array.from({ length: 16 }, () => String.fromCharCode(int(r, 0x41, 0x7e))).join("")), n(1000), 15),
  },
  { name: "nested arrays", crafted: () => repeated([0x91], MB) },
  { name: "nested maps", crafted: () => repeated([0x81, 0xa0], MB) },
  {
    name: "one-byte strings",
    crafted: () => {
      const count = (MB - 5) >> 1;
      const b = new Uint8Array(5 + 2 * count);
      b[0] = 0xdd;
      new DataView(b.buffer).setUint32(1, count);
      for (let i = 0; i < count; i++) (b[5 + 2 * i] = 0xa1), (b[6 + 2 * i] = 0x61 + (i % 26));
      return b;
    },
  },
  {
    name: "array 32 declaring 2^32-1 items, then nils",
    crafted: () => {
      const b = new Uint8Array(MB).fill(0xc0);
      b.set([0xdd, 0xff, 0xff, 0xff, 0xff]);
      return b;
    },
  },
];

/** Random records of about `MB` bytes: the twin of the inputs that have no shape of their own. */
const GENERAL = encode(recordsOfSize(MB, encodedSize));

async function* chunks(/** @type {Uint8Array} */ b) {
  for (let at = 0; at < b.length; at += 64 * 1024) yield b.subarray(at, at + 64 * 1024);
}

/** @type {{ name: string, run: (b: Uint8Array) => unknown, useMap?: boolean }[]} */
const ENTRIES = [
  { name: "decode()", run: (b) => decode(b) },
  { name: "useMap", run: (b) => decode(b, { useMap: true }), useMap: true },
  { name: "int64: bigint", run: (b) => decode(b, { int64: "bigint" }) },
  { name: "decodeAsync()", run: (b) => decodeAsync(chunks(b)) },
];

/** Milliseconds per run of `run(bytes)` (errors are part of the run), in batches of at least 20 ms. @param {(b: Uint8Array) => unknown} run @param {Uint8Array} bytes */
async function timeRuns(run, bytes) {
  let runs = 0;
  const t0 = performance.now();
  let t = 0;
  do {
    try {
      consume(await run(bytes));
    } catch (e) {
      consume(e);
    }
    runs++;
    t = performance.now() - t0;
  } while (t < 20);
  return t / runs;
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

printRuntimeInfo("adversarial inputs: decode time per byte over a random input's (above 10x is flagged)");
console.log("");
/** @type {{ case: string, entry: string, bytes: number, crafted: number, random: number, ratio: number }[]} */
const rows = [];
for (const c of CASES) {
  if (args.filter && !args.filter.test(c.name)) continue;
  const crafted = c.crafted();
  const twin = c.twin?.() ?? GENERAL;
  for (const entry of ENTRIES) {
    if (c.numberKeys && entry.useMap) continue; // by design: see the README's useMap warning
    /** @type {number[]} */
    const tc = [];
    /** @type {number[]} */
    const tr = [];
    await timeRuns(entry.run, crafted); // warm-up
    await timeRuns(entry.run, twin);
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) (tc.push(await timeRuns(entry.run, crafted)), tr.push(await timeRuns(entry.run, twin)));
      else (tr.push(await timeRuns(entry.run, twin)), tc.push(await timeRuns(entry.run, crafted)));
    }
    const perByteCrafted = median(tc) / crafted.length;
    const perByteRandom = median(tr) / twin.length;
    rows.push({ case: c.name, entry: entry.name, bytes: crafted.length, crafted: median(tc), random: median(tr) * (crafted.length / twin.length), ratio: perByteCrafted / perByteRandom });
  }
}
console.log(
  formatPlainTable(
    rows.map((x) => ({
      case: x.case,
      entry: x.entry,
      bytes: String(x.bytes),
      "crafted ms": x.crafted.toFixed(2),
      "random ms (same size)": x.random.toFixed(2),
      "ratio per byte": `${x.ratio.toFixed(2)}x${x.ratio > 10 ? "  OVER 10x" : ""}`,
    })),
  ),
);
const over = rows.filter((x) => x.ratio > 10);
console.log(`\n${over.length === 0 ? "every crafted input within 10x" : `${over.length} over 10x`} of a random input per byte (${rows.length} case x entry pairs)`);
if (args.json) console.log(JSON.stringify({ rows }));
