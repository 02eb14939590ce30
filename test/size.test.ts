import { describe, expect, test } from "vitest";
import { encode, encodedSize, estimateSize, ExtData, ExtensionCodec } from "../src/index.ts";
import { ESTIMATE_BUDGET } from "../src/size.ts";

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
    expect(() => encodedSize(cyclic)).toThrow(/maxDepth/);
    expect(() => encodedSize(() => 1)).toThrow(/function/);
    expect(() => encodedSize(2n ** 64n)).toThrow(/bigint/);
  });
});

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
    const t0 = performance.now();
    expect(estimateSize(obj)).toBeGreaterThan(encode(obj).length / 4);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
