import { describe, expect, it } from "vitest";
import { decode, encode, encodedSize, estimateSize, ExtData } from "../src/index.ts";
import {
  KIND_ARRAY,
  KIND_BIGINT,
  KIND_BINARY,
  KIND_BOOLEAN,
  KIND_DATE,
  KIND_EXT,
  KIND_MAP,
  KIND_NIL,
  KIND_NUMBER,
  KIND_RECORD,
  KIND_SET,
  KIND_STRING,
  KIND_UNSUPPORTED,
  kindOf,
  type Kind,
} from "../src/format/kind.ts";
import { encodeIterable } from "../src/streams.ts";
import { concat, sameBytes } from "./_support/streams.ts";

class Point {
  x = 1;
  y = "two";
}

/** The first bytes each kind may start with (the header forms of (forms.ts)). */
const FIRST_BYTES: Record<number, (b: number) => boolean> = {
  [KIND_NIL]: (b) => b === 0xc0,
  [KIND_BOOLEAN]: (b) => b === 0xc2 || b === 0xc3,
  [KIND_NUMBER]: (b) => b < 0x80 || b >= 0xe0 || (b >= 0xca && b <= 0xd3),
  [KIND_STRING]: (b) => (b & 0xe0) === 0xa0 || (b >= 0xd9 && b <= 0xdb),
  [KIND_BIGINT]: (b) => b === 0xcf || b === 0xd3,
  [KIND_ARRAY]: (b) => (b & 0xf0) === 0x90 || b === 0xdc || b === 0xdd,
  [KIND_SET]: (b) => (b & 0xf0) === 0x90 || b === 0xdc || b === 0xdd,
  [KIND_RECORD]: (b) => (b & 0xf0) === 0x80 || b === 0xde || b === 0xdf,
  [KIND_MAP]: (b) => (b & 0xf0) === 0x80 || b === 0xde || b === 0xdf,
  [KIND_BINARY]: (b) => b >= 0xc4 && b <= 0xc6,
  [KIND_DATE]: (b) => b === 0xd6 || b === 0xd7 || b === 0xc7,
  [KIND_EXT]: (b) => (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9),
};

const big = (n: number): number[] => Array.from({ length: n }, (_, i) => i * 1000);
const bytes300 = Uint8Array.from({ length: 300 }, (_, i) => i);
const shared = new SharedArrayBuffer(300);
new Uint8Array(shared).set(bytes300);

/** One or more values of each kind: small ones, and ones large enough that the stream encoder splits them. */
const SAMPLES: Array<[string, unknown, Kind]> = [
  ["null", null, KIND_NIL],
  ["undefined", undefined, KIND_NIL],
  ["true", true, KIND_BOOLEAN],
  ["a number", -1.5, KIND_NUMBER],
  ["a string", "héllo", KIND_STRING],
  ["a bigint", 2n ** 63n, KIND_BIGINT],
  ["an array", [1, "a", null], KIND_ARRAY],
  ["a large array", big(200), KIND_ARRAY],
  ["a plain object", { a: 1, b: [2] }, KIND_RECORD],
  ["an object without prototype", Object.assign(Object.create(null) as object, { k: "v" }), KIND_RECORD],
  ["a class instance", new Point(), KIND_RECORD],
  ["a large plain object", Object.fromEntries(big(100).map((v) => [`k${v}`, v])), KIND_RECORD],
  ["a Map", new Map<unknown, unknown>([[1, "a"], ["b", [2]]]), KIND_MAP],
  ["a large Map", new Map(big(100).map((v) => [v, `v${v}`])), KIND_MAP],
  ["a Set", new Set([1, "a"]), KIND_SET],
  ["a large Set", new Set(big(100)), KIND_SET],
  ["a Uint8Array", bytes300, KIND_BINARY],
  ["a Uint16Array", new Uint16Array([1, 2, 3]), KIND_BINARY],
  ["a Float64Array", new Float64Array([1.5, -2]), KIND_BINARY],
  ["a DataView", new DataView(bytes300.buffer, 10, 100), KIND_BINARY],
  ["an ArrayBuffer", bytes300.buffer, KIND_BINARY],
  ["a SharedArrayBuffer", shared, KIND_BINARY],
  ["a Date", new Date(1_700_000_000_123), KIND_DATE],
  ["an ExtData", new ExtData(7, new Uint8Array(4)), KIND_EXT],
];

describe("kindOf(): one classification that the encoder, encodedSize and the stream encoder share", () => {
  it.each(SAMPLES)("%s: kindOf, encode's header, encodedSize and encodeIterable at several chunk sizes agree", (_, value, kind) => {
    expect(kindOf(value)).toBe(kind);
    const bytes = encode(value);
    expect(FIRST_BYTES[kind]!(bytes[0]!), `first byte 0x${bytes[0]!.toString(16)}`).toBe(true);
    expect(encodedSize(value)).toBe(bytes.length);
    for (const chunkSize of [1, 16, 64, 65536]) {
      expect(sameBytes(concat([...encodeIterable(value, { chunkSize })]), bytes), `chunkSize ${chunkSize}`).toBe(true);
    }
  });

  it("functions and symbols are unsupported in every path alike", () => {
    for (const value of [() => 1, Symbol("s")]) {
      expect(kindOf(value)).toBe(KIND_UNSUPPORTED);
      expect(() => encode(value)).toThrow(/Cannot encode/);
      expect(() => encodedSize(value)).toThrow(/Cannot encode/);
      expect(() => [...encodeIterable(value)]).toThrow(/Cannot encode/);
    }
  });

  it("a SharedArrayBuffer is a binary to estimateSize and the streaming encoder as to the encoder (bin with its bytes)", () => {
    const sab = new SharedArrayBuffer(10_000);
    expect(decode(encode(sab))).toEqual(new Uint8Array(10_000));
    expect(estimateSize(sab)).toBe(10_005);
    expect(estimateSize({ sab })).toBeGreaterThanOrEqual(10_005);
    // split by the stream encoder as a binary: the header, then the bytes
    const chunks = [...encodeIterable([sab], { chunkSize: 4096 })];
    expect(chunks.length).toBeGreaterThan(1);
    expect(sameBytes(concat(chunks), encode([sab]))).toBe(true);
  });

  it("arrays, plain objects, Maps and typed arrays keep their kinds when nested, in every path", () => {
    const value = { list: [new Map([["m", { o: new Uint16Array([1, 2]) }]]), [shared, new Set([new Date(0)])]], rec: new Point() };
    const bytes = encode(value);
    expect(encodedSize(value)).toBe(bytes.length);
    for (const chunkSize of [1, 8, 32]) expect(sameBytes(concat([...encodeIterable(value, { chunkSize })]), bytes)).toBe(true);
    expect(decode(bytes)).toEqual({
      list: [{ m: { o: new Uint8Array(new Uint16Array([1, 2]).buffer) } }, [new Uint8Array(bytes300), [new Date(0)]]],
      rec: { x: 1, y: "two" },
    });
  });
});
