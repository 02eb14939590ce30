import { describe, expect, test, vi } from "vitest";
import { decode, Decoder, encode, EncodeError, Encoder, ExtData, ExtensionCodec, type ExtensionCodecType } from "../src/index.ts";
// codecs of another kind (objects with tryToEncode) are installed by the entry for @msgpack/msgpack programs
import "../src/compat/msgpack.ts";
import { forSeeds, hex, type Random } from "./_support/arbitrary.ts";
import * as peer from "@msgpack/msgpack";
import { withStrategy } from "./_support/strategy.ts";
import { expectSameBytes } from "./_support/bytes.ts";

const head = (v: unknown, n = 9, options?: object) => hex(encode(v, options).subarray(0, n));

describe("encode() integer forms at every boundary", () => {
  test.each([
    [0, "00"], [127, "7f"], [128, "cc-80"], [255, "cc-ff"], [256, "cd-01-00"], [65535, "cd-ff-ff"],
    [65536, "ce-00-01-00-00"], [2 ** 32 - 1, "ce-ff-ff-ff-ff"], [2 ** 32, "cf-00-00-00-01-00-00-00-00"],
    [2 ** 53 - 1, "cf-00-1f-ff-ff-ff-ff-ff-ff"], [-1, "ff"], [-32, "e0"], [-33, "d0-df"], [-128, "d0-80"],
    [-129, "d1-ff-7f"], [-32768, "d1-80-00"], [-32769, "d2-ff-ff-7f-ff"], [-(2 ** 31), "d2-80-00-00-00"],
    [-(2 ** 31) - 1, "d3-ff-ff-ff-ff-7f-ff-ff-ff"], [-(2 ** 53 - 1), "d3-ff-e0-00-00-00-00-00-01"],
  ])("%d is written as %s", (n, bytes) => {
    expect(hex(encode(n))).toBe(bytes);
    expect(decode(encode(n))).toBe(n);
  });

  test("integers past 32 bits are uint 64 / int 64, big-endian, in arrays and maps too; float 64 with useBigInt64 (property)", () => {
    forSeeds(300, (r) => {
      const hi = r.bool() ? r.int(0, 3) : r.int(0, 0x1fffff); // near 2^32 and anywhere up to 2^53
      const n = (r.bool() ? 1 : -1) * (hi * 2 ** 32 + r.int(0, 0xffffffff));
      if (Math.abs(n) <= 0xffffffff) return; // 32-bit forms, above
      const word = new Uint8Array(9);
      word[0] = n > 0 ? 0xcf : 0xd3;
      new DataView(word.buffer).setBigInt64(1, BigInt(n));
      expect(hex(encode(n))).toBe(hex(word));
      expect(hex(encode([n, 1]))).toBe(hex(Uint8Array.of(0x92, ...word, 0x01)));
      expect(hex(encode({ t: n }))).toBe(hex(Uint8Array.of(0x81, 0xa1, 0x74, ...word)));
      expect(decode(encode([n]))).toEqual([n]);
      expect(hex(encode(n, { useBigInt64: true }))).toBe(hex(encode(n, { forceIntegerToFloat: true })));
      expect(encode(n, { useBigInt64: true })[0]).toBe(0xcb);
    });
  });

  test("non-integers, -0, NaN and ±Infinity are float 64 and round-trip exactly", () => {
    for (const n of [0.5, -0, NaN, Infinity, -Infinity, 2 ** 53, 1e300, Number.MIN_VALUE]) {
      const bytes = encode(n);
      expect(bytes[0]).toBe(0xcb);
      expect(Object.is(decode(bytes), n)).toBe(true);
    }
  });

  test("forceFloat32 writes float 32 for non-integers only", () => {
    expect(hex(encode(0.5, { forceFloat32: true }))).toBe("ca-3f-00-00-00");
    expect(hex(encode(3, { forceFloat32: true }))).toBe("03");
  });

  test("bigint is int 64 / uint 64 and round-trips as bigint in bigint mode", () => {
    expect(head(1n)).toBe("cf-00-00-00-00-00-00-00-01");
    expect(head(-1n)).toBe("d3-ff-ff-ff-ff-ff-ff-ff-ff");
    for (const n of [0n, 2n ** 64n - 1n, -(2n ** 63n), 12345678901234567890n]) {
      expect(decode(encode(n), { int64: "bigint" })).toBe(n);
    }
  });
});

describe("encode() string, binary, array, map forms at every boundary", () => {
  test.each([
    [0, 0xa0], [31, 0xbf], [32, 0xd9], [255, 0xd9], [256, 0xda], [65535, 0xda], [65536, 0xdb],
  ])("an ASCII string of %d bytes starts with 0x%s", (n, first) => {
    const s = "a".repeat(n);
    const bytes = encode(s);
    expect(bytes[0]).toBe(first);
    expect(decode(bytes)).toBe(s);
  });

  test("multi-byte strings whose UTF-8 length crosses a header boundary", () => {
    // 11 chars of 3 bytes = 33 bytes (str 8); 21846 chars = 65538 bytes (str 32)
    for (const [s, first] of [["日".repeat(10), 0xbe], ["日".repeat(11), 0xd9], ["é".repeat(127), 0xd9], ["é".repeat(128), 0xda], ["日".repeat(21845), 0xda], ["日".repeat(21846), 0xdb]] as const) {
      const bytes = encode(s);
      expect(bytes[0], `${s.length} chars`).toBe(first);
      expect(decode(bytes)).toBe(s);
    }
  });

  test("lone surrogates become U+FFFD, like TextEncoder, in short and long strings", () => {
    for (const s of ["a\ud800b", "\udc00", "x".repeat(100) + "\ud800"]) {
      const expected = s.replace(/[\ud800-\udfff]/g, "\ufffd");
      expect(decode(encode(s))).toBe(expected);
      expect(hex(encode(s).subarray(-3))).toBe(hex(new TextEncoder().encode(s).subarray(-3)));
    }
  });

  test("a long string on its own is written exactly as inside an array, whatever it holds after its ASCII start", () => {
    const ascii = (n: number) => "abcdefghij".repeat(Math.ceil(n / 10)).slice(0, n);
    const cases: [string, string][] = [
      ["all ASCII", ascii(20_000)],
      ["non-ASCII at once (normal path)", "é" + ascii(20_000)],
      ["one non-ASCII char near the end (short rest)", ascii(20_000) + "é" + ascii(10)],
      ["a pair split by the first pass's room", ascii(20_000) + "😀".repeat(3)],
      ["a lone surrogate at the end", ascii(20_000) + "\ud800"],
      ["a lone low surrogate after a pair", ascii(20_000) + "😀\udc00x"],
      ["ASCII, then a long non-ASCII rest", ascii(1_000) + "日本語😀".repeat(10_000)],
      ["ASCII under str 16, non-ASCII pushes it to str 32", ascii(65_000) + "日".repeat(300)],
      ["ASCII exactly 65535 bytes", ascii(65_535)],
      ["ASCII 65536 bytes (str 32)", ascii(65_536)],
    ];
    for (const [what, s] of cases) {
      const alone = encode(s);
      const inArray = encode([s]).subarray(1);
      expect(hex(alone.subarray(0, 5)), what).toBe(hex(inArray.subarray(0, 5)));
      expect(Buffer.compare(alone, inArray), what).toBe(0);
      expect(alone.buffer.byteLength, what).toBe(alone.length); // exact-size result
      expect(decode(alone), what).toBe(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"));
    }
  });

  test.each([
    [0, "c4-00"], [255, "c4-ff"], [256, "c5-01-00"], [65535, "c5-ff-ff"], [65536, "c6-00-01-00-00"],
  ])("a binary of %d bytes has header %s", (n, header) => {
    const bin = new Uint8Array(n).fill(7);
    const bytes = encode(bin);
    expect(hex(bytes.subarray(0, header.split("-").length))).toBe(header);
    expect(decode(bytes)).toEqual(bin);
  });

  test.each([
    [15, "9f"], [16, "dc-00-10"], [65535, "dc-ff-ff"], [65536, "dd-00-01-00-00"],
  ])("an array of %d items has header %s", (n, header) => {
    const arr = new Array(n).fill(1);
    expect(hex(encode(arr).subarray(0, header.split("-").length))).toBe(header);
    expect(decode(encode(arr))).toEqual(arr);
  });

  test.each([
    [15, "8f"], [16, "de-00-10"], [65536, "df-00-01-00-00"],
  ])("a map of %d entries has header %s", (n, header) => {
    const obj = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(hex(encode(obj).subarray(0, header.split("-").length))).toBe(header);
    expect(decode(encode(obj))).toEqual(obj);
  });
});

describe("encode() of other types", () => {
  test("every typed array, DataView and ArrayBuffer is a bin of exactly its bytes", () => {
    const base = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    const views = [
      new Uint8Array(base.buffer, 1, 8), new Int8Array(base.buffer, 2, 4), new Uint16Array(base.buffer, 2, 3),
      new Float64Array(base.buffer, 8, 1), new BigInt64Array(base.buffer, 8, 1), new DataView(base.buffer, 3, 5),
      new Uint8ClampedArray(base.buffer, 0, 2), new Float32Array(base.buffer, 4, 2),
    ];
    for (const v of views) {
      const expected = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      expect(decode(encode(v))).toEqual(expected);
    }
    expect(decode(encode(base.buffer))).toEqual(base);
  });

  test("Date is a timestamp in its shortest form and Invalid Date is an EncodeError", () => {
    expect(head(new Date(0), 2)).toBe("d6-ff"); // timestamp 32
    expect(head(new Date(1), 2)).toBe("d7-ff"); // timestamp 64
    expect(head(new Date(-1), 3)).toBe("c7-0c-ff"); // timestamp 96
    expect(head(new Date(2 ** 34 * 1000), 3)).toBe("c7-0c-ff");
    for (const ms of [0, 1, -1, 1.6e12, -8.64e15, 8.64e15, 2 ** 32 * 1000, 2 ** 32 * 1000 - 1]) {
      expect((decode(encode(new Date(ms))) as Date).getTime()).toBe(ms);
    }
    expect(() => encode(new Date(NaN))).toThrow(/Invalid Date/);
  });

  test("Map keeps any key type; a Set is written as an array (documented policy)", () => {
    const map = new Map<unknown, unknown>([[1, "one"], ["two", 2], [null, [1]], [true, false]]);
    // useMap: keys as written (without it, number keys decode as string properties, by the decoder's map-key policy)
    expect(decode(encode(map), { useMap: true })).toEqual(map);
    expect(decode(encode(new Set([1, "a"])))).toEqual([1, "a"]);
  });

  test("undefined is nil, or left out of objects with ignoreUndefined", () => {
    expect(decode(encode({ a: undefined, b: 1 }))).toEqual({ a: null, b: 1 });
    expect(decode(encode({ a: undefined, b: 1 }, { ignoreUndefined: true }))).toEqual({ b: 1 });
    expect(decode(encode([undefined]))).toEqual([null]);
  });

  test("sortKeys writes keys in code unit order", () => {
    const bytes = encode({ b: 1, a: 2, c: { z: 1, y: 2 } }, { sortKeys: true });
    expect(Object.keys(decode(bytes) as object)).toEqual(["a", "b", "c"]);
    expect(Object.keys((decode(bytes) as { c: object }).c)).toEqual(["y", "z"]);
  });

  test("class instances are written as maps of their own enumerable properties", () => {
    class Point {
      x: number;
      y: number;
      constructor(x: number, y: number) {
        this.x = x;
        this.y = y;
      }
    }
    expect(decode(encode(new Point(1, 2)))).toEqual({ x: 1, y: 2 });
  });

  test("objects: only own enumerable keys, in order, even with a polluted prototype or a getter that changes the object", () => {
    const key = "injected" + Math.random().toString(36).slice(2);
    (Object.prototype as Record<string, unknown>)[key] = 1;
    try {
      expect(decode(encode({ a: 1, b: "x" }))).toEqual({ a: 1, b: "x" });
      expect(Object.keys(decode(encode({ 2: 0, z: 1, 1: 2 })) as object)).toEqual(["1", "2", "z"]);
      expect(Object.hasOwn(decode(encode({ a: 1 })) as object, key)).toBe(false);
    } finally {
      delete (Object.prototype as Record<string, unknown>)[key];
    }
    // a getter deletes a later key and adds a new one: the keys are those Object.keys saw first
    const obj: Record<string, unknown> = { a: 1, b: 2, c: 3 };
    Object.defineProperty(obj, "a", { enumerable: true, configurable: true, get() { delete obj.b; obj.d = 4; return 1; } });
    expect(decode(encode(obj))).toEqual({ a: 1, b: null, c: 3 });
    // a null-prototype object
    expect(decode(encode(Object.assign(Object.create(null), { x: 1 })))).toEqual({ x: 1 });
  });

  test("ExtData uses fixext for 1/2/4/8/16 bytes and ext 8/16/32 otherwise", () => {
    const forms: Array<[number, string]> = [[1, "d4"], [2, "d5"], [4, "d6"], [8, "d7"], [16, "d8"], [0, "c7"], [3, "c7"], [256, "c8"], [65536, "c9"]];
    for (const [n, first] of forms) {
      const ext = new ExtData(42, new Uint8Array(n).fill(3));
      const bytes = encode(ext);
      expect(hex(bytes.subarray(0, 1))).toBe(first);
      expect(decode(bytes)).toEqual(ext);
    }
  });
});

describe("ExtensionCodec", () => {
  class Vec {
    readonly x: number;
    readonly y: number;
    constructor(x: number, y: number) {
      this.x = x;
      this.y = y;
    }
  }
  const codec = new ExtensionCodec();
  codec.register({
    type: 5,
    encode: (v) => (v instanceof Vec ? encode([v.x, v.y]) : null), // re-enters encode()
    decode: (data) => {
      const [x, y] = decode(data) as [number, number]; // re-enters decode()
      return new Vec(x, y);
    },
  });

  test("user types round-trip, nested, with re-entrant encode and decode", () => {
    const value = { a: new Vec(1, 2), list: [new Vec(3, 4)] };
    expect(decode(encode(value, { extensionCodec: codec }), { extensionCodec: codec })).toEqual(value);
  });

  test("an extension may override the timestamp type -1", () => {
    const c = new ExtensionCodec();
    c.register({ type: -1, encode: () => null, decode: (data) => ({ raw: data.length }) });
    expect(decode(encode(new Date(0)), { extensionCodec: c })).toEqual({ raw: 4 });
  });

  test("registering a type outside -128..127 throws; an encode that returns a non-Uint8Array throws", () => {
    expect(() => new ExtensionCodec().register({ type: 128, encode: () => null, decode: () => null })).toThrow(EncodeError);
    const bad = new ExtensionCodec();
    bad.register({ type: 1, encode: () => "nope" as unknown as Uint8Array, decode: () => null });
    expect(() => encode({}, { extensionCodec: bad })).toThrow(/extension type 1: encode must return bytes, a function or null/);
  });
});

describe("encode() errors, and the encoder stays usable after them", () => {
  const cyclic: unknown[] = [];
  cyclic.push(cyclic);
  const cyclicObj: Record<string, unknown> = {};
  cyclicObj.self = cyclicObj;
  test.each([
    ["a function", () => 1, /^Cannot encode function at \$: unrecognized object$/, "UNSUPPORTED_TYPE"],
    ["a symbol", Symbol("s"), /^Cannot encode symbol at \$: unrecognized object$/, "UNSUPPORTED_TYPE"],
    ["a function inside an object", { f: () => 1 }, /^Cannot encode function at \$\.f: unrecognized object$/, "UNSUPPORTED_TYPE"],
    ["an array cycle", cyclic, /^Cannot encode value at \$\[0\] \(the object at \$\): it contains itself \(a cycle\), too deep to encode$/, "CYCLE"],
    ["an object cycle", cyclicObj, /at \$\.self \(the object at \$\).*cycle/, "CYCLE"],
    ["a bigint of 65 bits", 2n ** 64n, /bigint 18446744073709551616: outside int64\/uint64/, "BIGINT_RANGE"],
    ["a bigint below -2^63", -(2n ** 63n) - 1n, /outside/, "BIGINT_RANGE"],
    ["an Invalid Date", new Date(NaN), /Invalid Date/, "INVALID_DATE"],
  ])("%s throws EncodeError", (_, value, message, code) => {
    const encoder = new Encoder();
    let error: unknown;
    try {
      encoder.encode(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EncodeError);
    expect((error as EncodeError).message).toMatch(message);
    expect((error as EncodeError).code).toBe(code);
    expect(decode(encoder.encode({ ok: [1, "two"] }))).toEqual({ ok: [1, "two"] });
  });

  test("a binary of 2^32 bytes is refused before copying (bin 32 holds at most 2^32-1)", () => {
    let huge: Uint8Array;
    try {
      huge = new Uint8Array(2 ** 32); // virtual memory only: untouched pages cost nothing
    } catch {
      huge = new Proxy(new Uint8Array(1), { get: (t, k) => (k === "length" ? 2 ** 32 : Reflect.get(t, k)) });
    }
    expect(() => encode(huge)).toThrow(/binary of length 4294967296: over 2\^32-1/);
  });

  test("maxDepth is configurable", () => {
    expect(() => encode([[[1]]], { maxDepth: 2 })).toThrow(/^Cannot encode value at \$\[0\]\[0\]: too deep objects in depth 3 \(maxDepth 2\)$/);
    expect(decode(encode([[[1]]], { maxDepth: 3 }))).toEqual([[[1]]]);
  });
});

describe("Encoder.encodeInto and encodeChunks", () => {
  test("encodeInto writes at the offset and returns the byte count", () => {
    const target = new Uint8Array(16).fill(0xee);
    expect(new Encoder().encodeInto([1, 2], target, 3)).toBe(3);
    expect(hex(target.subarray(0, 7))).toBe("ee-ee-ee-92-01-02-ee");
  });

  test("a length-tracking view of a resizable buffer grows in place", () => {
    const buffer = new ArrayBuffer(4, { maxByteLength: 1 << 20 });
    const target = new Uint8Array(buffer);
    const written = new Encoder().encodeInto("x".repeat(1000), target, 2);
    expect(written).toBe(1003);
    expect(buffer.byteLength).toBe(1005);
    expect(decode(target.subarray(2))).toBe("x".repeat(1000));
  });

  test("a fixed target that is too small gets OUT_OF_SPACE and is left unchanged", () => {
    const target = new Uint8Array(4).fill(9);
    expect(() => new Encoder().encodeInto("hello", target)).toThrow(/room for 4 bytes, the output needs 6/);
    expect([...target]).toEqual([9, 9, 9, 9]);
    const buffer = new ArrayBuffer(4, { maxByteLength: 64 });
    const fixedView = new Uint8Array(buffer, 0, 4);
    expect(() => new Encoder().encodeInto("hello", fixedView)).toThrow(EncodeError);
    expect(buffer.byteLength).toBe(4);
  });

  test("encodeInto writes what encode returns, from the scratch, the store and the chunk list", () => {
    const value = { list: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `item ${i}` })), blob: new Uint8Array(100_000).fill(4) };
    const expected = encode(value);
    for (const options of [{}, withStrategy("chunks"), { maxByteLength: 50_000 }, withStrategy("ceiling")]) {
      const target = new Uint8Array(expected.length + 10);
      expect(new Encoder(options).encodeInto(value, target, 10)).toBe(expected.length);
      expectSameBytes(target.subarray(10), expected);
    }
  });

  test("encodeInto of a message that fits the scratch allocates no result buffer", () => {
    const encoder = new Encoder();
    const target = new Uint8Array(64);
    encoder.encodeInto({ warm: 1 }, target);
    const slice = vi.spyOn(Uint8Array.prototype, "slice");
    const written = encoder.encodeInto({ a: [1, 2, "x"] }, target);
    expect(slice).not.toHaveBeenCalled();
    slice.mockRestore();
    expect(decode(target.subarray(0, written))).toEqual({ a: [1, 2, "x"] });
  });

  test("encodeChunks concatenates to encode's bytes", () => {
    const value = { blob: new Uint8Array(300_000).fill(1), list: Array.from({ length: 5000 }, (_, i) => `s${i}`) };
    const whole = encode(value);
    for (const options of [{}, withStrategy("chunks"), { maxByteLength: 100_000 }]) {
      const chunks = new Encoder(options).encodeChunks(value);
      const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        joined.set(c, at);
        at += c.length;
      }
      expectSameBytes(joined, whole);
    }
  });

  test("results are independent of the encoder and of each other", () => {
    const encoder = new Encoder();
    const a = encoder.encode([1, 2, 3]);
    const b = encoder.encode([4, 5, 6]);
    expect(hex(a)).toBe("93-01-02-03");
    expect(hex(b)).toBe("93-04-05-06");
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteLength).toBe(a.buffer.byteLength);
  });

  test("poolResults: small results share slabs but never each other's bytes; large ones and other calls are unchanged", () => {
    const pooled = new Encoder({ poolResults: true });
    const plain = new Encoder();
    const values = Array.from({ length: 3000 }, (_, i) => ({ i, s: "x".repeat(i % 50), big: i % 500 === 0 ? "y".repeat(4090) : null }));
    const results = values.map((v) => pooled.encode(v));
    // > 64 KiB in all: the slab rolled over, and earlier results still hold their own bytes
    for (let i = 0; i < values.length; i++) expect(hex(results[i]!), `value ${i}`).toBe(hex(plain.encode(values[i])));
    expect(results[1]!.buffer).toBe(results[2]!.buffer);
    expect(results[1]!.byteOffset % 8).toBe(0);
    expect(new Set(results.map((r) => r.buffer)).size).toBeGreaterThan(1);
    // past 4 KiB: an ArrayBuffer of its own
    const large = pooled.encode("z".repeat(5000));
    expect(large.buffer.byteLength).toBe(large.length);
    // encodeInto and encodeChunks do not pool
    expect(pooled.encodeChunks([1])[0]!.buffer.byteLength).toBe(2);
  });

  test("poolResults: transferring a result's buffer detaches that slab, and the encoder starts a new one", () => {
    const pooled = new Encoder({ poolResults: true });
    const a = pooled.encode({ a: 1 });
    structuredClone(a.buffer, { transfer: [a.buffer] });
    expect(a.length).toBe(0); // the user's transfer took the slab
    const b = pooled.encode({ b: 2 });
    expect(decode(b)).toEqual({ b: 2 });
  });

  test("a Node Buffer is copied into the output in every strategy", () => {
    const buf = Buffer.alloc(100_000, 7);
    for (const strategy of ["default", "chunks"] as const) {
      const chunks = new Encoder(withStrategy(strategy, { initialBufferSize: 64 })).encodeChunks(buf);
      buf[0] = 8;
      expect(chunks.every((c) => c.buffer !== buf.buffer)).toBe(true);
      expect((decode(chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks))) as Uint8Array)[0]).toBe(7);
      buf[0] = 7;
    }
  });

  test("encoding does not change the value", () => {
    const value = { list: [1, 2, { a: "b" }], bin: new Uint8Array([1, 2]), map: new Map([[1, 2]]) };
    const copy = structuredClone(value);
    encode(value, { sortKeys: true, ignoreUndefined: true });
    expect(value).toEqual(copy);
  });

  test("a Decoder and Encoder pair round-trip through the same instances many times", () => {
    const encoder = new Encoder();
    const decoder = new Decoder();
    for (let i = 0; i < 1000; i++) expect(decoder.decode(encoder.encode({ i, s: "x".repeat(i % 70) }))).toEqual({ i, s: "x".repeat(i % 70) });
  });
});

describe("a codec object whose tryToEncode returns something else than an ExtData", () => {
  test("is INVALID_EXT naming what it returned", () => {
    const extensionCodec = { tryToEncode: () => new Uint8Array([1]), decode: () => null } as unknown as ExtensionCodecType<undefined>;
    let error: unknown;
    try {
      encode({ a: 1 }, { extensionCodec });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EncodeError);
    expect((error as EncodeError).code).toBe("INVALID_EXT");
    expect((error as EncodeError).message).toMatch(/tryToEncode returned .*not an ExtData or null/);
  });
});

describe("objects whose key sequences repeat (their keys' bytes are prepared once per sequence)", () => {
  // keys of every kind: str header boundaries (31/32/33 and 64/65 units: past 64 a key is not prepared),
  // two- and three-byte UTF-8, a surrogate pair, a lone surrogate (written as U+FFFD), the empty key
  const KINDS = ["", "a", "id", "x".repeat(31), "y".repeat(32), "z".repeat(33), "w".repeat(64), "v".repeat(65), "é".repeat(16), "日本", "😀k", "\ud800", "k\udc00z", "__count"];
  const keyOf = (r: Random, pool: number) => (r.int(0, 3) === 0 ? r.pick(KINDS) + r.int(0, 2) : `key${r.int(0, pool)}`);

  test("a key's bytes are those of the same text as a value, the first time and every later time", () => {
    const encoder = new Encoder();
    for (let round = 0; round < 3; round++) {
      for (const key of KINDS) {
        const expected = [0x81, ...encode(key), 0x01];
        expect([...encoder.encode({ [key]: 1 })], JSON.stringify(key)).toEqual(expected);
        expect([...encode({ [key]: 1 })], JSON.stringify(key)).toEqual(expected);
        expect(encoder.encodedSize({ [key]: 1 })).toBe(expected.length);
      }
    }
  });

  // from few key sequences (each met many times) to many (the prepared keys fill their bound and start again)
  test.each([
    ["few sequences", 6, 400],
    ["many branches after one key", 200, 600],
    ["more keys than are kept", 5000, 1500],
  ])("%s: one encoder's bytes equal @msgpack/msgpack's, object after object", (_, pool, count) => {
    forSeeds(2, (r) => {
      const encoder = new Encoder();
      const objects: Record<string, unknown>[] = [];
      for (let i = 0; i < count; i++) {
        const obj: Record<string, unknown> = {};
        const n = r.int(0, 20);
        for (let k = 0; k < n; k++) obj[keyOf(r, pool)] = r.int(0, 1) === 0 ? r.int(-5, 300) : `v${k}`;
        if (r.int(0, 4) === 0) obj.nested = { ...obj };
        objects.push(obj);
      }
      const lone = (o: object) => Object.keys(o).some((k) => /[\ud800-\udfff]/.test(k) && !/[\ud800-\udbff][\udc00-\udfff]/.test(k));
      for (const [i, obj] of objects.entries()) {
        if (lone(obj)) {
          expect(decode(encoder.encode(obj))).toEqual(JSON.parse(JSON.stringify(obj).replace(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/g, "\\ufffd")));
          continue; // @msgpack/msgpack writes a lone surrogate as its own 3 bytes (not UTF-8): checked against the text above
        }
        expectSameBytes(encoder.encode(obj), peer.encode(obj), `object ${i}`);
      }
      // the same objects again, through encode() and as one array: the sequences are met again
      const plain = objects.filter((o) => !lone(o));
      expectSameBytes(encode(plain), peer.encode(plain));
      expect(encoder.encodedSize(plain)).toBe(peer.encode(plain).length);
    });
  });

  test("a getter that adds or deletes keys midway: the keys written are those read before the header", () => {
    const encoder = new Encoder();
    const shape = () => ({ a: 1, b: 2, c: 3, d: 4 });
    for (let i = 0; i < 3; i++) encoder.encode(shape()); // the sequence a, b, c, d is known
    const adds = {
      a: 1,
      get b() {
        (this as Record<string, unknown>).e = 5;
        delete (this as Record<string, unknown>).c;
        return 2;
      },
      c: 3,
      d: 4,
    };
    expect(decode(encoder.encode(adds))).toEqual({ a: 1, b: 2, c: null, d: 4 });
    expect(decode(encoder.encode(shape()))).toEqual(shape());
  });
});
