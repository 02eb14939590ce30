/**
 * The mini entry against the main one: for every value, the same bytes;
 * for every input, the same value or the same DecodeError (code, offset,
 * needed). Seeded values, the shared vectors, every option that mini
 * accepts, random and mutated bytes, and outputs past its scratch (joined
 * from chunks) and past 4 GiB.
 */
import { describe, expect, test } from "vitest";
import * as main from "../src/index.ts";
import * as mini from "../src/mini.ts";
import { forSeeds, hex, string, value, type Random } from "./_support/arbitrary.ts";
import { loadVectors } from "./_support/vectors.ts";

type Outcome = { value: unknown } | { error: string };

/** What decoding gives: the value, or the error's class, code, offset and needed. */
function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (e) {
    if (e instanceof main.DecodeError) return { error: `DecodeError ${e.code} at ${e.offset} needing ${e.needed}` };
    if (e instanceof main.EncodeError) return { error: `EncodeError ${e.code}` };
    return { error: `${(e as Error).constructor.name}` };
  }
}

function sameDecode(bytes: Uint8Array, options?: main.DecodeOptions): void {
  const label = bytes.length <= 64 ? hex(bytes) : `${bytes.length} bytes starting ${hex(bytes.subarray(0, 32))}`;
  const want = outcome(() => main.decode(bytes, options));
  const got = outcome(() => mini.decode(bytes, options));
  expect(got, label).toEqual(want);
}

/** Bytes as text to compare: hex when short, base64 (native, fast) when long. */
const text = (bytes: Uint8Array): string => (bytes.length <= 256 ? hex(bytes) : Buffer.from(bytes).toString("base64"));

function sameEncode(x: unknown, options?: mini.EncodeOptions): Uint8Array | undefined {
  const want = outcome(() => text(main.encode(x, options)));
  const got = outcome(() => text(mini.encode(x, options)));
  expect(got).toEqual(want);
  return "value" in want ? main.encode(x, options) : undefined;
}

const ENCODE_OPTIONS: (mini.EncodeOptions | undefined)[] = [
  undefined,
  { sortKeys: true },
  { forceFloat32: true },
  { ignoreUndefined: true },
  { maxDepth: 2 },
];

const DECODE_OPTIONS: (main.DecodeOptions | undefined)[] = [
  undefined,
  { useMap: true },
  { int64: "bigint" },
  { int64: "number" },
  { useBigInt64: true },
  { binaryAsView: true },
  { maxDepth: 2 },
  { maxStrLength: 3, maxBinLength: 3, maxArrayLength: 3, maxMapLength: 3, maxExtLength: 3 },
  { rawStrings: true },
  { rawStrings: true, binaryAsView: true, maxBinLength: 5 },
  { mapKeyConverter: (k: unknown) => (typeof k === "string" || typeof k === "number" ? k : JSON.stringify(String(k))) },
  { mapKeyConverter: (k: unknown) => (typeof k === "string" ? k : (k as never)), useMap: true },
];

/** Values with undefined properties and a few extra types, for the options to bite on. */
function richValue(r: Random): unknown {
  const x = value(r, { rich: true, maxDepth: 4 });
  return r.bool(0.3) ? { x, u: undefined, [string(r, 5)]: r.bool() ? new Set([1, "a"]) : new Float32Array([1.5]), z: 1.1 } : x;
}

describe("mini encode writes the main encoder's bytes", () => {
  test("seeded rich values, with every option mini accepts", () => {
    forSeeds(600, (r) => {
      const x = richValue(r);
      for (const options of ENCODE_OPTIONS) sameEncode(x, options);
    });
  });

  test("the shared vectors", () => {
    for (const v of loadVectors().filter((v) => v.encodable)) sameEncode(v.value);
  });

  test("unencodable values throw the same EncodeError", () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    for (const x of [() => 1, Symbol("s"), 2n ** 64n, -(2n ** 63n) - 1n, new Date(NaN), cycle, new main.ExtData(200, new Uint8Array(1)), { a: [Symbol.iterator] }]) {
      expect(outcome(() => mini.encode(x))).toEqual(outcome(() => main.encode(x)));
      expect(outcome(() => mini.encode(x))).toHaveProperty("error");
    }
  });

  test("every int, float, bigint, str, bin, array, map and ext form at its size boundaries", () => {
    const ints = [0, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 2 ** 32, Number.MAX_SAFE_INTEGER];
    const numbers = [...ints, ...ints.map((n) => -n), -0x20, -0x21, -0x80, -0x81, -0x8000, -0x8001, -0x80000000, -0x80000001];
    numbers.push(-0, 0.5, -1.5, 2 ** 53, 1e300, NaN, Infinity, -Infinity, 3.4e39, 1 / 3);
    const bigints = [0n, 1n, -1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, -(2n ** 63n)];
    const sizes = [0, 1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 255, 256, 0xffff, 0x10000];
    const strings = sizes.flatMap((n) => ["a".repeat(n), "é".repeat(n >> 1), "日".repeat(Math.ceil(n / 3))]);
    const containers = sizes.flatMap((n) => [new Array(n).fill(1), new Map(Array.from({ length: n }, (_, i) => [i, i])), Object.fromEntries(Array.from({ length: Math.min(n, 256) }, (_, i) => [`k${i}`, i]))]);
    const payloads = sizes.flatMap((n) => [new Uint8Array(n).fill(7), new main.ExtData(-128 + (n % 256), new Uint8Array(n).fill(n)), new main.ExtData(127, new Uint8Array(n))]);
    const dates = [new Date(0), new Date(1.5e12), new Date(2 ** 34 * 1000), new Date(-1), new Date(8.64e15), new Date(-8.64e15)];
    for (const x of [...numbers, ...bigints, ...strings, ...containers, ...payloads, ...dates, true, false, null, undefined]) sameEncode(x);
    for (const x of numbers) sameEncode(x, { forceFloat32: true });
  });

  test("objects are classified as the main encoder does (kind.ts): an array without a prototype is an array", () => {
    const bare = Object.setPrototypeOf([1, "a"], null) as unknown[];
    expect(hex(mini.encode(bare))).toBe("92-01-a1-61");
    for (const x of [bare, Object.create(null), new (class Point { x = 1 })(), new (class extends Array {})(), new DataView(new ArrayBuffer(3)), new Uint16Array([1, 2]).subarray(1)]) {
      sameEncode(x);
      sameEncode({ x }, { sortKeys: true });
    }
  });

  test("hostile values give the main entry's EncodeError codes", () => {
    const detached = new ArrayBuffer(8);
    const detachedView = new Uint8Array(detached, 2);
    structuredClone(detached, { transfer: [detached] });
    class LyingMap extends Map<unknown, unknown> {
      readonly claimed: number;
      constructor(claimed: number) {
        super([[1, 2]]);
        this.claimed = claimed;
      }
      override get size(): number {
        return this.claimed;
      }
    }
    class OddMap extends Map<unknown, unknown> {
      override *[Symbol.iterator](): MapIterator<[unknown, unknown]> {
        yield 5 as never;
      }
      override get size(): number {
        return 1;
      }
    }
    class NoNext extends Map<unknown, unknown> {
      override [Symbol.iterator](): MapIterator<[unknown, unknown]> {
        return {} as never;
      }
    }
    const cases: [string, unknown, string][] = [
      ["a Map whose iterator has no next()", new NoNext([[1, 2]]), "UNSUPPORTED_TYPE"],
      ["a detached ArrayBuffer", detached, "INVALID_ARGUMENT"],
      ["a view of a detached ArrayBuffer", { v: detachedView }, "INVALID_ARGUMENT"],
      ["a Proxy around a Map", [new Proxy(new Map([[1, 2]]), {})], "UNSUPPORTED_TYPE"],
      ["a Proxy around a Set", new Proxy(new Set([1]), {}), "UNSUPPORTED_TYPE"],
      ["a Map whose size is too large", new LyingMap(5), "CHANGED"],
      ["a Map whose size is too small", new LyingMap(0), "CHANGED"],
      ["a Map whose size is no integer", new LyingMap(2.5), "CHANGED"],
      ["a Map whose size is past 2^32-1", new LyingMap(2 ** 32), "TOO_LONG"],
      ["a Map whose iterator gives a non-entry", new OddMap(), "CHANGED"],
      ["an array Proxy whose length is no integer", new Proxy([1, 2, 3], { get: (t, k) => (k === "length" ? 2.5 : Reflect.get(t, k)) }), "CHANGED"],
    ];
    for (const [what, x, code] of cases) {
      const got = outcome(() => mini.encode(x));
      expect(got, what).toEqual({ error: `EncodeError ${code}` });
      expect(got, what).toEqual(outcome(() => main.encode(x)));
    }
  });

  test("a bad extension payload is INVALID_EXT, with a message that says what mini takes", () => {
    const message = (x: unknown, options?: mini.EncodeOptions): string => {
      try {
        mini.encode(x, options);
      } catch (e) {
        expect(outcome(() => main.encode(x, options)), String(e)).toEqual({ error: "EncodeError INVALID_EXT" });
        expect(e).toBeInstanceOf(mini.EncodeError);
        expect((e as main.EncodeError).code).toBe("INVALID_EXT");
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    const extensionCodec = new main.ExtensionCodec();
    extensionCodec.register({ type: 6, encode: (v) => (v instanceof RegExp ? ("abc" as never) : null), decode: () => null });
    expect(message(/x/, { extensionCodec })).toBe('Cannot encode extension type 6: its payload is "abc", not bytes');
    expect(message(new main.ExtData(7, [1, 2] as never))).toBe("Cannot encode extension type 7: its payload is [object Array], not bytes");
    expect(message(new main.ExtData(300, new Uint8Array(1)))).toBe("Cannot encode extension type 300: not an integer in -128..127");
    // a codec object whose tryToEncode gives no ExtData
    const codec = { tryToEncode: (v: unknown) => (v instanceof RegExp ? new Uint8Array(1) : null), decode: () => null };
    expect(message(/x/, { extensionCodec: codec as never })).toBe("Cannot encode with the extensionCodec: tryToEncode returned [object Uint8Array], not an ExtData or null");
  });

  test("an aligned payload (a function) is the main entry's: mini says so", () => {
    const aligned = new main.ExtData(3, (() => new Uint8Array(4)) as never);
    expect(main.decode(main.encode(aligned))).toEqual(new main.ExtData(3, new Uint8Array(4)));
    expect(() => mini.encode(aligned)).toThrow(/^Cannot encode extension type 3: its payload is a function, not bytes \(aligned payloads need the main entry\)$/);
  });

  test("extensions, including one that encodes with mini from inside mini", () => {
    const extensionCodec = new main.ExtensionCodec();
    extensionCodec.register({
      type: 5,
      encode: (v) => (v instanceof Set ? mini.encode([...v], { extensionCodec }) : null),
      decode: (data) => new Set(mini.decode(data, { extensionCodec }) as unknown[]),
    });
    extensionCodec.register({ type: 6, encode: (v) => (v instanceof RegExp ? ("not bytes" as never) : null), decode: () => null });
    const x = { s: new Set([1, new Set(["deep"])]), d: new Date(1.5e12), e: new main.ExtData(-7, new Uint8Array(20)) };
    const bytes = sameEncode(x, { extensionCodec })!;
    expect(mini.decode(bytes, { extensionCodec })).toEqual(x);
    const bad = outcome(() => mini.encode(/x/, { extensionCodec }));
    expect(bad).toEqual({ error: "EncodeError INVALID_EXT" });
    expect(bad).toEqual(outcome(() => main.encode(/x/, { extensionCodec })));
  });

  test("outputs past the scratch, joined from chunks: exact length and plain", () => {
    forSeeds(4, (r) => {
      const x = Array.from({ length: 2000 }, () => value(r, { rich: true, maxDepth: 3 }));
      const want = main.encode(x);
      expect(want.length).toBeGreaterThan(64 * 1024);
      const got = mini.encode(x);
      expect(got.byteLength).toBe(got.buffer.byteLength);
      expect((got.buffer as ArrayBuffer).resizable ?? false).toBe(false);
      expect(Buffer.compare(got, want)).toBe(0);
    });
    const blob = new Uint8Array(3 * 1024 * 1024).map((_, i) => i * 7);
    const text = "é".repeat(700_000);
    const big = [blob, text, blob.subarray(5), { text }];
    expect(Buffer.compare(mini.encode(big), main.encode(big))).toBe(0);
  });

  test("large binaries and extension payloads become chunks of their own, joined byte-exact", () => {
    const MiB = 1 << 20;
    const blob = new Uint8Array(MiB).map((_, i) => i * 131 + 7);
    const x = [...new Array(40).fill(blob), new main.ExtData(5, blob.subarray(3)), "tail"];
    const got = mini.encode(x);
    expect(got.length).toBe(3 + 40 * (5 + MiB) + 6 + MiB - 3 + 5);
    expect(Buffer.compare(got, main.encode(x))).toBe(0);
  });

  test("a binary or extension payload of 2^32 bytes is the main entry's EncodeError (TOO_LONG)", () => {
    const huge = new Uint8Array(2 ** 32); // virtual memory only: untouched pages cost nothing
    for (const x of [huge, [1, huge], new main.ExtData(3, huge)]) {
      const got = outcome(() => mini.encode(x));
      expect(got).toEqual({ error: "EncodeError TOO_LONG" });
      expect(got).toEqual(outcome(() => main.encode(x)));
    }
  });

  test("an output past 4 GiB is the main entry's EncodeError, thrown before joining", () => {
    const GiB = 1 << 30;
    const blob = new Uint8Array(GiB);
    const x = [blob, blob, blob, blob, "past 4 GiB"];
    const got = outcome(() => mini.encode(x));
    expect(got).toEqual({ error: "EncodeError OUT_OF_SPACE" });
    expect(got).toEqual(outcome(() => main.encode(x)));
  });

  test("earlier results are never overwritten by later calls", () => {
    const a = mini.encode({ a: "first" });
    const copy = a.slice();
    for (let i = 0; i < 100; i++) mini.encode({ b: "x".repeat(i * 700) });
    expect(a).toEqual(copy);
  });
});

describe("mini decode gives the main decoder's values and errors", () => {
  test("seeded rich values, with every option", () => {
    forSeeds(400, (r) => {
      const bytes = main.encode(richValue(r));
      for (const options of DECODE_OPTIONS) sameDecode(bytes, options);
    });
  });

  test("every encoding of the shared vectors", () => {
    for (const v of loadVectors()) for (const bytes of v.encodings) sameDecode(bytes);
  });

  test("random bytes", () => {
    forSeeds(4000, (r) => sameDecode(r.bytes(r.int(0, 40)), r.pick(DECODE_OPTIONS)));
  });

  test("mutated and truncated valid encodings", () => {
    forSeeds(1500, (r) => {
      const bytes = main.encode(value(r, { rich: true, maxDepth: 3 }));
      for (let k = r.int(1, 4); k > 0; k--) {
        bytes[r.int(0, bytes.length - 1)] = r.pick([0xff, 0x00, 0xc1, 0xdd, 0xdf, 0xdb, 0xc6, 0xc9, 0xd6, 0xd7, 0xc7, 0xa3, 0x81, (r.next() * 256) | 0]);
      }
      sameDecode(bytes, r.pick(DECODE_OPTIONS));
      sameDecode(bytes.subarray(0, r.int(0, bytes.length)));
    });
  });

  test("strings: invalid UTF-8, a leading BOM, long text, from shared and resizable buffers", () => {
    const cases = ["a3-ef-bb-bf", "a2-c3-28", "a3-ed-a0-80", "a4-f4-90-80-80", "a1-80", "81-a2-c0-af-01", "d9-05-e2-82-ac-61-62"];
    for (const c of cases) sameDecode(new Uint8Array(c.split("-").map((h) => parseInt(h, 16))));
    const long = main.encode({ ["ключ"]: "日本語".repeat(500), bom: "\ufeffx" });
    sameDecode(long);
    const shared = new Uint8Array(new SharedArrayBuffer(long.length));
    shared.set(long);
    expect(mini.decode(shared)).toEqual(main.decode(long));
    const resizable = new Uint8Array(new ArrayBuffer(long.length, { maxByteLength: 2 * long.length }));
    resizable.set(long);
    expect(mini.decode(resizable)).toEqual(main.decode(long));
  });

  test("short strings, cached by a hash of their bytes: thousands of distinct ones decode exactly", () => {
    const obj: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) obj[`k${(i * 7919).toString(36)}`] = `v${i}`.repeat(1 + (i % 3));
    const bytes = main.encode([obj, obj, Object.keys(obj).reverse()]);
    sameDecode(bytes);
    sameDecode(bytes);
  });

  test("short strings, cached: each decodes exactly after any other, the empty string included", () => {
    forSeeds(3, (r) => {
      const strings = Array.from({ length: 3000 }, () => string(r, 15).replace(/[^\x00-\x7f]/g, "a"));
      sameDecode(main.encode(strings.flatMap((s) => [s, "", s.slice(1)])));
    });
  });

  test("map keys: __proto__ stays an own property, non-string keys switch to a Map", () => {
    const bytes = main.encode(new Map<unknown, unknown>([["__proto__", { polluted: true }], [1, "one"]]));
    sameDecode(bytes);
    const obj = mini.decode(main.encode(JSON.parse('{"__proto__": {"polluted": true}}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(obj)).toEqual(["__proto__"]);
  });

  test("extension decoders may call mini decode re-entrantly; unknown types are ExtData", () => {
    const extensionCodec = new main.ExtensionCodec();
    extensionCodec.register({ type: 9, encode: () => null, decode: (data) => ({ inner: mini.decode(data) }) });
    const bytes = main.encode([new main.ExtData(9, main.encode([1, "two"])), new main.ExtData(10, new Uint8Array([1]))]);
    const got = mini.decode(bytes, { extensionCodec }) as unknown[];
    expect(got[0]).toEqual({ inner: [1, "two"] });
    expect(got[1]).toBeInstanceOf(main.ExtData);
    expect(got).toEqual(main.decode(bytes, { extensionCodec }));
  });

  test("inputs other than bytes throw the same DecodeError (INVALID_ARGUMENT); arrays of bytes decode", () => {
    for (const x of [null, "abc", [1, 300], [1.5], 3, undefined, {}]) {
      const got = outcome(() => mini.decode(x as never));
      expect(got).toEqual(outcome(() => main.decode(x as never)));
      expect(got).toHaveProperty("error", expect.stringMatching(/^DecodeError INVALID_ARGUMENT/));
    }
    expect(mini.decode([0x92, 1, 0xc3])).toEqual([1, true]);
  });

  test("the IIFE bundle's entry (src/mini-global.ts) sets ResizableMsgpackMini to exactly the mini exports", async () => {
    const g = globalThis as { ResizableMsgpackMini?: Record<string, unknown> };
    delete g.ResizableMsgpackMini;
    await import("../src/mini-global.ts");
    const global = g.ResizableMsgpackMini!;
    delete g.ResizableMsgpackMini;
    expect(Object.keys(global).sort()).toEqual(Object.keys(mini).sort());
    for (const [name, value] of Object.entries(mini)) expect(global[name], name).toBe(value);
  });

  test("mini's errors are the main entry's classes", () => {
    expect(mini.DecodeError).toBe(main.DecodeError);
    expect(mini.EncodeError).toBe(main.EncodeError);
    expect(mini.ExtData).toBe(main.ExtData);
    expect(mini.ExtensionCodec).toBe(main.ExtensionCodec);
  });
});
