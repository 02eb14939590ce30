/**
 * Adversarial inputs: what the decoder does with bytes crafted to make it
 * slow or greedy, under every decode option and entry. Each crafted input
 * has its outcome written out by hand (the value's shape, or the error's
 * code and offset), so a decoder that gave up early with a TypeError, or
 * read the wrong keys, fails; the stream entry also counts its work
 * (bytes copied, decoded and scanned: a small multiple of the input).
 * How long each input takes against a random one of the same size is
 * measured by benchmarks/adversarial.js (the "within 10x" claim), not
 * asserted here: durations depend on the machine's load.
 *
 * V8 hashes numbers without a seed (heap numbers with ComputeLongHash of
 * their bits, Smis and uint32-valued numbers with ComputeUnseededHash), so
 * a `Map` keyed by attacker-chosen numbers can be forced into one bucket:
 * both hash functions are bijections before their final mask, and the
 * helpers below invert them to make as many keys with one hash as wanted.
 * String hashes are seeded per process (Jenkins' one-at-a-time from a
 * random seed), so string keys cannot be aimed the same way: the keys
 * crafted for seed 42 collide only in a process started with
 * `--hash-seed=42`.
 */
import { describe, expect, test } from "vitest";
import { decode, DecodeError, ExtData, ExtensionCodec, type DecodeOptions } from "../src/index.ts";
import { createStreamStats, decodeAsync, type StreamStats } from "../src/streams.ts";
import { expectLinear } from "./_support/streams.ts";
import { collidingFloats, collidingUint32, computeLongHash, computeUnseededHash, v8StringHash } from "./_support/v8-hash.ts";
import { float64Keys, mapOfKeys, uint32Keys } from "./_support/number-hash.mjs";

/**
 * Pairs of 5-letter blocks found by a birthday search: starting from seed
 * 42, either block of pair k leaves the running hash in the same state, so
 * the 2^12 strings that pick one block of each pair share one hash.
 */
const SEED_42_PAIRS = [
  ["boZqz", "bgpmr"], ["oBuvw", "whmnw"], ["mrQJm", "iDMFm"], ["habkV", "fkRSj"], ["hWjAl", "hSTYh"], ["vUVeP", "vQJWL"],
  ["nEpWj", "SDwlO"], ["ZmPwt", "GzABq"], ["FerIZ", "ReLUZ"], ["uPMli", "uHgdq"], ["gdCPw", "oNWHw"], ["IlKrs", "ARKjs"],
] as const;

/** The 4096 strings that collide in V8's string hash under seed 42. */
function seed42Keys(): string[] {
  return Array.from({ length: 1 << SEED_42_PAIRS.length }, (_, i) => SEED_42_PAIRS.map((p, b) => p[(i >> b) & 1]).join(""));
}

// ---------------------------------------------------------------------------
// Inputs

/** A map of fixstr keys, all of `len` ASCII characters. */
function stringKeys(keys: string[]): Uint8Array {
  const len = keys[0]!.length;
  return mapOfKeys(keys.length, 1 + len, (dv, at, i) => {
    dv.setUint8(at, 0xa0 | len);
    for (let j = 0; j < len; j++) dv.setUint8(at + 1 + j, keys[i]!.charCodeAt(j));
  });
}

/** A map of str 8 keys (ASCII), values nil. */
function longStringKeys(keys: string[]): Uint8Array {
  const len = keys[0]!.length;
  return mapOfKeys(keys.length, 2 + len, (dv, at, i) => {
    dv.setUint8(at, 0xd9);
    dv.setUint8(at + 1, len);
    for (let j = 0; j < len; j++) dv.setUint8(at + 2 + j, keys[i]!.charCodeAt(j));
  });
}

/**
 * `n` distinct 16-letter keys with one polynomial hash `h = h * 31 + c`
 * (the library's key cache slot function): at each pair of positions,
 * (x, y) and (x + 1, y - 31) give the same hash, so 8 independent pairs
 * with 3 choices each give 3^8 = 6561 keys in one slot.
 */
function sameSlotKeys(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n && i < 6561; i++) {
    let s = "";
    for (let p = 0, k = i; p < 8; p++, k = Math.floor(k / 3)) {
      const j = k % 3;
      s += String.fromCharCode(0x41 + j, 0x7e - 31 * j);
    }
    out.push(s);
  }
  return out;
}

/** An array 32 of records, each a map of `perRecord` keys cycling through `keys`, values nil. */
function records(keys: string[], count: number, perRecord: number): Uint8Array {
  const len = keys[0]!.length;
  const out = new Uint8Array(5 + count * (1 + perRecord * (2 + len)));
  const dv = new DataView(out.buffer);
  out[0] = 0xdd;
  dv.setUint32(1, count);
  let at = 5;
  let k = 0;
  for (let i = 0; i < count; i++) {
    out[at++] = 0x80 | perRecord;
    for (let j = 0; j < perRecord; j++, k++) {
      const key = keys[k % keys.length]!;
      out[at++] = 0xa0 | len;
      for (let c = 0; c < len; c++) out[at++] = key.charCodeAt(c);
      out[at++] = 0xc0;
    }
  }
  return out;
}

/** `unit` repeated to fill `size` bytes (closed with nils), e.g. nested arrays. */
function repeated(unit: number[], size: number): Uint8Array {
  const out = new Uint8Array(size).fill(0xc0);
  for (let at = 0; at + unit.length <= size - 1; at += unit.length) out.set(unit, at);
  return out;
}

/** Set extensions holding arrays holding Set extensions..., `size` bytes. */
function nestedExtensions(size: number): Uint8Array {
  const levels = Math.floor((size - 1) / 7);
  const out = new Uint8Array(levels * 7 + 1);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < levels; i++) {
    out.set([0x91, 0xc9, 0, 0, 0, 0, 1], i * 7);
    dv.setUint32(i * 7 + 2, out.length - (i * 7 + 7));
  }
  out[out.length - 1] = 0x90;
  return out;
}

/** A header declaring 2^32-1 of something, then `size` bytes of nils. */
function hugeDeclared(header: number[], size: number): Uint8Array {
  const out = new Uint8Array(size).fill(0xc0);
  out.set(header);
  return out;
}

const MB = 1 << 20;

/** What one entry gave for one input: its value, or what it threw. */
type Outcome = { value: unknown } | { error: unknown };

interface Case {
  name: string;
  bytes: () => Uint8Array;
  /** Checks the outcome against what the decoder must do, written out by hand. */
  check: (outcome: Outcome, entry: Entry) => void;
  /**
   * Map keys are numbers. `useMap` keeps them as Map keys by design (the
   * README warns such maps are open to hash flooding), so under it the
   * case runs at a thousandth of its keys: the outcome, not the cost.
   */
  small?: () => { bytes: Uint8Array; keys: number[] };
}

function memo<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}

/** The value of `o`; fails with the error when the decoder threw. */
function valueOf(o: Outcome): unknown {
  if ("error" in o) throw new Error(`expected a value, the decoder threw ${String(o.error)}`);
  return o.value;
}

/** Checks that `o` is a DecodeError with `code`, an offset `offset` accepts, and a message matching `message`. */
function expectError(o: Outcome, code: string, offset: number | ((at: number) => boolean), message: RegExp): void {
  if (!("error" in o)) throw new Error(`expected a ${code} DecodeError, the decoder returned a value`);
  const e = o.error as DecodeError;
  expect(e).toBeInstanceOf(DecodeError);
  expect(e.code).toBe(code);
  if (typeof offset === "number") expect(e.offset).toBe(offset);
  else expect(offset(e.offset!), `offset ${e.offset}`).toBe(true);
  expect(e.message).toMatch(message);
}

/**
 * A map of `keys`: `useMap` keeps them as they are (numbers stay numbers), a
 * plain object has them as property names, so String() of each.
 */
function expectKeys(o: Outcome, entry: Entry, keys: (number | string)[]): void {
  const v = valueOf(o);
  if (entry.useMap) {
    expect(v).toBeInstanceOf(Map);
    const m = v as Map<unknown, unknown>;
    expect(m.size).toBe(keys.length);
    const missing = keys.filter((k) => !m.has(k) || m.get(k) !== null);
    expect(missing.slice(0, 3)).toEqual([]);
  } else {
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    const names = Object.keys(v as object);
    expect(names.length).toBe(keys.length);
    const have = new Set(names);
    const missing = keys.filter((k) => !have.has(String(k)) || (v as Record<string, unknown>)[String(k)] !== null);
    expect(missing.slice(0, 3)).toEqual([]);
  }
}

/** 2^32-1 and 4 GiB declared in 1 MB of input: refused at the header, at offset 0. */
const declaredTooMuch = (what: string) => (o: Outcome) => expectError(o, "TRUNCATED", 0, new RegExp(`^Cannot decode ${what}.* at offset 0: insufficient data`));

const FLOAT_KEYS = memo(() => collidingFloats(100_000));
const UINT32_KEYS = memo(() => collidingUint32(65536));
const SLOT_KEYS = memo(() => sameSlotKeys(6561));

const CASES: Case[] = [
  {
    name: "a map of 100k float64 keys colliding in V8's number hash",
    bytes: memo(() => float64Keys(FLOAT_KEYS())),
    check: (o, entry) => expectKeys(o, entry, entry.useMap ? FLOAT_KEYS().slice(0, 100) : FLOAT_KEYS()),
    small: () => ({ bytes: float64Keys(FLOAT_KEYS().slice(0, 100)), keys: FLOAT_KEYS().slice(0, 100) }),
  },
  {
    name: "a map of 65536 uint32 keys colliding in V8's integer hash",
    bytes: memo(() => uint32Keys(UINT32_KEYS())),
    check: (o, entry) => expectKeys(o, entry, entry.useMap ? UINT32_KEYS().slice(0, 66) : UINT32_KEYS()),
    small: () => ({ bytes: uint32Keys(UINT32_KEYS().slice(0, 66)), keys: UINT32_KEYS().slice(0, 66) }),
  },
  {
    name: "a map of 50k index-like string keys sharing their low bits (an unseeded hash would collide)",
    bytes: memo(() => stringKeys(indexLikeKeys())),
    check: (o, entry) => expectKeys(o, entry, indexLikeKeys()),
  },
  {
    name: "a map of 4096 string keys colliding in V8's string hash under seed 42 (this process has its own seed)",
    bytes: memo(() => longStringKeys(seed42Keys())),
    check: (o, entry) => expectKeys(o, entry, seed42Keys()),
  },
  {
    name: "records whose 16-byte keys all fall in one key-cache slot",
    bytes: memo(() => records(SLOT_KEYS(), 1000, 15)),
    check: (o, entry) => {
      const v = valueOf(o) as unknown[];
      expect(v.length).toBe(1000);
      const keys = SLOT_KEYS();
      const wrong: number[] = [];
      for (let i = 0; i < 1000; i++) {
        const want = Array.from({ length: 15 }, (_, j) => keys[(i * 15 + j) % keys.length]!);
        const got = v[i] instanceof Map ? [...(v[i] as Map<string, unknown>).keys()] : Object.keys(v[i] as object);
        if (Boolean(entry.useMap) !== (v[i] instanceof Map) || got.join() !== want.join()) wrong.push(i);
      }
      expect(wrong.slice(0, 3)).toEqual([]);
    },
  },
  {
    name: "1 MB of nested arrays",
    bytes: memo(() => repeated([0x91], MB)),
    // one array header per byte: the 513th, at offset 512, is one too deep
    check: (o, entry) =>
      entry.deep
        ? expectError(o, "MAX_DEPTH", (at) => at > 512 && at < MB, /: nested too deep for the call stack$/)
        : expectError(o, "MAX_DEPTH", 512, /^Cannot decode container at offset 512: too deep, deeper than maxDepth \(512\)$/),
  },
  {
    name: "1 MB of nested maps",
    bytes: memo(() => repeated([0x81, 0xa0], MB)),
    // a map header and an empty key per level: the 513th header is at offset 1024
    check: (o, entry) =>
      entry.deep
        ? expectError(o, "MAX_DEPTH", (at) => at > 1024 && at < MB, /: nested too deep for the call stack$/)
        : expectError(o, "MAX_DEPTH", 1024, /^Cannot decode container at offset 1024: too deep, deeper than maxDepth \(512\)$/),
  },
  {
    name: "1 MB of nested extensions (re-entrant under the Set extension)",
    bytes: memo(() => nestedExtensions(MB)),
    check: (o, entry) => {
      if (entry.setExtension) {
        // each level is an array and a re-entrant decode of the payload: level 256 (at 256 * 7) is depth 513
        expectError(o, "MAX_DEPTH", 256 * 7, /^Cannot decode container at offset 1792: too deep, deeper than maxDepth \(512\)$/);
        expect(entry.setExtension.calls).toBeLessThanOrEqual(256);
        return;
      }
      // no decoder for type 1: the outer array holds the rest as one ExtData, read once
      const v = valueOf(o) as ExtData[];
      expect(v.length).toBe(1);
      expect(v[0]).toBeInstanceOf(ExtData);
      expect(v[0]!.type).toBe(1);
      expect(v[0]!.data.length).toBe(nestedExtensions(MB).length - 7);
    },
  },
  {
    name: "500k one-byte strings",
    bytes: memo(() => {
      const n = (MB - 5) >> 1;
      const b = new Uint8Array(5 + 2 * n);
      b[0] = 0xdd;
      new DataView(b.buffer).setUint32(1, n);
      for (let i = 0; i < n; i++) (b[5 + 2 * i] = 0xa1), (b[6 + 2 * i] = 0x61 + (i % 26));
      return b;
    }),
    check: (o) => {
      const v = valueOf(o) as string[];
      expect(v.length).toBe((MB - 5) >> 1);
      const wrong = v.findIndex((s, i) => s !== String.fromCharCode(0x61 + (i % 26)));
      expect(wrong).toBe(-1);
    },
  },
  { name: "str 32 declaring 4 GiB", bytes: memo(() => hugeDeclared([0xdb, 0xff, 0xff, 0xff, 0xff], MB)), check: declaredTooMuch("string") },
  { name: "bin 32 declaring 4 GiB", bytes: memo(() => hugeDeclared([0xc6, 0xff, 0xff, 0xff, 0xff], MB)), check: declaredTooMuch("binary") },
  { name: "ext 32 declaring 4 GiB", bytes: memo(() => hugeDeclared([0xc9, 0xff, 0xff, 0xff, 0xff, 0x01], MB)), check: declaredTooMuch("extension") },
  { name: "array 32 declaring 2^32-1 items, then 1 MB of nils", bytes: memo(() => hugeDeclared([0xdd, 0xff, 0xff, 0xff, 0xff], MB)), check: declaredTooMuch("array of 4294967295 items") },
  { name: "map 32 declaring 2^32-1 entries, then 1 MB of nils", bytes: memo(() => hugeDeclared([0xdf, 0xff, 0xff, 0xff, 0xff], MB)), check: declaredTooMuch("map of 4294967295 entries") },
];

/** 50k digit strings that are array indices, 128 apart: their low bits agree. */
function indexLikeKeys(): string[] {
  return Array.from({ length: 50_000 }, (_, i) => String(1_000_000 + i * 128));
}

// ---------------------------------------------------------------------------
// Decoders under every option

/** A Set extension whose decoder calls decode re-entrantly on its payload, counting its calls. */
function setExtension(): { options: DecodeOptions<undefined>; calls: number } {
  const codec = new ExtensionCodec();
  const ext = { options: { extensionCodec: codec } as DecodeOptions<undefined>, calls: 0 };
  codec.register({ type: 1, encode: () => null, decode: (data) => (ext.calls++, new Set(decode(data, ext.options) as unknown[])) });
  return ext;
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

interface Entry {
  name: string;
  run: (bytes: Uint8Array) => unknown;
  useMap?: boolean;
  /** maxDepth past what the call stack holds. */
  deep?: boolean;
  /** The re-entrant Set extension, with its call count. */
  setExtension?: { options: DecodeOptions<undefined>; calls: number };
  /** The stream entry's work counters for the last run. */
  stats?: StreamStats;
}

const SET = setExtension();
const STREAM: Entry = {
  name: "decodeAsync() in 64 KiB chunks",
  run(b) {
    this.stats = createStreamStats();
    return decodeAsync(chunks(b, 64 * 1024), { stats: this.stats });
  },
};

const ENTRIES: Entry[] = [
  { name: "decode()", run: (b) => decode(b) },
  { name: "decode() with useMap", run: (b) => decode(b, { useMap: true }), useMap: true },
  { name: "decode() with int64: bigint, binaryAsView", run: (b) => decode(b, { int64: "bigint", binaryAsView: true }) },
  { name: "decode() with a re-entrant Set extension", run: (b) => ((SET.calls = 0), decode(b, SET.options)), setExtension: SET },
  { name: "decode() with maxDepth 100000", run: (b) => decode(b, { maxDepth: 100_000 }), deep: true },
  STREAM,
];

// ---------------------------------------------------------------------------
// Tests

describe("the crafted keys really collide in V8's hash functions (so the tests below attack something)", () => {
  // counted sorted, not in a Set: a Set of numbers that share a hash bucket is the quadratic case itself
  const distinct = (keys: number[]) => Float64Array.from(keys).sort().filter((k, i, a) => i === 0 || k !== a[i - 1]).length;

  test("float64 keys share one ComputeLongHash", () => {
    const keys = FLOAT_KEYS();
    expect(distinct(keys)).toBe(100_000);
    const bits = new BigUint64Array(new Float64Array(keys).buffer);
    expect(new Set(bits.map((b) => BigInt(computeLongHash(b)))).size).toBe(1);
  });

  test("uint32 keys share the low 16 bits of ComputeUnseededHash", () => {
    const keys = UINT32_KEYS();
    expect(distinct(keys)).toBe(65536);
    expect(new Set(keys.map((k) => computeUnseededHash(k) & 0xffff)).size).toBe(1);
  });

  test("the seed-42 string keys share one hash under seed 42, and not under seed 43", () => {
    const keys = seed42Keys();
    expect(new Set(keys).size).toBe(4096);
    expect(new Set(keys.map((k) => v8StringHash(k, 42))).size).toBe(1);
    expect(new Set(keys.map((k) => v8StringHash(k, 43))).size).toBeGreaterThan(4000);
  });

  test("the key-cache keys share one slot of h = h * 31 + c", () => {
    const keys = sameSlotKeys(6561);
    expect(new Set(keys).size).toBe(6561);
    const slot = (k: string) => [...k].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 0);
    expect(new Set(keys.map(slot)).size).toBe(1);
  });
});

describe("adversarial inputs: each entry gives the value or the error written out for it", () => {
  for (const entry of ENTRIES) {
    test(entry.name, async () => {
      for (const c of CASES) {
        const bytes = entry.useMap && c.small ? c.small().bytes : c.bytes();
        expect(bytes.length).toBeLessThanOrEqual(MB);
        let outcome: Outcome;
        try {
          outcome = { value: await entry.run(bytes) };
        } catch (error) {
          outcome = { error };
        }
        try {
          c.check(outcome, entry);
          const stats = entry.stats;
          if (stats !== undefined) {
            // the stream's work stays linear in the input: bytes copied, decoded and scanned
            if ("value" in outcome) expectLinear(stats, bytes.length, 3);
            expect(stats.bytesIn).toBeLessThanOrEqual(bytes.length);
            expect(stats.bytesCopied).toBeLessThanOrEqual(3 * bytes.length);
            expect(stats.bytesDecoded).toBeLessThanOrEqual(3 * bytes.length);
            expect(stats.bytesScanned).toBeLessThanOrEqual(bytes.length);
          }
        } catch (e) {
          throw new Error(`${c.name}: ${(e as Error).message}`, { cause: e });
        }
      }
    }, 600_000);
  }
});
