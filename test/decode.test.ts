import { describe, expect, test } from "vitest";
import { decode, DecodeError, decodeMulti, Decoder, encode, Encoder, ExtData } from "../src/index.ts";
import { forSeeds, fromHex } from "./_support/arbitrary.ts";
import "../src/records.ts"; // the records case of the long-array loop below

/** Decodes and returns the DecodeError, failing if anything else happens. */
function decodeFailure(bytes: Uint8Array, options?: object): DecodeError {
  try {
    decode(bytes, options);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${String(e)}`);
  }
  throw new Error("expected a DecodeError, but decode succeeded");
}

const varied = [
  0, -1, 200, 70000, 2 ** 40, -(2 ** 40), 1.5, "", "hi", "ünï日本😀".repeat(5), "x".repeat(300),
  new Uint8Array([1, 2, 3]), [1, [2, [3, "x"]]], { a: 1, b: { c: [null, true, false] } },
  new Date(1), new Date(-1), new ExtData(3, new Uint8Array(5)), 2n ** 63n, new Map([[1, 2]]),
];

describe("decode() of truncated input", () => {
  test("every proper prefix of every varied value is a TRUNCATED DecodeError saying what is missing", () => {
    for (const value of varied) {
      const bytes = encode(value);
      for (let cut = 0; cut < bytes.length; cut++) {
        const e = decodeFailure(bytes.subarray(0, cut));
        expect(e.code, `${String(value)} cut at ${cut}`).toBe("TRUNCATED");
        expect(e.needed).toBeGreaterThan(0);
        expect(e.offset).toBeLessThanOrEqual(cut);
        expect(e.message).toMatch(new RegExp(`^Cannot decode .* at offset ${e.offset}: insufficient data, input is ${e.needed} byte\\(s\\) short$`));
      }
    }
  });

  test("a declared length larger than the bytes left is refused at once, before allocating", () => {
    for (const h of ["dd-ff-ff-ff-ff", "df-ff-ff-ff-ff", "db-ff-ff-ff-ff", "c6-ff-ff-ff-ff", "c9-ff-ff-ff-ff-01", "dc-ff-ff-00"]) {
      const e = decodeFailure(fromHex(h));
      expect(e.code, h).toBe("TRUNCATED");
      expect(e.offset).toBe(0);
      expect(e.needed).toBeGreaterThan(60000);
    }
  });
});

describe("decode() of malformed input", () => {
  test.each([
    ["the reserved byte 0xc1", "c1", /^Cannot decode value at offset 0: unrecognized type byte 0xc1/, "INVALID_BYTE", 0],
    ["0xc1 inside an array", "92-01-c1", /offset 2: unrecognized type byte 0xc1/, "INVALID_BYTE", 2],
    ["trailing bytes", "01-02", /^Cannot decode value: extra 1 byte\(s\) at offset 1; see decodeMulti$/, "EXTRA_BYTES", 1],
    ["a stray continuation byte in a short string", "a2-61-80", /offset 1: invalid UTF-8/, "INVALID_UTF8", 1],
    ["an overlong form", "a2-c0-80", /offset 1: invalid UTF-8/, "INVALID_UTF8", 1],
    ["an encoded surrogate", "a3-ed-a0-80", /offset 1: invalid UTF-8/, "INVALID_UTF8", 1],
    ["a code point past U+10FFFF", "a4-f4-90-80-80", /offset 1: invalid UTF-8/, "INVALID_UTF8", 1],
    ["a truncated sequence inside a string", "a2-61-e6", /offset 1: invalid UTF-8/, "INVALID_UTF8", 1],
    ["a timestamp with nanoseconds of 10^9", "d7-ff-ee-6b-28-00-00-00-00-00", /nanoseconds 1000000000 over 999999999/, "INVALID_EXT", 0],
    ["a timestamp of 5 bytes", "c7-05-ff-00-00-00-00-00", /5 bytes, not 4, 8 or 12/, "INVALID_EXT", 0],
    ["a timestamp past Date's range", "c7-0c-ff-00-00-00-00-7f-ff-ff-ff-ff-ff-ff-ff", /outside the range of Date/, "INVALID_EXT", 0],
  ])("%s is a DecodeError (offset: the item, or for UTF-8 the string's bytes)", (_, h, message, code, offset) => {
    const e = decodeFailure(fromHex(h));
    expect(e.message).toMatch(message);
    expect(e.code).toBe(code);
    expect(e.offset).toBe(offset);
  });

  test("invalid UTF-8 is rejected the same in short and long strings", () => {
    for (const n of [3, 40, 100, 5000]) {
      const body = new Uint8Array(n).fill(0x61);
      body[n - 1] = 0xff;
      const bytes = fromHex(n < 32 ? `${(0xa0 | n).toString(16)}` : n < 256 ? `d9-${n.toString(16)}` : `da-${(n >> 8).toString(16)}-${(n & 255).toString(16)}`);
      const e = decodeFailure(new Uint8Array([...bytes, ...body]));
      expect(e.code, `${n} bytes`).toBe("INVALID_UTF8");
    }
  });

  test("100,000 nested arrays give a MAX_DEPTH DecodeError, not a stack overflow", () => {
    const bytes = new Uint8Array(100_001).fill(0x91);
    bytes[100_000] = 0xc0;
    const e = decodeFailure(bytes);
    expect(e.code).toBe("MAX_DEPTH");
    expect(e.message).toMatch(/deeper than maxDepth \(512\)/);
    expect(decode(bytes.subarray(100_000 - 500))).toBeInstanceOf(Array);
  });

  test("limits are options, checked before allocating", () => {
    expect(decodeFailure(encode("abcd"), { maxStrLength: 3 }).message).toMatch(/length 4 exceeds maxStrLength \(3\)/);
    expect(decodeFailure(encode(new Uint8Array(4)), { maxBinLength: 3 }).code).toBe("MAX_LENGTH");
    expect(decodeFailure(encode([1, 2, 3, 4]), { maxArrayLength: 3 }).code).toBe("MAX_LENGTH");
    expect(decodeFailure(encode({ a: 1, b: 2 }), { maxMapLength: 1 }).code).toBe("MAX_LENGTH");
    expect(decodeFailure(encode(new ExtData(1, new Uint8Array(9))), { maxExtLength: 8 }).code).toBe("MAX_LENGTH");
    expect(decodeFailure(encode([[1]]), { maxDepth: 1 }).code).toBe("MAX_DEPTH");
    expect(decode(encode([[1]]), { maxDepth: 2 })).toEqual([[1]]);
  });

  test("the decoder works normally after any error", () => {
    const decoder = new Decoder();
    for (const h of ["c1", "92-01", "a2-61-80", "01-02"]) {
      expect(() => decoder.decode(fromHex(h))).toThrow(DecodeError);
      expect(decoder.decode(encode({ ok: [1, 2] }))).toEqual({ ok: [1, 2] });
    }
  });
});

describe("decode() maps and prototype safety", () => {
  test("a __proto__ key becomes an own property and never changes any prototype", () => {
    const bytes = fromHex("82-a9-5f-5f-70-72-6f-74-6f-5f-5f-81-a6-70-6f-6c-6c-75-74-c3-a1-78-01");
    const obj = decode(bytes) as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.keys(obj)).toEqual(["__proto__", "x"]);
    expect(Object.getOwnPropertyDescriptor(obj, "__proto__")?.value).toEqual({ pollut: true });
    expect(({} as Record<string, unknown>).pollut).toBeUndefined();
    expect((obj as { pollut?: unknown }).pollut).toBeUndefined();
    // and it survives a round trip as data
    expect(Object.getOwnPropertyDescriptor(decode(encode(obj)) as object, "__proto__")?.value).toEqual({ pollut: true });
  });

  test("maps with a nil key decode as Map, keeping every entry and its order, number keys as strings", () => {
    const m = decode(fromHex("83-a1-61-01-02-a1-62-c0-03")) as Map<unknown, unknown>;
    expect(m).toBeInstanceOf(Map);
    expect([...m]).toEqual([["a", 1], ["2", "b"], [null, 3]]);
  });

  test("useMap decodes every map as a Map", () => {
    expect(decode(encode({ a: { b: 1 } }), { useMap: true })).toEqual(new Map([["a", new Map([["b", 1]])]]));
  });
});

describe("decode() numbers and binaries", () => {
  test("64-bit integers: numbers when safe, bigint otherwise; number and bigint modes", () => {
    const safe = fromHex("cf-00-1f-ff-ff-ff-ff-ff-ff");
    const unsafe = fromHex("cf-00-20-00-00-00-00-00-01");
    const negUnsafe = fromHex("d3-ff-df-ff-ff-ff-ff-ff-ff");
    expect(decode(safe)).toBe(2 ** 53 - 1);
    expect(decode(unsafe)).toBe(2n ** 53n + 1n);
    expect(decode(negUnsafe)).toBe(-(2n ** 53n) - 1n);
    expect(decode(fromHex("d3-ff-e0-00-00-00-00-00-00"))).toBe(-(2n ** 53n));
    expect(decode(safe, { int64: "bigint" })).toBe(2n ** 53n - 1n);
    expect(decode(safe, { useBigInt64: true })).toBe(2n ** 53n - 1n);
    expect(decode(unsafe, { int64: "number" })).toBe(2 ** 53);
    expect(decode(fromHex("cc-ff"), { int64: "bigint" })).toBe(255);
  });

  test("uint 64 around 2^53, alone and in arrays and maps, in each int64 mode (property)", () => {
    forSeeds(200, (r) => {
      // high words from 0 to past 2^53's (0x200000), so both sides of the boundary come up
      const hi = r.bool() ? r.int(0x1ffff0, 0x200010) : r.int(0, 0x3fffff);
      const n = (BigInt(hi) << 32n) | BigInt(r.int(0, 0xffffffff));
      const one = new Uint8Array(9);
      one[0] = 0xcf;
      new DataView(one.buffer).setBigUint64(1, n);
      const inArray = Uint8Array.of(0x92, ...one, 0x01);
      const inMap = Uint8Array.of(0x81, 0xa1, 0x74, ...one);
      const auto = n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
      for (const [mode, expected] of [["auto", auto], ["number", Number(n)], ["bigint", n]] as const) {
        expect(decode(one, { int64: mode })).toBe(expected);
        expect(decode(inArray, { int64: mode })).toEqual([expected, 1]);
        expect(decode(inMap, { int64: mode })).toEqual({ t: expected });
      }
      const cut = r.int(1, 8);
      expect(() => decode(one.subarray(0, 9 - cut))).toThrow(expect.objectContaining({ code: "TRUNCATED", offset: 0, needed: cut }));
    });
  });

  test("binaries are copies by default and views with binaryAsView", () => {
    const bytes = encode(new Uint8Array([1, 2, 3]));
    const copy = decode(bytes) as Uint8Array;
    const view = decode(bytes, { binaryAsView: true }) as Uint8Array;
    expect(copy.buffer).not.toBe(bytes.buffer);
    expect(view.buffer).toBe(bytes.buffer);
    copy[0] = 9;
    expect(bytes[2]).toBe(1);
  });

  test("decode accepts ArrayBuffer, any view, and a view at an offset", () => {
    const bytes = encode({ a: [1, 2] });
    const padded = new Uint8Array(bytes.length + 5);
    padded.set(bytes, 3);
    expect(decode(bytes.slice().buffer)).toEqual({ a: [1, 2] });
    expect(decode(padded.subarray(3, 3 + bytes.length))).toEqual({ a: [1, 2] });
    expect(decode(new DataView(padded.buffer, 3, bytes.length))).toEqual({ a: [1, 2] });
  });

  test("a Node Buffer input gives plain Uint8Array copies, never views of the Buffer", () => {
    const buf = Buffer.from(encode({ b: new Uint8Array([1, 2]) }));
    const out = decode(buf) as { b: Uint8Array };
    expect(out.b.constructor).toBe(Uint8Array);
    buf[buf.length - 1] = 99;
    expect([...out.b]).toEqual([1, 2]);
  });

  test("decoding does not change the input", () => {
    const bytes = encode({ s: "x".repeat(100), b: new Uint8Array(10), t: new Date(5) });
    const before = bytes.slice();
    decode(bytes);
    expect(bytes).toEqual(before);
  });
});

describe("decodeMulti()", () => {
  test("yields back-to-back values and throws on a truncated last one", () => {
    const bytes = new Uint8Array([...encode("a"), ...encode([1]), ...encode({ b: 2 })]);
    expect([...decodeMulti(bytes)]).toEqual(["a", [1], { b: 2 }]);
    expect(() => [...decodeMulti(bytes.subarray(0, bytes.length - 1))]).toThrow(DecodeError);
    expect([...decodeMulti(new Uint8Array(0))]).toEqual([]);
  });
});

describe("decode: float 64 items of arrays", () => {
  const floats = [0, -0, 1.5, -2.5e-12, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, NaN, Infinity, -Infinity, 0.1, 2 ** 53 + 2];

  test("every value comes back exactly, between items of other kinds and in nested arrays", () => {
    const value = [...floats, "x", floats, 7, { f: floats }, [[0.25, -0.5]], null, 1e300];
    const bytes = encode(value);
    expect(bytes.filter((b) => b === 0xcb).length).toBeGreaterThanOrEqual(floats.length * 3);
    const back = decode(bytes) as unknown[];
    expect(back).toEqual(value);
    expect(Object.is((back as number[])[1], -0)).toBe(true);
  });

  test("an array cut inside a float 64 item is TRUNCATED at that item, whatever the cut", () => {
    const bytes = encode([1.5, 2.5, 3.5]);
    expect(bytes[10]).toBe(0xcb); // 0x93, then 9 bytes per item: the second starts at 10
    for (let cut = 11; cut < 19; cut++) {
      const e = decodeFailure(bytes.subarray(0, cut));
      expect(e.code, `cut at ${cut}`).toBe("TRUNCATED");
      expect(e.offset, `cut at ${cut}`).toBe(10);
    }
  });
});

describe("decode: integer items of arrays of 16 items or more", () => {
  /** An int in one of the forms arrays of 16 or more read in their own loop, or near them. */
  const item = (r: { int(lo: number, hi: number): number; pick<T>(items: readonly T[]): T }): number =>
    r.pick([() => r.int(0, 127), () => r.int(-32, -1), () => r.int(128, 65_535), () => r.int(-32_768, -129), () => r.int(65_536, 2 ** 32), () => r.int(-(2 ** 31), -32_769)])();

  test("every item comes back exactly, with items of other kinds between them", () => {
    forSeeds(200, (r) => {
      const value: unknown[] = [];
      for (let n = r.int(16, 70); value.length < n; ) value.push(r.bool(0.8) ? item(r) : r.pick([1.5, "x", null, [r.int(0, 65_535)], { k: -200 }]));
      const bytes = encode(value);
      expect(bytes[0] === 0xdc || bytes[0] === 0xdd).toBe(true);
      expect(decode(bytes)).toEqual(value);
    });
  });

  test("the 16-bit forms keep their sign: uint 16 is 0..65535, int 16 is -32768..32767", () => {
    const edges = [0xcd, 0xff, 0xff, 0xcd, 0x80, 0x00, 0xd1, 0x80, 0x00, 0xd1, 0x7f, 0xff, 0xd1, 0xff, 0xff, 0xcd, 0x00, 0x00];
    const bytes = Uint8Array.of(0xdc, 0x00, 16, ...edges, ...new Array<number>(10).fill(0x7f));
    expect(decode(bytes)).toEqual([65_535, 32_768, -32_768, 32_767, -1, 0, ...new Array<number>(10).fill(127)]);
  });

  test("an array cut anywhere, inside a 16-bit item too, is TRUNCATED at the item it cuts", () => {
    const value = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 5 : i % 3 === 1 ? 40_000 : -20_000));
    const bytes = encode(value);
    const starts: number[] = [];
    for (let at = 3, i = 0; i < value.length; i++) {
      starts.push(at);
      at += value[i] === 5 ? 1 : 3;
    }
    for (let cut = 3; cut < bytes.length; cut++) {
      const e = decodeFailure(bytes.subarray(0, cut));
      expect(e.code, `cut at ${cut}`).toBe("TRUNCATED");
      // fewer bytes than items: the array header is refused; else the item the cut falls in (or would start at)
      expect(e.offset, `cut at ${cut}`).toBe(cut - 3 < value.length ? 0 : starts.filter((s) => s <= cut).at(-1));
    }
  });
});

describe("decode: arrays of 16 items or more with records", () => {
  test("record identifiers (0x40-0x7f) among the items are records, and fixints below them numbers", () => {
    forSeeds(50, (r) => {
      const value: unknown[] = [];
      for (let n = r.int(16, 60); value.length < n; ) {
        value.push(r.pick([() => ({ id: r.int(0, 200), name: "n" }), () => ({ x: r.int(-5, 5) }), () => r.int(0, 127), () => r.int(-40_000, 40_000), () => 0.5])());
      }
      const bytes = new Encoder({ useRecords: true }).encode(value);
      expect(new Decoder({ useRecords: true }).decode(bytes)).toEqual(value);
    });
  });
});
