/**
 * The decoder against hostile and careless input: map keys chosen to
 * collide in a hash table, key order when a map turns into a `Map`,
 * nesting through extensions and past the call stack, bad arguments and
 * options.
 */
import { describe, expect, test } from "vitest";
import { decode, DecodeError, decodeMulti, decodeMultiStream, Decoder, type DecodeOptions, encode, ExtData, ExtensionCodec } from "../src/index.ts";
import { KeyCache } from "../src/decode/key-cache.ts";
import { fromHex } from "./_support/arbitrary.ts";
import { collidingFloats } from "./_support/v8-hash.ts";
import { atStackSizes, DIST } from "./_support/stack-child.ts";

/** Runs `run` and returns the DecodeError it throws, failing on anything else. */
function failure(run: () => unknown): DecodeError {
  try {
    run();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${String(e)}`);
  }
  throw new Error("expected a DecodeError, but it succeeded");
}

/** A map 16/32 header and `keys` each followed by the value 0 (nil). */
function mapOf(keys: Uint8Array[]): Uint8Array {
  const n = keys.length;
  const header = n < 0x10000 ? [0xde, n >> 8, n & 255] : [0xdf, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  const out = new Uint8Array(header.length + keys.reduce((s, k) => s + k.length + 1, 0));
  out.set(header);
  let at = header.length;
  for (const k of keys) {
    out.set(k, at);
    out[at + k.length] = 0xc0;
    at += k.length + 1;
  }
  return out;
}

describe("decode() map keys", () => {
  test("number and bigint keys become string property names", () => {
    const m = new Map<unknown, string>([[1, "a"], [1.5, "b"], [-3, "c"], ["x", "d"]]);
    const obj = decode(encode(m)) as Record<string, string>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(obj).toEqual({ "1": "a", "1.5": "b", "-3": "c", x: "d" });
    // uint 64 key past 2^53: a bigint, as its decimal digits
    expect(decode(fromHex("81-cf-ff-ff-ff-ff-ff-ff-ff-ff-01"))).toEqual({ "18446744073709551615": 1 });
    // 1 and "1" are one key: the later value wins
    expect(decode(fromHex("82-01-0a-a1-31-0b"))).toEqual({ "1": 11 });
  });

  test("useMap keeps keys as decoded", () => {
    const m = decode(encode(new Map<unknown, number>([[1, 1], [1.5, 2], ["1", 3]])), { useMap: true }) as Map<unknown, number>;
    expect([...m]).toEqual([[1, 1], [1.5, 2], ["1", 3]]);
  });

  test.each([
    ["binary", "c4-01-07", new Uint8Array([7])],
    ["boolean", "c3", true],
    ["nil", "c0", null],
    ["array", "91-01", [1]],
    ["map", "81-a1-61-01", { a: 1 }],
    ["extension", "d4-05-09", new ExtData(5, new Uint8Array([9]))],
  ])("a %s key switches to a Map in wire order, number keys still strings", (_, keyHex, key) => {
    // {"b": 1, "1": 2, 5: 3, <key>: 4, 2: 5, "c": 6}: an object would list "1" and "5" first
    const bytes = fromHex(`86-a1-62-01-a1-31-02-05-03-${keyHex}-04-02-05-a1-63-06`);
    const m = decode(bytes) as Map<unknown, unknown>;
    expect(m).toBeInstanceOf(Map);
    expect([...m]).toEqual([["b", 1], ["1", 2], ["5", 3], [key, 4], ["2", 5], ["c", 6]]);
  });

  test("the switch keeps wire order with repeated keys and a __proto__ key", () => {
    const bytes = fromHex("85-a9-5f-5f-70-72-6f-74-6f-5f-5f-01-07-02-a1-37-03-a1-61-04-c2-05");
    const m = decode(bytes) as Map<unknown, unknown>;
    expect([...m]).toEqual([["__proto__", 1], ["7", 3], ["a", 4], [false, 5]]);
  });

  test("a map of 100,000 float keys that share a hash bucket decodes to a plain object of their names, never a table keyed by the numbers", () => {
    // V8 hashes numbers without a seed: these floats share one bucket of any Map or
    // Set keyed by them. Property names are strings, whose hashes are seeded.
    const n = 100_000;
    const floats = collidingFloats(n);
    const obj = decode(mapOf(floats.map((f) => encode(f)))) as Record<string, null>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    const names = Object.keys(obj);
    expect(names.length).toBe(n);
    // in wire order, each the number's own string (none of them is an array index)
    const wrong = names.findIndex((k, i) => k !== String(floats[i]) || obj[k] !== null);
    expect(wrong).toBe(-1);
  }, 120_000);
});

/** A Set as extension type 1, decoded by `decodeInner` (re-entrant). */
function setCodec(decodeInner: (data: Uint8Array, codec: ExtensionCodec) => unknown): ExtensionCodec {
  const codec = new ExtensionCodec();
  codec.register({
    type: 1,
    encode: (v) => (v instanceof Set ? encode([...v], { extensionCodec: codec }) : null),
    decode: (data) => new Set(decodeInner(data, codec) as unknown[]),
  });
  return codec;
}

/** The ext header of extension type `type` with an `n`-byte payload. */
function extHeader(n: number, type: number): number[] {
  return n < 256 ? [0xc7, n, type] : n < 65536 ? [0xc8, n >> 8, n & 255, type] : [0xc9, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255, type];
}

/**
 * `levels` extensions of `type`, each holding the next (after `prefix`,
 * 0x91 for a Set's one-item array) around `inner`: written by hand, as no
 * encoder nests so deep, in one pass.
 */
function nested(levels: number, inner: Uint8Array, type = 1, prefix = [0x91]): Uint8Array {
  const sizes = [inner.length];
  for (let i = 0; i < levels; i++) {
    const payload = prefix.length + sizes[i]!;
    sizes.push(extHeader(payload, type).length + payload);
  }
  const out = new Uint8Array(sizes[levels]!);
  let at = 0;
  for (let i = levels; i > 0; i--) {
    const header = [...extHeader(prefix.length + sizes[i - 1]!, type), ...prefix];
    out.set(header, at);
    at += header.length;
  }
  out.set(inner, at);
  return out;
}

/** `levels` Sets, each holding the next, around `inner` (an empty array). */
function nestedSets(levels: number, inner: Uint8Array = new Uint8Array([0x90])): Uint8Array {
  return nested(levels, inner);
}

describe("decode() nesting through extensions", () => {
  const reentrant: [string, (data: Uint8Array, codec: ExtensionCodec) => unknown][] = [
    ["decode() with a new options object", (data, codec) => decode(data, { extensionCodec: codec })],
    ["a new Decoder", (data, codec) => new Decoder({ extensionCodec: codec }).decode(data)],
    ["decodeMulti()", (data, codec) => [...decodeMulti(data, { extensionCodec: codec })][0]],
  ];

  test.each(reentrant)("1,000 nested Sets decoded through %s: MAX_DEPTH, not a stack overflow", (_, inner) => {
    const codec = setCodec(inner);
    const bytes = nestedSets(1000);
    expect(bytes.length).toBeLessThan(8000);
    const e = failure(() => decode(bytes, { extensionCodec: codec }));
    expect(e.code).toBe("MAX_DEPTH");
    expect(e.message).toMatch(/^Cannot decode container at offset \d+: too deep, deeper than maxDepth \(512\)$/);
    // the decoders are fine afterwards, and 200 levels (400 deep) decode
    expect(decode(nestedSets(200), { extensionCodec: codec })).toBeInstanceOf(Set);
  });

  test("an extension and the array in it are a level each", () => {
    // Set([Set([[]])]): extension, array, extension, array, array: 5 levels, as [[[[[]]]]]
    for (const maxDepth of [4, 5]) {
      const codec = setCodec((data, c) => decode(data, { extensionCodec: c, maxDepth }));
      const sets = () => decode(nestedSets(2), { extensionCodec: codec, maxDepth });
      const arrays = () => decode(encode([[[[[]]]]]), { maxDepth });
      if (maxDepth === 5) {
        expect(sets()).toEqual(new Set([new Set([[]])]));
        expect(arrays()).toEqual([[[[[]]]]]);
      } else {
        expect(failure(sets).code).toBe("MAX_DEPTH");
        expect(failure(arrays).code).toBe("MAX_DEPTH");
      }
    }
  });

  test.each(reentrant)("an error in a payload decoded by %s has its offset in the outer input; a decode of a copy keeps its own", (_, inner) => {
    // Set([Set([[], 0xc1])]): the reserved byte inside two extension payloads, at the input's last byte
    const bytes = nestedSets(2, Uint8Array.of(0x92, 0x90, 0xc1));
    const at = bytes.length - 1;
    const codec = setCodec(inner);
    for (const run of [() => decode(bytes, { extensionCodec: codec }), () => new Decoder({ extensionCodec: codec }).decode(bytes)]) {
      const e = failure(run);
      expect(e).toMatchObject({ code: "INVALID_BYTE", offset: at });
      expect(e.message).toBe(`Cannot decode value at offset ${at}: unrecognized type byte 0xc1 (reserved)`);
    }
    const copying = setCodec((data, c) => inner(data.slice(), c));
    expect(failure(() => decode(bytes, { extensionCodec: copying }))).toMatchObject({ code: "INVALID_BYTE", offset: 3 });
  });

  test("other bytes decoded inside an extension decoder start at depth 0 and offset 0: only its payload continues the outer decode", () => {
    // [[[1]]] takes three levels: under maxDepth 3 it decodes on its own, and inside an extension decoder too
    const other = encode([[[1]]]);
    const broken = Uint8Array.of(0x91, 0x91, 0x91, 0xc1); // the reserved byte at offset 3 of the other input
    const codec = new ExtensionCodec();
    const seen: unknown[] = [];
    codec.register({
      type: 5,
      encode: () => null,
      decode: (data) => {
        seen.push(decode(other, { maxDepth: 3 }), failure(() => decode(broken)).offset);
        return failure(() => decode(data, { extensionCodec: codec, maxDepth: 3 })).code; // the payload, one level down: [[1]] reaches depth 3
      },
    });
    const message = Uint8Array.of(0x91, 0xc7, other.length - 1, 5, ...other.subarray(1)); // [ext 5 holding [[1]]]
    expect(decode(message, { extensionCodec: codec, maxDepth: 3 })).toEqual(["MAX_DEPTH"]);
    expect(seen).toEqual([[[[1]]], 3]);
  });

  test("a bare extension inside an extension counts too: no chain of them reaches the stack", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 2, encode: () => null, decode: (data) => ({ inner: decode(data, { extensionCodec: codec }) }) });
    const bytes = nested(3000, new Uint8Array([0xc0]), 2, []);
    expect(failure(() => decode(bytes, { extensionCodec: codec })).code).toBe("MAX_DEPTH");
  });

  test("extension decoders get views of the input, not copies; ExtData of unknown types are copies", () => {
    const seen: Uint8Array[] = [];
    const codec = setCodec((data, c) => {
      seen.push(data);
      return decode(data, { extensionCodec: c });
    });
    const bytes = nestedSets(5, encode([new ExtData(9, new Uint8Array([1, 2, 3]))]));
    const inner = [...(decode(bytes, { extensionCodec: codec }) as Set<Set<Set<Set<Set<unknown[]>>>>>)][0]!;
    expect(seen.length).toBe(5);
    for (const data of seen) {
      expect(data.buffer).toBe(bytes.buffer);
      expect(data.constructor).toBe(Uint8Array);
    }
    const ext = [...[...[...[...inner][0]!][0]!][0]!][0]![0] as ExtData;
    expect(ext).toBeInstanceOf(ExtData);
    expect([...ext.data]).toEqual([1, 2, 3]);
    expect(ext.data.buffer).not.toBe(bytes.buffer);
  });

  test("700 levels around a 2 MB binary: each level gets the same buffer, nothing is copied per level", () => {
    const seen = new Set<ArrayBufferLike>();
    const codec = setCodec((data, c) => {
      seen.add(data.buffer);
      return decode(data, { extensionCodec: c, maxDepth: 2000 });
    });
    const bytes = nestedSets(700, encode([new Uint8Array(2_000_000)]));
    const value = decode(bytes, { extensionCodec: codec, maxDepth: 2000 });
    expect(value).toBeInstanceOf(Set);
    expect([...seen]).toEqual([bytes.buffer]);
  });
});

describe("decode() nesting past the call stack", () => {
  const deepArrays = new Uint8Array(1_000_001).fill(0x91);
  deepArrays[1_000_000] = 0xc0;

  test.each([
    ["decode()", (b: Uint8Array, o: DecodeOptions) => decode(b, o)],
    ["Decoder#readAt() (the stream decoders' core)", (b: Uint8Array, o: DecodeOptions) => new Decoder(o).readAt(b, 0, 0, 0, null)[0]],
  ])("1,000,000 nested arrays under maxDepth 1e6 through %s: a MAX_DEPTH DecodeError", (_, run) => {
    for (const maxDepth of [1e6, Infinity]) {
      const e = failure(() => run(deepArrays, { maxDepth }));
      expect(e.code).toBe("MAX_DEPTH");
      expect(e.message).toMatch(/^Cannot decode container at offset \d+: nested too deep for the call stack$/);
      expect(e).toBeInstanceOf(RangeError);
    }
    expect(run(encode([[1]]), {})).toEqual([[1]]);
  });

  test("100,000 nested extensions under maxDepth 1e6: a MAX_DEPTH DecodeError, and the decoders recover", () => {
    const decoder: Decoder = new Decoder({ maxDepth: 1e6, extensionCodec: setCodec((data): unknown => decoder.decode(data)) });
    const e = failure(() => decoder.decode(nestedSets(100_000)));
    expect(e.code).toBe("MAX_DEPTH");
    expect(decoder.decode(nestedSets(3))).toEqual(new Set([new Set([new Set([[]])])]));
    expect(decode(encode({ a: 1 }))).toEqual({ a: 1 });
  });

  // The overflow is caught by the innermost decode, near the stack limit: a RegExp compiled there
  // (V8 tiers a regexp up to native code on its second use) ended the process with "FATAL ERROR:
  // RegExpCompiler Allocation failed". Run in a child, from the built package, as a crash would end
  // the test worker. Where the overflow lands depends on the stack size, so several are tried.
  test("stack overflows deep inside re-entrant extension decoders, 200 times: the process survives, every one is MAX_DEPTH", async () => {
    const script = `
      import { decode, ExtensionCodec } from ${JSON.stringify(DIST + "index.js")};
      const levels = 20000, sizes = [1];
      const head = (n) => (n < 256 ? [0xc7, n, 1] : n < 65536 ? [0xc8, n >> 8, n & 255, 1] : [0xc9, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255, 1]);
      for (let i = 0; i < levels; i++) sizes.push(head(sizes[i] + 1).length + sizes[i] + 1);
      const bytes = new Uint8Array(sizes[levels]);
      let at = 0;
      for (let i = levels; i > 0; i--) { const h = [...head(sizes[i - 1] + 1), 0x91]; bytes.set(h, at); at += h.length; }
      bytes[at] = 0x90;
      const codec = new ExtensionCodec();
      const options = { extensionCodec: codec, maxDepth: Infinity };
      codec.register({ type: 1, encode: () => null, decode: (data) => new Set(decode(data, options)) });
      const codes = new Set();
      for (let i = 0; i < 200; i++) {
        const from = (n) => (n === 0 ? (() => { try { decode(bytes, options); } catch (e) { return e.code ?? String(e); } })() : from(n - 1));
        codes.add(from(i % 37));
      }
      console.log(JSON.stringify([...codes]));
    `;
    for (const [stackSize, out] of await atStackSizes(script, [500, 700, 800, 950])) expect(out, `--stack-size=${stackSize}`).toEqual(["MAX_DEPTH"]);
  }, 120_000);

  test("an extension decoder's own errors pass through unchanged", () => {
    const codec = new ExtensionCodec();
    const mine = new RangeError("mine");
    codec.register({ type: 3, encode: () => null, decode: () => { throw mine; } });
    expect(() => decode(encode(new ExtData(3, new Uint8Array(1))), { extensionCodec: codec })).toThrow(mine);
  });
});

describe("decode() of an input that shrinks while it is read", () => {
  /** [ext 1 (payload 0x00), 1, 2]: the extension decoder runs at offset 1, the items after it are at 4 and 5. */
  const message = Uint8Array.of(0x93, 0xd4, 0x01, 0x00, 0x01, 0x02);
  type Shrink = (buffer: ArrayBuffer & { resize(n: number): void }) => void;
  const shrinks: [string, Shrink][] = [
    ["resized to 4 bytes", (b) => b.resize(4)],
    ["resized to 0 bytes", (b) => b.resize(0)],
    ["detached", (b) => void structuredClone(b, { transfer: [b] })],
  ];
  const views: [string, (b: ArrayBuffer) => Uint8Array][] = [
    ["a length-tracking view", (b) => new Uint8Array(b)],
    ["a fixed-length view", (b) => new Uint8Array(b, 0, message.length)],
  ];
  /** `content` in a resizable buffer of its size, viewed by `make`. */
  function input(make: (b: ArrayBuffer) => Uint8Array, content = message): [Uint8Array, ArrayBuffer & { resize(n: number): void }] {
    const buffer = new ArrayBuffer(content.length, { maxByteLength: 64 }) as ArrayBuffer & { resize(n: number): void };
    const bytes = make(buffer);
    bytes.set(content);
    return [bytes, buffer];
  }

  for (const [how, shrink] of shrinks) {
    test.each(views)(`an extension decoder that leaves the buffer ${how}, under %s: a DecodeError, not the missing bytes read as values`, (_, make) => {
      const [bytes, buffer] = input(make);
      const codec = new ExtensionCodec();
      codec.register({ type: 1, encode: () => null, decode: () => (shrink(buffer), "ext") });
      const e = failure(() => decode(bytes, { extensionCodec: codec }));
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", offset: 4 });
      expect(e.message).toMatch(/^Cannot decode value at offset 4: the input shrank to \d+ bytes, short of offset 6, while it was decoded$/);
    });
  }

  test("a mapKeyConverter that shrinks the buffer: a DecodeError at the value after the key", () => {
    const [bytes, buffer] = input((b) => new Uint8Array(b), encode({ a: 1, b: 2 })); // 82 a1 61 01 a1 62 02
    const convert = (k: unknown): string => (buffer.resize(3), k as string);
    expect(failure(() => decode(bytes, { mapKeyConverter: convert }))).toMatchObject({ code: "INVALID_ARGUMENT", offset: 3 });
  });

  test("a stream decoder whose chunk shrinks under an extension decoder: the same DecodeError, at its stream offset", async () => {
    const [bytes, buffer] = input((b) => new Uint8Array(b));
    const codec = new ExtensionCodec();
    codec.register({ type: 1, encode: () => null, decode: () => (buffer.resize(4), "ext") });
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Uint8Array.of(0xc0, 0xc0);
      yield bytes;
    }
    const values: unknown[] = [];
    let error: unknown;
    try {
      for await (const v of decodeMultiStream(chunks(), { extensionCodec: codec })) values.push(v);
    } catch (e) {
      error = e;
    }
    expect(values).toEqual([null, null]);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", offset: 6 });
  });
});

describe("decode() arguments", () => {
  test.each([
    ["a string", "abc".repeat(20), /^Cannot decode: the input is "abcabcabcabcabcabcabcabcabcabcabcabcabca\.\.\.", not a Uint8Array, ArrayBuffer, view or array of bytes$/],
    ["null", null, /the input is null, not a Uint8Array/],
    ["a number", 3, /the input is 3, not/],
    ["undefined", undefined, /the input is undefined, not/],
    ["an object", { a: 1 }, /the input is \[object Object\], not/],
  ])("input that is %s: INVALID_ARGUMENT from every entry point", (_, input, message) => {
    for (const run of [
      () => decode(input as never),
      () => decodeMulti(input as never),
      () => new Decoder().decode(input as never),
    ]) {
      const e = failure(run);
      expect(e.code).toBe("INVALID_ARGUMENT");
      expect(e.offset).toBe(0);
      expect(e.message).toMatch(message);
    }
  });

  test("the Decoder has no decodeAt or readArrayHeader: the stream decoders' building blocks are internal", () => {
    for (const name of ["decodeAt", "readArrayHeader"]) expect(name in new Decoder(), name).toBe(false);
  });

  test("Decoder#readAt() with a base reports every error with the offsets of the input the bytes came from", () => {
    // the stream decoders decode a buffer whose index 0 is at some stream offset: each error (code,
    // offset, needed, message) is the one of a decode at that offset of the whole input
    const nested = new ExtensionCodec();
    nested.register({ type: 5, encode: () => null, decode: (data) => decode(data) });
    const longBad = new Uint8Array(200).fill(0x61);
    longBad[150] = 0xff;
    const cases: [string, Uint8Array, DecodeOptions][] = [
      ["a truncated string", encode("hello").subarray(0, 3), {}],
      ["a reserved byte", Uint8Array.of(0x92, 0x01, 0xc1), {}],
      ["an array over maxArrayLength", encode([1, 2, 3]), { maxArrayLength: 2 }],
      ["nesting past maxDepth", Uint8Array.of(0x91, 0x91, 0x91, 0xc0), { maxDepth: 2 }],
      ["invalid UTF-8 in a short string", Uint8Array.of(0x91, 0xa2, 0xc3, 0x28), {}],
      ["invalid UTF-8 in a long string", Uint8Array.of(0x91, 0xd9, 200, ...longBad), {}],
      ["invalid UTF-8 in a map key", Uint8Array.of(0x81, 0xa2, 0xc3, 0x28, 0x01), {}],
      ["a map key the converter refuses", encode({ a: 1 }), { mapKeyConverter: (() => null) as never }],
      ["a bad timestamp", Uint8Array.of(0x91, 0xd4, 0xff, 0x00), {}],
      ["a bad value inside an extension's own decode", Uint8Array.of(0x91, 0xd6, 5, 0x92, 0x01, 0xc1, 0xc0), { extensionCodec: nested }],
    ];
    for (const [name, bytes, options] of cases) {
      const decoder = new Decoder(options);
      for (const base of [1, 1000]) {
        const whole = new Uint8Array(base + bytes.length);
        whole.set(bytes, base);
        const want = failure(() => decoder.readAt(whole, base, 0, 0, null));
        const got = failure(() => decoder.readAt(whole.subarray(base), 0, base, 0, null));
        expect(want.offset, name).toBeGreaterThanOrEqual(base);
        expect({ code: got.code, offset: got.offset, needed: got.needed, message: got.message }, name).toEqual({
          code: want.code,
          offset: want.offset,
          needed: want.needed,
          message: want.message,
        });
      }
    }
  });

  test("a Node Buffer never yields Buffer views: binaries are plain copies from decode and decodeMulti", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 4, encode: () => null, decode: (data) => data.constructor });
    const buf = Buffer.from(encode({ b: new Uint8Array([1, 2]), e: new ExtData(9, new Uint8Array([3])), c: new ExtData(4, new Uint8Array([5])) }));
    const results = [
      decode(buf, { extensionCodec: codec }),
      [...decodeMulti(buf, { extensionCodec: codec })][0],
    ] as { b: Uint8Array; e: ExtData; c: unknown }[];
    for (const out of results) {
      expect(out.b.constructor).toBe(Uint8Array);
      expect(out.e.data.constructor).toBe(Uint8Array);
      expect(out.c).toBe(Uint8Array); // the extension decoder's view is a plain Uint8Array too
      expect(out.b.buffer).not.toBe(buf.buffer);
      expect(out.e.data.buffer).not.toBe(buf.buffer);
    }
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ["int64", { int64: "bogus" }, /^Cannot decode: option int64 is "bogus", not "auto", "number" or "bigint"$/],
    ["maxDepth", { maxDepth: -1 }, /^Cannot decode: option maxDepth is -1, not a non-negative integer$/],
    ["maxDepth", { maxDepth: 1.5 }, /option maxDepth is 1.5, not a non-negative integer/],
    ["maxStrLength", { maxStrLength: "x" }, /option maxStrLength is "x", not a non-negative integer/],
    ["maxBinLength", { maxBinLength: NaN }, /option maxBinLength is NaN/],
    ["maxArrayLength", { maxArrayLength: null }, /option maxArrayLength is null/],
    ["maxMapLength", { maxMapLength: -0.5 }, /option maxMapLength/],
    ["maxExtLength", { maxExtLength: 10n }, /option maxExtLength is 10n, not a non-negative integer/],
    ["useMap", { useMap: "yes" }, /option useMap is "yes", not a boolean/],
    ["useBigInt64", { useBigInt64: 1 }, /option useBigInt64 is 1, not a boolean/],
    ["binaryAsView", { binaryAsView: null }, /option binaryAsView is null, not a boolean/],
    ["rawStrings", { rawStrings: "true" }, /option rawStrings/],
    ["mapKeyConverter", { mapKeyConverter: 5 }, /option mapKeyConverter is 5, not a function/],
    ["extensionCodec", { extensionCodec: {} }, /option extensionCodec is \[object Object\], not an ExtensionCodec/],
  ])("an invalid %s option: INVALID_ARGUMENT when the decoder is made, and from decode()", (_, options, message) => {
    for (const run of [() => new Decoder(options as DecodeOptions), () => decode(encode(1), options as DecodeOptions)]) {
      const e = failure(run);
      expect(e.code).toBe("INVALID_ARGUMENT");
      expect(e.message).toMatch(message);
    }
  });

  test("options that are not an object are refused; null and undefined fields mean the defaults", () => {
    const e = failure(() => new Decoder("fast" as never));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toMatch(/the options argument is "fast", not an object/);
    const all: DecodeOptions = { maxDepth: undefined, useMap: undefined, int64: undefined, rawStrings: undefined, mapKeyConverter: undefined, extensionCodec: undefined };
    expect(new Decoder(all).decode(encode({ a: [1] }))).toEqual({ a: [1] });
    expect(new Decoder({ maxDepth: Infinity, maxStrLength: Infinity }).decode(encode(["x"]))).toEqual(["x"]);
  });

  test("a mapKeyConverter returning neither a string nor a number: INVALID_KEY at the key", () => {
    for (const bad of [true, null, undefined, {}, 1n]) {
      const mapKeyConverter = (): never => bad as never;
      const e = failure(() => decode(fromHex("92-01-81-a1-61-02"), { mapKeyConverter }));
      expect(e.code).toBe("INVALID_KEY");
      expect(e.offset).toBe(3);
      expect(e.message).toMatch(/^Cannot decode map key at offset 3: mapKeyConverter returned \w+, not a string or number$/);
    }
  });
});

describe("the map-key cache never pairs bytes with another key's string", () => {
  test("bytes that change while a key is looked up (a SharedArrayBuffer another thread writes) leave every slot's string equal to its own bytes decoded", () => {
    const x = new TextEncoder().encode("aab");
    const y = new TextEncoder().encode("eie");
    // for every interleaving: each index reads as X for its first `k` reads, then as Y
    for (let k = 1; k <= 4; k++) {
      const cache = new KeyCache();
      const reads = new Map<number, number>();
      const changing = new Proxy(new Uint8Array(3), {
        get(target, name) {
          if (typeof name === "string" && /^\d+$/.test(name)) {
            const i = Number(name);
            const r = (reads.get(i) ?? 0) + 1;
            reads.set(i, r);
            return r <= k ? x[i] : y[i];
          }
          return Reflect.get(target, name);
        },
      }) as Uint8Array;
      const got = cache.get(changing, 0, 3);
      expect(["aab", "eie"], `k=${k}`).toContain(got);
      const inner = cache as unknown as { bytes: Uint8Array; lengths: Uint8Array; strings: string[] };
      for (let slot = 0; slot < inner.lengths.length; slot++) {
        const n = inner.lengths[slot]! - 1;
        if (n < 0) continue;
        expect(inner.strings[slot], `k=${k}, slot ${slot}`).toBe(new TextDecoder().decode(inner.bytes.subarray(slot * 16, slot * 16 + n)));
      }
      expect(cache.get(y, 0, 3)).toBe("eie");
      expect(cache.get(x, 0, 3)).toBe("aab");
    }
    expect(decode(encode({ eie: 1 }))).toEqual({ eie: 1 });
  });

  test("a key that is not UTF-8 leaves its slot empty, and the decoder reports it at the key's offset", () => {
    const cache = new KeyCache();
    const bad = Uint8Array.of(0, 0, 0x61, 0xff);
    expect(cache.get(bad, 2, 2)).toBeNull();
    const inner = cache as unknown as { lengths: Uint8Array };
    expect(inner.lengths.every((l) => l === 0)).toBe(true);
    // a map of one entry whose key "a\xff" (fixstr 2 at offset 1, its bytes at 2) is not UTF-8
    const map = Uint8Array.of(0x81, 0xa2, 0x61, 0xff, 0x01);
    expect(() => decode(map)).toThrow(expect.objectContaining({ code: "INVALID_UTF8", offset: 2 }));
  });

  test("the empty string, met in many places of many inputs, takes no slot", () => {
    const cache = new KeyCache();
    for (let i = 0; i < 2000; i++) {
      const input = Uint8Array.of(i & 0xff, (i >> 8) & 0xff, 0xa0, (i * 7) & 0xff); // its header, bytes around it
      expect(cache.get(input, 3, 0)).toBe("");
    }
    expect((cache as unknown as { lengths: Uint8Array }).lengths.every((l) => l === 0)).toBe(true);
    expect(decode(encode({ "": "", a: ["", "x", ""] }))).toEqual({ "": "", a: ["", "x", ""] });
  });

  test("two keys of the same hash both stay cached; a third takes the place of one of them", () => {
    const utf8 = new TextEncoder();
    type Inner = { strings: string[]; lengths: Uint8Array };
    const held = (cache: KeyCache): string[] => {
      const inner = cache as unknown as Inner;
      return inner.strings.filter((_, slot) => inner.lengths[slot] !== 0);
    };
    const look = (cache: KeyCache, key: string): string => cache.get(utf8.encode(key), 0, utf8.encode(key).length) ?? "(not UTF-8)";
    /** The slot a key takes when both slots of its pair are full: the first slot of its hash. */
    const probe = new KeyCache();
    const inner = probe as unknown as Inner;
    inner.lengths.fill(0xff); // no key's length: every slot full, none matches
    const firstSlot = (key: string): number => {
      look(probe, key);
      const slot = inner.strings.indexOf(key);
      inner.lengths[slot] = 0xff;
      inner.strings[slot] = "";
      return slot;
    };
    // keys of the same first slot as `first`: a cache of one slot per hash would keep one of them
    const first = "attrs";
    const sharing: string[] = [];
    const target = firstSlot(first);
    for (let i = 0; sharing.length < 2 && i < 200_000; i++) {
      const key = `k${i.toString(36)}`;
      if (firstSlot(key) === target) sharing.push(key);
    }
    expect(sharing).toHaveLength(2);
    const [second, third] = sharing as [string, string];
    const cache = new KeyCache();
    for (let round = 0; round < 3; round++) {
      expect(look(cache, first)).toBe(first);
      expect(look(cache, second)).toBe(second);
      expect(held(cache).sort()).toEqual([first, second].sort());
    }
    expect(look(cache, third)).toBe(third);
    const now = held(cache);
    expect(now).toHaveLength(2);
    expect(now).toContain(third);
    expect(look(cache, first) + look(cache, second) + look(cache, third)).toBe(first + second + third);
  });
});
