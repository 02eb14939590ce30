import { describe, expect, test, vi } from "vitest";
import { decode, Decoder, encode, Encoder, ExtData, ExtensionCodec } from "../src/index.ts";
import { OptionsCache } from "../src/shared/options-cache.ts";
import { hex } from "./_support/arbitrary.ts";

/** An OptionsCache whose coders are numbered, and the options each was made from. */
function counted() {
  const made: Record<string, unknown>[] = [];
  const cache = new OptionsCache<number>((options) => {
    made.push({ ...options });
    return made.length;
  });
  return { cache, made };
}

describe("OptionsCache: one coder per options contents", () => {
  test("a new object with the same contents (an inline literal) finds the same coder", () => {
    const { cache, made } = counted();
    const first = cache.get({ sortKeys: true });
    for (let i = 0; i < 1000; i++) expect(cache.get({ sortKeys: true })).toBe(first);
    expect(made).toEqual([{ sortKeys: true }]);
  });

  test("contents differ by key, value, type and order", () => {
    const { cache, made } = counted();
    const sets = [{}, { a: true }, { a: false }, { a: 1 }, { a: "1" }, { a: 1n }, { a: null }, { a: undefined }, { b: true }, { a: true, b: 1 }, { b: 1, a: true }, { a: 0 }, { a: "0" }];
    const coders = sets.map((o) => cache.get(o));
    expect(new Set(coders).size).toBe(sets.length);
    expect(sets.map((o) => cache.get({ ...o }))).toEqual(coders);
    expect(made.length).toBe(sets.length);
  });

  test("objects inside options (codec, context) compare by identity", () => {
    const { cache } = counted();
    const codec = {};
    const a = cache.get({ extensionCodec: codec, context: { user: 1 } });
    const b = cache.get({ extensionCodec: codec, context: { user: 1 } });
    expect(b).not.toBe(a); // another context object, even with equal contents
    const context = { user: 2 };
    expect(cache.get({ extensionCodec: codec, context })).toBe(cache.get({ extensionCodec: codec, context }));
  });

  test("an options object changed after first use gets a coder for its new contents", () => {
    const { cache, made } = counted();
    const options: Record<string, unknown> = { sortKeys: false };
    const first = cache.get(options);
    options.sortKeys = true;
    const second = cache.get(options);
    expect(second).not.toBe(first);
    expect(made[1]).toEqual({ sortKeys: true });
    options.extra = 1; // a key added
    expect(cache.get(options)).not.toBe(second);
    delete options.extra; // and removed again: the contents of the second coder
    options.sortKeys = true;
    expect(cache.get(options)).toBe(second);
  });

  test("a coder is made from a private copy: changing one of two equal objects does not change the shared coder", () => {
    const seen: object[] = [];
    const cache = new OptionsCache<object>((options) => (seen.push(options), options));
    const a: Record<string, unknown> = { sortKeys: true };
    const b = { sortKeys: true };
    const coder = cache.get(a);
    expect(cache.get(b)).toBe(coder);
    a.sortKeys = false;
    expect(seen[0]).toEqual({ sortKeys: true });
    expect(cache.get(b)).toBe(coder);
  });

  test("the content cache is bounded (a new context object per call does not grow it)", () => {
    const { cache, made } = counted();
    const first = cache.get({ sortKeys: true });
    for (let i = 0; i < 200; i++) cache.get({ context: {} });
    expect(made.length).toBe(201);
    // the first entry was evicted: equal contents now make a new coder
    expect(cache.get({ sortKeys: true })).not.toBe(first);
    const size = (cache as unknown as { byContent: Map<string, unknown> }).byContent.size;
    expect(size).toBeLessThanOrEqual(64);
  });

  test("a symbol value is compared by identity and never keyed by contents", () => {
    const { cache, made } = counted();
    const s = Symbol("x");
    const options = { context: s };
    const a = cache.get(options);
    expect(cache.get({ context: s })).toBe(a); // the same contents as the last options
    cache.get({ other: 1 });
    expect(cache.get(options)).toBe(a); // by identity
    cache.get({ other: 1 });
    expect(cache.get({ context: s })).not.toBe(a); // no content key for a symbol: a new coder
    expect(cache.get({ context: Symbol("x") })).not.toBe(a);
    expect(made.length).toBe(4);
  });

  test("a getter on an options object is read once per lookup, not again by the coder", () => {
    const { cache, made } = counted();
    const read = vi.fn(() => true);
    const options = Object.defineProperty({}, "sortKeys", { get: read, enumerable: true });
    cache.get(options);
    expect(made).toEqual([{ sortKeys: true }]);
    const reads = read.mock.calls.length;
    cache.get(options);
    expect(read.mock.calls.length).toBe(reads + 1); // the mutation check, nothing else
  });

  test("invalid options throw on every call, never cached", () => {
    let calls = 0;
    const cache = new OptionsCache<number>((options) => {
      calls++;
      if ((options as { bad?: boolean }).bad) throw new TypeError("bad option");
      return 1;
    });
    expect(() => cache.get({ bad: true })).toThrow("bad option");
    expect(() => cache.get({ bad: true })).toThrow("bad option");
    expect(calls).toBe(2);
  });
});

describe("encode()/decode() with inline options", () => {
  const value = { b: 1, a: [1, 2], c: { z: 1, y: 2 } };

  test("an inline options literal behaves as the same options hoisted", () => {
    const hoisted = { sortKeys: true };
    expect(hex(encode(value, { sortKeys: true }))).toBe(hex(encode(value, hoisted)));
    expect(hex(encode(value, { sortKeys: true }))).toBe(hex(new Encoder({ sortKeys: true }).encode(value)));
    expect(decode(encode(value), { useMap: true })).toEqual(new Decoder({ useMap: true }).decode(encode(value)));
  });

  test("inline literals of different options, alternating, each get their own behaviour", () => {
    const v = { b: undefined, a: 1 };
    const sorted = hex(new Encoder({ sortKeys: true }).encode(v));
    const plain = hex(new Encoder().encode(v));
    const pruned = hex(new Encoder({ ignoreUndefined: true }).encode(v));
    for (let i = 0; i < 3; i++) {
      expect(hex(encode(v, { sortKeys: true }))).toBe(sorted);
      expect(hex(encode(v, {}))).toBe(plain);
      expect(hex(encode(v, { ignoreUndefined: true }))).toBe(pruned);
      expect(hex(encode(v, { sortKeys: false }))).toBe(plain);
    }
  });

  test("mutating an options object after first use takes effect (encode)", () => {
    const options: { sortKeys?: boolean; ignoreUndefined?: boolean } = {};
    const v = { b: 1, a: undefined };
    expect(hex(encode(v, options))).toBe(hex(new Encoder().encode(v)));
    options.sortKeys = true;
    expect(hex(encode(v, options))).toBe(hex(new Encoder({ sortKeys: true }).encode(v)));
    options.ignoreUndefined = true;
    expect(hex(encode(v, options))).toBe(hex(new Encoder({ sortKeys: true, ignoreUndefined: true }).encode(v)));
    options.sortKeys = false;
    expect(hex(encode(v, options))).toBe(hex(new Encoder({ ignoreUndefined: true }).encode(v)));
  });

  test("null options are no options (as in @msgpack/msgpack); a primitive reaches the constructor uncached", () => {
    const v = { b: 1, a: 2 };
    encode(v, {}); // an empty options object is the last one seen
    expect(hex(encode(v, null as unknown as undefined))).toBe(hex(encode(v)));
    expect(decode(encode(v), null as unknown as undefined)).toEqual(v);
    const { cache, made } = counted();
    cache.get({});
    cache.get(5 as unknown as object);
    cache.get(5 as unknown as object);
    expect(made.length).toBe(3);
  });

  test("mutating an options object after first use takes effect (decode)", () => {
    const options: { useMap?: boolean } = {};
    const bytes = encode({ a: 1 });
    expect(decode(bytes, options)).toEqual({ a: 1 });
    options.useMap = true;
    expect(decode(bytes, options)).toEqual(new Map([["a", 1]]));
  });
});

describe("encoders share their scratch only while not running", () => {
  test("an extension that calls encode() inside encode(), with the same and other options, gets correct bytes", () => {
    const codec = new ExtensionCodec();
    class Point {
      readonly x: number;
      readonly y: string;
      constructor(x: number, y: string) {
        this.x = x;
        this.y = y;
      }
    }
    codec.register({
      type: 1,
      // re-entrant calls: inline options equal to the outer ones, the default encoder, a long string, a large value
      encode: (p: unknown) =>
        p instanceof Point
          ? new Uint8Array([
              ...encode({ y: p.y, x: p.x }, { extensionCodec: codec, sortKeys: true }),
              ...encode(p.y.repeat(2000)),
              ...encode(new Array(30_000).fill(p.x)),
            ])
          : null,
      decode: (data) => data,
    });
    const points = Array.from({ length: 8 }, (_, i) => new Point(i, `p${i}`));
    const value = { points, tail: "after the extensions" };
    const out = encode(value, { extensionCodec: codec, sortKeys: true });
    // the same value by hand: each payload built by fresh encoders, none of them shared
    const payload = (p: Point) =>
      new Uint8Array([
        ...new Encoder({ sortKeys: true }).encode({ x: p.x, y: p.y }),
        ...new Encoder().encode(p.y.repeat(2000)),
        ...new Encoder().encode(new Array(30_000).fill(p.x)),
      ]);
    const expected = new Encoder({ sortKeys: true }).encode({ points: points.map((p) => new ExtData(1, payload(p))), tail: value.tail });
    expect(hex(out)).toBe(hex(expected));
  });

  test("a re-entrant call on the same Encoder while it runs gets correct bytes on both levels", () => {
    const codec = new ExtensionCodec();
    let encoder: Encoder<undefined>;
    codec.register({ type: 2, encode: (v: unknown) => (v instanceof Set ? encoder.encode([...v].map(String)) : null), decode: (d) => d });
    encoder = new Encoder({ extensionCodec: codec });
    const value = [new Set([1, 2]), "x".repeat(300_000), new Set([3])];
    const decoded = decode(encoder.encode(value), { extensionCodec: codec }) as unknown[];
    expect(decode(decoded[0] as Uint8Array)).toEqual(["1", "2"]);
    expect(decoded[1]).toBe(value[1]);
    expect(decode(decoded[2] as Uint8Array)).toEqual(["3"]);
  });
});

