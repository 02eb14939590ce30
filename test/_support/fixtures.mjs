// Fixtures shared by the tests and the benchmarks: the seeded PRNG (with
// `Random`, its integer, pick and bytes helpers) and the reader of the
// msgpack vector format. Plain JavaScript with no imports and
// no I/O, so it runs as-is under node, bun, deno and in the browser test
// (test/browser.test.ts serves it beside test/runtime/checks.mjs); the
// benchmarks import it by relative path. Types: fixtures.d.mts.
//
// Vector files use the msgpack-test-suite layout: `{ "group": [entry, ...] }`
// or `[entry, ...]`, where an entry is `{ <kind>: value, msgpack: ["c0", ...] }`
// and each msgpack string is hex bytes joined by "-". Every listed encoding
// must decode to the value, and `encode(value)` must give one of the listed
// encodings. Kinds (from the suite's README and src/*.yaml):
//   nil, bool, number, string, array, map  JSON values
//   special: "-0" | "NaN" | "Infinity" | "-Infinity"  (test/vectors only)
//   binary: "00-ff"                         bytes as hex
//   bignum: "18446744073709551615"          64-bit integer as a decimal string
//                                           (JSON cannot hold it); when
//                                           `number` is also given, it is the
//                                           same value and safe as a double
//   timestamp: [seconds, nanoseconds]       decodes to a Date: the millisecond
//                                           that holds the instant (floor)
//   ext: [type, "hex"]                      decodes to an ExtData
// An entry may also carry `"decodeOnly": true` (decode checks only) or
// `"encodeOnly": true`, and `"description"`.

/**
 * mulberry32: a small, fast, seedable PRNG. Returns a function giving floats
 * in [0, 1); the same seed gives the same sequence on every runtime, so a
 * printed seed replays a failure (the fuzz and property tests print theirs).
 * @param {number} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Draws from {@link mulberry32}: the generator the property tests, the fuzz
 * tests and the runtime checks build their values with. The same seed gives
 * the same draws everywhere; `seed` is kept for failure messages.
 */
export class Random {
  /** @param {number} seed */
  constructor(seed) {
    /** @readonly */
    this.seed = seed;
    /** A float in [0, 1). @readonly */
    this.next = mulberry32(seed);
  }
  /** An integer in [lo, hi]. @param {number} lo @param {number} hi @returns {number} */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** An integer in [0, n). @param {number} n @returns {number} */
  below(n) {
    return Math.floor(this.next() * n);
  }
  /** One item of a non-empty list. @template T @param {readonly T[]} items @returns {T} */
  pick(items) {
    return items[this.below(items.length)];
  }
  /** True with probability `p`. @param {number} [p] @returns {boolean} */
  bool(p = 0.5) {
    return this.next() < p;
  }
  /** `n` random bytes. @param {number} n @returns {Uint8Array} */
  bytes(n) {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.below(256);
    return out;
  }
}

/**
 * Bytes from hex pairs joined by "-" ("c4-01-ff"; "" is no bytes), as the
 * vector files write them. Throws on anything else.
 * @param {string} hex
 * @returns {Uint8Array}
 */
export function hexToBytes(hex) {
  if (hex === "") return new Uint8Array(0);
  return Uint8Array.from(hex.split("-"), (h) => {
    if (!/^[0-9a-fA-F]{2}$/.test(h)) throw new Error(`Bad hex byte "${h}" in "${hex}"`);
    return parseInt(h, 16);
  });
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/**
 * Bytes as lowercase hex pairs joined by "-", the vector files' form.
 * @param {ArrayLike<number>} bytes
 * @returns {string}
 */
export function bytesToHex(bytes) {
  // a table and a preallocated array: the tests turn results of up to megabytes into hex
  const parts = new Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) parts[i] = HEX_PAIRS[bytes[i]] ?? bytes[i].toString(16).padStart(2, "0");
  return parts.join("-");
}

const KINDS = ["nil", "bool", "binary", "number", "bignum", "special", "string", "array", "map", "timestamp", "ext"];
const SPECIAL = { "-0": -0, NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };
const META = new Set(["msgpack", "decodeOnly", "encodeOnly", "description"]);

/**
 * What decoding an entry must give (`expected`) and what to encode (`input`,
 * undefined when JavaScript cannot build the value exactly, e.g. a
 * sub-millisecond timestamp).
 */
function interpret(entry, where, ExtData) {
  const kinds = Object.keys(entry).filter((k) => !META.has(k));
  for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`${where}: unknown vector kind "${k}" (known: ${KINDS.join(", ")})`);
  if (!Array.isArray(entry.msgpack) || entry.msgpack.length === 0) throw new Error(`${where}: no msgpack encodings listed`);
  if ("bignum" in entry) {
    const big = BigInt(entry.bignum);
    const safe = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER);
    if ("number" in entry && (!safe || entry.number !== Number(big))) throw new Error(`${where}: number and bignum disagree`);
    // Decoding with the default int64 "auto" gives a number when it is safe.
    return { expected: safe ? Number(big) : big, input: safe ? Number(big) : big, bigint: big };
  }
  if ("special" in entry) {
    if (!(entry.special in SPECIAL)) throw new Error(`${where}: unknown special "${entry.special}"`);
    return { expected: SPECIAL[entry.special], input: SPECIAL[entry.special] };
  }
  if ("nil" in entry) return { expected: null, input: null };
  if ("bool" in entry) return { expected: entry.bool, input: entry.bool };
  if ("number" in entry) return { expected: entry.number, input: entry.number };
  if ("string" in entry) return { expected: entry.string, input: entry.string };
  if ("array" in entry) return { expected: entry.array, input: entry.array };
  if ("map" in entry) return { expected: entry.map, input: entry.map };
  if ("binary" in entry) {
    const bytes = hexToBytes(entry.binary);
    return { expected: bytes, input: bytes };
  }
  if ("timestamp" in entry) {
    const [sec, nsec] = entry.timestamp;
    // A Date holds milliseconds: expect the millisecond that contains the
    // instant (floor, also for negative times), computed exactly.
    const ns = BigInt(sec) * 1_000_000_000n + BigInt(nsec);
    let ms = ns / 1_000_000n;
    if (ns < 0n && ms * 1_000_000n !== ns) ms -= 1n;
    return {
      expected: new Date(Number(ms)),
      input: nsec % 1_000_000 === 0 ? new Date(sec * 1000 + nsec / 1_000_000) : undefined,
    };
  }
  if ("ext" in entry) {
    const [type, hex] = entry.ext;
    const data = hexToBytes(hex);
    return { expected: new ExtData(type, data), input: new ExtData(type, hexToBytes(hex)) };
  }
  throw new Error(`${where}: entry has no value kind`);
}

/**
 * Reads parsed vector files into one list of checks, in file, group and
 * entry order. Throws on an entry it cannot read (an unknown kind, no
 * encodings, a malformed hex byte), naming the entry.
 * @param {Record<string, unknown>} files file name -> parsed JSON
 * @param {new (type: number, data: Uint8Array) => unknown} ExtData the class
 *   `ext` entries decode to (the library under test's own)
 */
export function readVectors(files, ExtData) {
  const out = [];
  for (const [file, content] of Object.entries(files)) {
    const groups = Array.isArray(content) ? { [file]: content } : content;
    for (const [group, entries] of Object.entries(groups)) {
      if (!Array.isArray(entries)) throw new Error(`${file}/${group}: expected an array of entries`);
      entries.forEach((entry, index) => {
        const name = `${file}/${group}[${index}]`;
        const where = entry.description ? `${name} (${entry.description})` : name;
        const spec = interpret(entry, where, ExtData);
        out.push({
          name,
          where,
          file,
          group,
          index,
          ...spec,
          hex: entry.msgpack,
          encodings: entry.msgpack.map(hexToBytes),
          decodeOnly: entry.decodeOnly === true,
          encodeOnly: entry.encodeOnly === true,
        });
      });
    }
  }
  return out;
}
