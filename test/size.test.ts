import { describe, expect, test, vi } from "vitest";
import { decode, encode, encodedSize, EncodeError, Encoder, estimateSize, ExtData, ExtensionCodec } from "../src/index.ts";
// codecs of another kind (objects with tryToEncode) are installed by the entry for @msgpack/msgpack programs
import "../src/compat/msgpack.ts";
import { DEFAULT_SCRATCH_BYTES } from "../src/encode/output.ts";
import { ESTIMATE_BUDGET, estimateStoreSize } from "../src/encode/size.ts";

describe("encodedSize()", () => {
  test("is exact for every type and option", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 1, encode: (v) => (v instanceof Set ? new Uint8Array(v.size) : null), decode: () => null });
    const values = [
      null, undefined, true, 0, -0, 1.5, 2 ** 40, -(2 ** 40), 2n ** 63n, "", "日本".repeat(100), "x".repeat(70000),
      new Uint8Array(70000), new Float64Array(3), new ArrayBuffer(5), new DataView(new ArrayBuffer(300)),
      new Date(0), new Date(1), new Date(-1), new ExtData(1, new Uint8Array(16)), new Map([[1, [2]]]),
      { a: undefined, b: [1, { c: "d" }] }, new Array(70000).fill(0), new Set([1, 2, 3]),
    ];
    for (const v of values) {
      for (const options of [{}, { forceFloat32: true, ignoreUndefined: true }, { extensionCodec: codec }]) {
        expect(encodedSize(v, options), String(v)).toBe(encode(v, options).length);
      }
    }
  });

  test("rejects what encode rejects", () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => encodedSize(cyclic)).toThrow(/cycle/);
    expect(() => encodedSize(() => 1)).toThrow(/function/);
    expect(() => encodedSize(2n ** 64n)).toThrow(/bigint/);
  });

  test("follows the encoder's extensions: bigints, functions and symbols offered to them, view payloads, aligned (function) payloads, codecs with only tryToEncode", () => {
    const codec = new ExtensionCodec();
    // views and ArrayBuffers are accepted at runtime (their bytes), though typed Uint8Array
    codec.register({ type: 2, encode: (v) => (typeof v === "bigint" ? (new Uint16Array([1, 2, 3]) as never) : null), decode: () => null });
    codec.register({ type: 3, encode: (v) => (typeof v === "function" ? (new DataView(new ArrayBuffer(7)) as never) : null), decode: () => null });
    codec.register({ type: 4, encode: (v) => (typeof v === "symbol" ? (new ArrayBuffer(2) as never) : null), decode: () => null });
    // payload padded to a multiple of 8 from the output position it starts at
    codec.register({ type: 5, encode: (v) => (v instanceof Set ? (pos: number) => new Uint8Array(8 + ((8 - (pos % 8)) % 8)) : null), decode: () => null });
    const own = { tryToEncode: (v: unknown) => (v instanceof Set ? new ExtData(9, new Uint8Array(v.size * 3)) : null), decode: () => null };
    const values = [5n, () => 1, Symbol("s"), new Set([1]), ["a", new Set(), "bcd", new Set([1, 2])], { f: () => 1, s: Symbol("t"), n: 2n ** 70n }];
    for (const v of values) {
      for (const options of [{ extensionCodec: codec }, { extensionCodec: codec, useBigInt64: true }]) {
        const r = thrown(() => encode(v, options));
        if (r !== "no error") {
          expect(thrown(() => encodedSize(v, options))).toMatchObject({ code: r.code, message: r.message });
          continue;
        }
        expect(encodedSize(v, options), String(v)).toBe(encode(v, options).length);
      }
    }
    for (const v of [new Set([1, 2]), [1, new Set()]]) expect(encodedSize(v, { extensionCodec: own as never })).toBe(encode(v, { extensionCodec: own as never }).length);
  });

  test("follows forceIntegerToFloat, forceFloat32 and useBigInt64", () => {
    const values = [0, 1, -1, 300, 2 ** 31, 2 ** 40, -(2 ** 40), 1.5, 5n, -(2n ** 63n), [1, 2.5, 2 ** 33]];
    const sets = [{ forceIntegerToFloat: true }, { forceIntegerToFloat: true, forceFloat32: true }, { useBigInt64: true }, { useBigInt64: true, forceFloat32: true }];
    for (const v of values) for (const options of sets) expect(encodedSize(v, options), `${String(v)} ${JSON.stringify(options)}`).toBe(encode(v, options).length);
  });

  test("Encoder#encodedSize counts with the encoder's options, and leaves the encoder usable", () => {
    const encoder = new Encoder({ forceFloat32: true, ignoreUndefined: true });
    const value = { a: 1.5, b: undefined, c: "x".repeat(100_000) };
    expect(encoder.encodedSize(value)).toBe(encoder.encode(value).length);
    expect(encoder.encodedSize(value)).toBe(encodedSize(value, { forceFloat32: true, ignoreUndefined: true }));
    expect(decode(encoder.encode([1.5]))).toEqual([1.5]);
  });
});

/** What `f` throws, as class, code and message; or "no error". */
function thrown(f: () => unknown): { error: unknown; code?: unknown; message?: string } | "no error" {
  try {
    f();
  } catch (error) {
    return { error, code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  return "no error";
}

/** An ArrayBuffer whose bytes were transferred away. */
function detached(size = 8): ArrayBuffer {
  const buffer = new ArrayBuffer(size);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}

describe("encodedSize() and encode() reject the same values with the same error", () => {
  const payload = (ret: unknown) => {
    const codec = new ExtensionCodec();
    codec.register({ type: 5, encode: (v) => (v instanceof Set ? (ret as Uint8Array) : null), decode: (d) => d });
    return { extensionCodec: codec };
  };
  const cyclic: unknown[] = [];
  cyclic.push(cyclic);
  // [name, value, options, code, message]
  const bad: Array<[string, unknown, object | undefined, string, RegExp]> = [
    ["a function", () => 1, undefined, "UNSUPPORTED_TYPE", /Cannot encode function at \$: unrecognized object/],
    ["a symbol inside an object", { a: [Symbol("s")] }, undefined, "UNSUPPORTED_TYPE", /Cannot encode symbol at \$\.a\[0\]: unrecognized object/],
    ["a bigint past uint64", 2n ** 64n, undefined, "BIGINT_RANGE", /outside int64\/uint64/],
    ["an Invalid Date", new Date(NaN), undefined, "INVALID_DATE", /Invalid Date/],
    ["ExtData of type 200", new ExtData(200, new Uint8Array(2)), undefined, "INVALID_EXT", /extension type 200/],
    ["ExtData of type -129", [new ExtData(-129, new Uint8Array(1))], undefined, "INVALID_EXT", /extension type -129/],
    ["ExtData of type 1.5", new ExtData(1.5, new Uint8Array(1)), undefined, "INVALID_EXT", /extension type 1.5/],
    ["an extension returning an array", new Set([1]), payload([1, 2]), "INVALID_EXT", /extension type 5: encode must return bytes, a function or null/],
    ["an extension returning a string", new Set([1]), payload("ab"), "INVALID_EXT", /extension type 5: encode must return bytes, a function or null/],
    ["a cycle", cyclic, undefined, "CYCLE", /Cannot encode value at \$\[0\] \(the object at \$\): it contains itself/],
    ["nesting past maxDepth", [[[1]]], { maxDepth: 2 }, "MAX_DEPTH", /at \$\[0\]\[0\]: too deep objects in depth 3 \(maxDepth 2\)/],
    ["a function as a Map key", new Map([[() => 1, 1]]), undefined, "UNSUPPORTED_TYPE", /Cannot encode function at \$\.keys\(\)\[0\]: unrecognized object/],
  ];
  test.each(bad)("%s", (_name, value, options, code, message) => {
    const fromEncode = thrown(() => encode(value, options));
    const fromSize = thrown(() => encodedSize(value, options));
    expect(fromEncode).not.toBe("no error");
    expect(fromSize).not.toBe("no error");
    if (fromEncode === "no error" || fromSize === "no error") throw new Error("expected an EncodeError from both");
    expect(fromSize.error).toBeInstanceOf(EncodeError);
    expect(fromEncode.error).toBeInstanceOf(EncodeError);
    expect(fromSize.code).toBe(code);
    expect(fromEncode.code).toBe(code);
    expect(fromSize.message).toMatch(message);
    expect(fromSize.message).toBe(fromEncode.message);
  });

  const detachedValues: Array<[string, () => unknown, RegExp]> = [
    ["a detached ArrayBuffer", () => detached(), /Cannot encode an ArrayBuffer that was detached/],
    ["a Uint8Array over a detached buffer", () => detachedView(), /Cannot encode a Uint8Array over an ArrayBuffer that was detached/],
    ["a DataView over a detached buffer, nested", () => ({ a: [detachedDataView()] }), /Cannot encode a DataView over an ArrayBuffer that was detached/],
  ];
  test.each(detachedValues)("encodedSize: %s is an EncodeError (INVALID_ARGUMENT), not a size or a TypeError", (_name, make, message) => {
    const result = thrown(() => encodedSize(make()));
    expect(result).not.toBe("no error");
    if (result === "no error") throw new Error("expected an EncodeError");
    expect(result.error).toBeInstanceOf(EncodeError);
    expect(result.code).toBe("INVALID_ARGUMENT");
    expect(result.message).toMatch(message);
  });
  // encode() gives the engine's TypeError until Encoder.encodeOtherObject views binaries through size.ts binaryBytes
  test.each(detachedValues)("encode: %s is the same EncodeError as from encodedSize", (_name, make) => {
    const value = make();
    const fromEncode = thrown(() => encode(value));
    const fromSize = thrown(() => encodedSize(value));
    expect(fromEncode !== "no error" && fromEncode.error).toBeInstanceOf(EncodeError);
    expect(fromEncode !== "no error" && fromEncode.message).toBe(fromSize !== "no error" && fromSize.message);
  });

  test("a Map that grows while measured is CHANGED, with the message encode gives", () => {
    const fromEncode = thrown(() => encode(growingMap()));
    const fromSize = thrown(() => encodedSize(growingMap()));
    expect(fromSize).toMatchObject({ code: "CHANGED", message: expect.stringMatching(/Cannot encode Map at \$: it changed while being encoded \(1 entries, then more\)/) });
    expect(fromSize !== "no error" && fromSize.message).toBe(fromEncode !== "no error" && fromEncode.message);
  });

  test("an extension returning a Uint16Array (any view) is its bytes, in both", () => {
    const options = payload(new Uint16Array(2));
    expect(encodedSize(new Set([1]), options)).toBe(encode(new Set([1]), options).length);
    expect(encodedSize(new Set([1]), options)).toBe(2 + 4); // fixext 4
  });

  test("a zero-length binary that is not detached still encodes", () => {
    for (const v of [new ArrayBuffer(0), new Uint8Array(0), new DataView(new ArrayBuffer(0))]) {
      expect(encodedSize(v)).toBe(2);
      expect(encode(v).length).toBe(2);
    }
  });
});

/** A view whose buffer was detached after the view was made. */
function detachedView(): Uint8Array {
  const view = new Uint8Array(8);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}

function detachedDataView(): DataView {
  const view = new DataView(new ArrayBuffer(8));
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}

/** A Map whose entry value's getter adds an entry while the Map is being encoded. */
function growingMap(): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>();
  map.set("a", {
    get x() {
      map.set("b", 1);
      return 1;
    },
  });
  return map;
}

describe("estimateSize()", () => {
  test("is close for regular data and exact-ish for binaries", () => {
    const records = Array.from({ length: 10000 }, (_, i) => ({ id: i, name: `name-${i}`, score: i / 7, tags: ["a", "bb"] }));
    const doubles = Array.from({ length: 100000 }, (_, i) => i + 0.5);
    const blobs = [new Uint8Array(1 << 20), new Uint8Array(1 << 21)];
    for (const v of [records, doubles, blobs]) {
      const ratio = estimateSize(v) / encode(v).length;
      expect(ratio).toBeGreaterThan(0.8);
      expect(ratio).toBeLessThan(1.5);
    }
  });

  test("looks at a bounded number of values, however large the input", () => {
    let reads = 0;
    const counted = (n: number) =>
      new Proxy(new Array(n).fill(1.5), {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const huge = counted(10_000_000);
    const guess = estimateSize(huge);
    expect(guess).toBeGreaterThan(80_000_000);
    expect(reads).toBeLessThanOrEqual(ESTIMATE_BUDGET);
    // nested list: obj = [obj, obj] twenty times (2^20 leaves), walked within the budget
    let obj: unknown = [1.5];
    for (let i = 0; i < 20; i++) obj = [obj, obj];
    const encoded = encode(obj).length;
    let nestedReads = 0;
    let countedObj: unknown = [1.5];
    for (let i = 0; i < 20; i++) {
      countedObj = new Proxy([countedObj, countedObj], {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) nestedReads++;
          return Reflect.get(target, key, receiver);
        },
      });
    }
    expect(estimateSize(countedObj)).toBeGreaterThan(encoded / 4);
    // 2^21 - 2 element reads would walk every leaf; the estimate reads within its budget
    expect(nestedReads).toBeLessThanOrEqual(ESTIMATE_BUDGET);
  });
});

describe("the estimate runs no getter", () => {
  test("encode reads each property once though the estimate runs mid-call (accessors and Proxy get traps)", () => {
    let getterReads = 0;
    const record = (i: number) =>
      Object.defineProperty({ id: i }, "name", {
        get: () => (getterReads++, `name ${i} `.repeat(10)),
        enumerable: true,
      });
    const list = Array.from({ length: 5000 }, (_, i) => record(i));
    const trapReads = new Map<PropertyKey, number>();
    const root = new Proxy(
      { list, tail: "t" },
      {
        get(target, key, receiver) {
          trapReads.set(key, (trapReads.get(key) ?? 0) + 1);
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const bytes = encode(root);
    expect(bytes.length).toBeGreaterThan(DEFAULT_SCRATCH_BYTES); // so the estimate ran
    expect(getterReads).toBe(5000);
    expect(trapReads.get("list")).toBe(1);
    expect(trapReads.get("tail")).toBe(1);
  });

  test("estimateSize counts an accessor as a guess without calling it, and reads Maps and Sets by their built-in iterators", () => {
    const get = vi.fn(() => "x".repeat(1000));
    const obj = Object.defineProperty({}, "lazy", { get, enumerable: true });
    expect(estimateSize(obj)).toBeLessThan(100);
    expect(get).not.toHaveBeenCalled();
    class Sneaky extends Map<number, string> {
      override *[Symbol.iterator](): MapIterator<[number, string]> {
        get();
        yield* super[Symbol.iterator]();
      }
    }
    const map = new Sneaky(Array.from({ length: 1000 }, (_, i) => [i, "abcdefgh"]));
    const guess = estimateSize(map);
    expect(get).not.toHaveBeenCalled();
    expect(guess / encode(new Map(map)).length).toBeGreaterThan(0.8);
    expect(guess / encode(new Map(map)).length).toBeLessThan(1.5);
    // Maps and Sets are sampled from their first entries (reaching entry i takes i steps): growing numbers are underestimated
    const set = new Set(Array.from({ length: 100_000 }, (_, i) => i * 1000));
    expect(estimateSize(set) / encode(set).length).toBeGreaterThan(0.5);
  });

  test("the store estimate never throws (a revoked Proxy): encode reports the value's own error", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(estimateStoreSize([proxy], 0)).toBe(0);
  });
});
