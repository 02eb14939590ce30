// msgpackr's record extension (useRecords): msgpackr 2.1.3 (a devDependency)
// is the oracle in both directions, on single messages, shared structures
// and sequential streams; then property tests over random record-shaped
// data, and hostile inputs.
import { Duplex } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test, vi } from "vitest";
import * as msgpackr from "msgpackr";
import { decode, decodeMulti, Decoder, DecodeError, encode, Encoder, encodedSize, EncodeError, ExtData, ExtensionCodec } from "../src/records.ts";
import { createStreamStats, decodeArrayStream, decodeAsync, decodeMultiStream, DecoderStream, EncoderStream, encodeIterable, type StreamStats } from "../src/streams.ts";
import { forSeeds, Random, string, value } from "./_support/arbitrary.ts";
import { expectEqual } from "./_support/equal.ts";
import { plain } from "./_support/plain.ts";

const R = { useRecords: true } as const;

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Every value type as a record field (no `undefined`: msgpackr writes it as extension 0, an ExtData here). */
const FIELDS: Record<string, unknown> = {
  nil: null, t: true, f: false, zero: 0, small: 63, mid: 64, top: 127, byte: 200, neg: -5, neg8: -100, i16: -3000, u16: 60000, i32: -(2 ** 31), u32: 2 ** 32 - 1,
  float: 1.5, pi: Math.PI, big: 2n ** 60n, negBig: -(2n ** 60n), str: "", ascii: "hello", uni: "ünï日本😀", long: "x".repeat(300), bin: new Uint8Array([1, 2, 3]),
  arr: [1, "a", null, [2]], obj: { nested: { deep: [{ x: 1 }] } }, map: new Map<unknown, unknown>([[1, "one"], ["k", 2]]), date: new Date(1_700_000_000_123),
  "": "empty key", "1": "numeric key", "with space": 1,
};

/** API-like records: repeated shapes, nested objects, arrays of records. */
function apiRecords(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i,
    name: `user ${i}`,
    email: `u${i}@example.com`,
    active: i % 3 === 0,
    score: i / 7,
    tags: ["a", "b"].slice(0, i % 3),
    address: { city: "Paris", zip: String(75000 + i) },
    note: i % 2 ? null : "n",
  }));
}

/** Objects of `n` distinct shapes, each twice: more than the 64 identifiers of a message. */
function manyShapes(n: number): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let round = 0; round < 2; round++) for (let i = 0; i < n; i++) out.push({ [`k${i}`]: i, common: round });
  return out;
}

describe("decoding msgpackr's records", () => {
  test("default Packr bytes decode to what its Unpackr gives (every field type, nested records, arrays of records)", () => {
    const packr = new msgpackr.Packr();
    const unpackr = new msgpackr.Unpackr();
    for (const v of [FIELDS, [FIELDS, FIELDS], apiRecords(50), { list: apiRecords(3), one: { a: 1 } }, {}, [{}, {}], [[{ a: 1 }], { b: { a: 2 } }]]) {
      const bytes = packr.pack(v);
      expectEqual(plain(decode(bytes, { useRecords: true, useMap: true })), plain(unpackr.unpack(bytes)));
    }
  });

  test("more shapes than identifiers: msgpackr redefines identifiers within a message, and so does the table here", () => {
    const v = manyShapes(150);
    const bytes = new msgpackr.Packr().pack(v);
    expectEqual(decode(bytes, R), new msgpackr.Unpackr().unpack(bytes));
    expectEqual(decode(bytes, R), v);
  });

  test("shared structures (up to 32: one-byte identifiers) decode with the same structures array", () => {
    const structures: string[][] = [];
    const packr = new msgpackr.Packr({ structures });
    const messages = apiRecords(5).map((r) => [r, packr.pack(r)] as const);
    expect(structures.length).toBe(2);
    const decoder = new Decoder({ useRecords: true, structures: structures.map((s) => [...s]) });
    for (const [r, bytes] of messages) expect(decoder.decode(bytes)).toEqual(r);
    // the first message's record is not declared in it: without the structures it cannot be read
    expect(() => decode(messages[1]![1], R)).toThrow(DecodeError);
  });

  test("more than 32 shared structures (maxSharedStructures: two-byte identifiers), up to 8,160", () => {
    const structures: string[][] = [];
    const packr = new msgpackr.Packr({ structures, maxSharedStructures: 8160 });
    const values = Array.from({ length: 8200 }, (_, i) => ({ [`f${i}`]: i, v: "x" }));
    const messages = values.map((v) => packr.pack(v));
    expect(structures.length).toBe(8160);
    const decoder = new Decoder({ useRecords: true, structures: structures.map((s) => [...s]) });
    for (const i of [0, 31, 32, 33, 63, 64, 95, 96, 1000, 8159, 8160, 8199]) expect(decoder.decode(messages[i]!), `message ${i}`).toEqual(values[i]);
  });

  test("structures appended by an encoder sharing the array are picked up by the next message", () => {
    const structures: string[][] = [];
    const decoder = new Decoder({ useRecords: true, structures });
    const packr = new msgpackr.Packr({ structures });
    expect(decoder.decode(packr.pack({ a: 1 }))).toEqual({ a: 1 });
    expect(decoder.decode(packr.pack({ b: 2 }))).toEqual({ b: 2 });
  });

  test("sequential Packr: structures carry over between messages in decodeMulti", () => {
    const packr = new msgpackr.Packr({ sequential: true });
    const values = [{ a: 1 }, { a: 2 }, [{ a: 3 }, { b: 1 }], ...manyShapes(80), { b: 5 }];
    const bytes = Buffer.concat(values.map((v) => packr.pack(v)));
    expectEqual([...decodeMulti(bytes, R)], values);
    // decode() of one message alone does not see earlier declarations
    const reference = packr.pack({ b: 6 });
    expect(hex(reference)).toMatch(/^[4-7][0-9a-f]06$/);
    expect(() => decode(reference, R)).toThrow(DecodeError);
  });

  test("PackrStream bytes through decodeMultiStream and DecoderStream, in chunks of every size", async () => {
    const values = [...apiRecords(20), ...manyShapes(70), { a: { b: { c: 1 } } }];
    const packr = new msgpackr.Packr({ sequential: true });
    const bytes = Buffer.concat(values.map((v) => packr.pack(v)));
    for (const size of [1, 3, 64, 1000, bytes.length]) {
      const chunks = async function* () {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      };
      const out: unknown[] = [];
      for await (const v of decodeMultiStream(chunks(), R)) out.push(v);
      expectEqual(out, values, `chunks of ${size}`);
    }
    const stream = new msgpackr.PackrStream();
    const decoded = (async () => {
      const out: unknown[] = [];
      const readable = new ReadableStream<Uint8Array>({
        start(c) {
          stream.on("data", (chunk: Uint8Array) => c.enqueue(new Uint8Array(chunk)));
          stream.on("end", () => c.close());
        },
      });
      const reader = readable.pipeThrough(new DecoderStream(R)).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
      return out;
    })();
    for (const v of values) stream.write(v);
    stream.end();
    expectEqual(await decoded, values);
  });

  test("decodeAsync and decodeArrayStream read records (the items of one array share its declarations), byte by byte too", async () => {
    const values = [...apiRecords(10), ...manyShapes(70)];
    const bytes = new msgpackr.Packr().pack(values);
    for (const size of [1, 7, bytes.length]) {
      const chunks = async function* () {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      };
      expectEqual(await decodeAsync(chunks(), R), values);
      const items: unknown[] = [];
      for await (const item of decodeArrayStream(chunks(), R)) items.push(item);
      expectEqual(items, values, `chunks of ${size}`);
    }
  });

  test("without useRecords nothing changes: 0x40-0x7f are integers, and records are not read", () => {
    expect(decode(new Uint8Array([0x40]))).toBe(64);
    expect(decode(new Uint8Array([0x92, 0x7f, 0x45]))).toEqual([127, 69]);
    expect(hex(encode([64, 127]))).toBe("92407f");
    expect(() => decode(new msgpackr.Packr().pack([{ a: 1 }, { a: 2 }]))).toThrow(DecodeError);
  });
});

describe("encoding records for msgpackr", () => {
  test("encode with useRecords gives the bytes of msgpackr's default Packr on JSON-like data", () => {
    const packr = new msgpackr.Packr();
    for (const v of [{ a: 1, b: { c: 2 }, d: [{ a: 1, b: null }, { a: 3, b: 100 }], e: 100, f: {} }, apiRecords(30), manyShapes(100), [64, 127, 128, -1]]) {
      expect(hex(encode(v, R))).toBe(hex(packr.pack(v)));
    }
  });

  test("msgpackr's Unpackr reads our records to the value encoded (every field type)", () => {
    const unpackr = new msgpackr.Unpackr({ int64AsType: "auto" } as unknown as msgpackr.Options);
    for (const v of [FIELDS, [FIELDS, { ...FIELDS, extra: 1 }], apiRecords(100), manyShapes(200), { a: [{ b: [{ c: {} }] }] }]) {
      const bytes = encode(v, R);
      expectEqual(plain(unpackr.unpack(bytes)), plain(v));
      expectEqual(plain(decode(bytes, { useRecords: true, useMap: true })), plain(v));
    }
  });

  test("integers 64-127 are uint 8 with records (their fixint bytes start records), fixints without", () => {
    expect(hex(encode([63, 64, 100, 127, 128], R))).toBe("953fcc40cc64cc7fcc80");
    expect(hex(encode(new Map([[70, 80]]), R))).toBe("81cc46cc50");
    expect(hex(encode([63, 64, 127]))).toBe("933f407f");
    expect(hex(encode([64.5], R))).toBe(hex(encode([64.5])));
  });

  test("useRecords as a function: objects it turns down are maps (msgpackr's default Unpackr reads those as Map)", () => {
    const options = { useRecords: (o: object) => !("plain" in o) };
    const v = [{ a: 1 }, { plain: true, b: 2 }];
    const bytes = encode(v, options);
    expect(hex(bytes)).toBe(`92d4724091a16101${hex(encode({ plain: true, b: 2 }))}`);
    expectEqual(decode(bytes, R), v);
    expectEqual(new msgpackr.Unpackr({ mapsAsObjects: true }).unpack(bytes), v);
    expect(new msgpackr.Unpackr().unpack(bytes)[1]).toBeInstanceOf(Map);
  });

  test("shared structures: appended in place up to maxSharedStructures, read by msgpackr (getStructures) and by us", () => {
    for (const max of [undefined, 20, 100, 8160]) {
      const structures: string[][] = [];
      const encoder = new Encoder({ useRecords: true, structures, ...(max === undefined ? {} : { maxSharedStructures: max }) });
      const values = Array.from({ length: 150 }, (_, i) => ({ [`k${i}`]: i, shared: [{ x: i }] }));
      const messages = values.map((v) => encoder.encode(v));
      expect(structures.length).toBe(Math.min(max ?? 32, 151));
      const unpackr = new msgpackr.Unpackr({ getStructures: () => structures.map((s) => [...s]), maxSharedStructures: max ?? 32 } as unknown as msgpackr.Options);
      const decoder = new Decoder({ useRecords: true, structures });
      values.forEach((v, i) => {
        expectEqual(unpackr.unpack(messages[i]!), v, `msgpackr, max ${max}, message ${i}`);
        expectEqual(decoder.decode(messages[i]!), v, `ours, max ${max}, message ${i}`);
      });
    }
  });

  test("shared structures written by msgpackr's Packr are used by our encoder without declaring them", () => {
    const structures: string[][] = [];
    new msgpackr.Packr({ structures }).pack({ a: 1, b: 2 });
    const bytes = encode({ a: 3, b: 4 }, { useRecords: true, structures });
    expect(hex(bytes)).toBe("400304");
    const unpackr = new msgpackr.Unpackr({ structures });
    expect(unpackr.unpack(bytes)).toEqual({ a: 3, b: 4 });
    // a shape appended here is counted in the array's sharedLength, which msgpackr's Unpackr reads
    const appended = encode({ c: 5 }, { useRecords: true, structures });
    expect(hex(appended)).toBe("4105");
    expect(unpackr.unpack(appended)).toEqual({ c: 5 });
  });

  test("frozen, sealed or non-extensible structures are full: their shapes are used, new ones declared in the message", () => {
    const closers: [string, (a: string[][]) => string[][]][] = [["frozen", (a) => Object.freeze(a) as string[][]], ["sealed", (a) => Object.seal(a)], ["non-extensible", (a) => Object.preventExtensions(a)]];
    for (const [name, close] of closers) {
      const structures = close([["a", "b"]]);
      const encoder = new Encoder({ useRecords: true, structures });
      for (let call = 0; call < 2; call++) {
        const bytes = encoder.encode([{ a: 1, b: 2 }, { c: 3 }]);
        // the shared shape by its identifier (0x40); the new one declared inline with the first own identifier
        // (index 32, byte 0x60: d4 72 60, its field names), then its value
        expect(hex(bytes), name).toBe("92" + "400102" + "d47260" + "91a163" + "03");
        expect(new msgpackr.Unpackr({ structures: [["a", "b"]] }).unpack(bytes)).toEqual([{ a: 1, b: 2 }, { c: 3 }]);
        expect(decode(bytes, { useRecords: true, structures: [["a", "b"]] })).toEqual([{ a: 1, b: 2 }, { c: 3 }]);
      }
      expect(structures, name).toEqual([["a", "b"]]);
      expect(encodedSize({ c: 3 }, { useRecords: true, structures })).toBe(encode({ c: 3 }, { useRecords: true, structures }).length);
    }
  });

  test("sequential: later messages reference earlier declarations; msgpackr's unpackMultiple reads the concatenation", () => {
    const encoder = new Encoder({ useRecords: true, sequential: true });
    const values = [{ a: 1 }, { a: 2 }, [{ a: 3 }, { b: 1 }], ...manyShapes(100), { a: 4 }];
    const parts = values.map((v) => encoder.encode(v));
    expect(hex(parts[1]!)).toBe("4002");
    const all = Buffer.concat(parts);
    expectEqual(new msgpackr.Unpackr({ sequential: true }).unpackMultiple(all), values);
    expectEqual([...decodeMulti(all, R)], values);
  });

  test("EncoderStream with useRecords is sequential and talks to msgpackr's UnpackrStream", async () => {
    const values = [...apiRecords(10), ...manyShapes(70), { a: 1 }];
    const encoderStream = Duplex.fromWeb(new EncoderStream(R) as never, { objectMode: true });
    const unpackr = new msgpackr.UnpackrStream();
    const received: unknown[] = [];
    unpackr.on("data", (v) => received.push(v));
    const ended = new Promise((done) => unpackr.on("end", done));
    encoderStream.pipe(unpackr);
    for (const v of values) encoderStream.write(v);
    encoderStream.end();
    await ended;
    expectEqual(received, values);
    // and our own stream decoder, framed too
    for (const lengthPrefixed of [false, true]) {
      const source = new ReadableStream({
        start(c) {
          for (const v of values) c.enqueue(v);
          c.close();
        },
      });
      const reader = source.pipeThrough(new EncoderStream({ ...R, lengthPrefixed })).pipeThrough(new DecoderStream({ ...R, lengthPrefixed })).getReader();
      const out: unknown[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
      expectEqual(out, values);
    }
  });

  test("a message that throws leaves no structure used undeclared in a sequential encoder", () => {
    const encoder = new Encoder({ useRecords: true, sequential: true });
    const ok1 = encoder.encode({ a: 1 });
    expect(() => encoder.encode([{ b: 1 }, { c: () => 0 }])).toThrow(EncodeError);
    const ok2 = encoder.encode([{ b: 2 }, { a: 2 }]);
    expect([...decodeMulti(Buffer.concat([ok1, ok2]), R)]).toEqual([{ a: 1 }, [{ b: 2 }, { a: 2 }]]);
    expect(new msgpackr.Unpackr({ sequential: true }).unpackMultiple(Buffer.concat([ok1, ok2]))).toEqual([{ a: 1 }, [{ b: 2 }, { a: 2 }]]);
  });

  test("sortKeys and ignoreUndefined apply to records; encodedSize counts records exactly", () => {
    const v = [{ b: 1, a: undefined }, { a: 2, b: 3 }];
    expect(decode(encode(v, { useRecords: true, sortKeys: true }), R)).toEqual([{ a: null, b: 1 }, { a: 2, b: 3 }]);
    expect(decode(encode(v, { useRecords: true, ignoreUndefined: true }), R)).toEqual([{ b: 1 }, { a: 2, b: 3 }]);
    for (const x of [apiRecords(40), manyShapes(90), FIELDS]) expect(encodedSize(x, R)).toBe(encode(x, R).length);
  });

  test("with sortKeys, objects of one shape in any key order are one record, each getter read once; with ignoreUndefined, a shape seen before still drops a value now undefined", () => {
    let reads = 0;
    const counted = { a: 1, get b(): number { reads++; return 2; } };
    const sorted = encode([{ b: 2, a: 1 }, counted, { a: 3, b: 4 }], { useRecords: true, sortKeys: true });
    expect(reads).toBe(1);
    expect(sorted).toEqual(encode([{ a: 1, b: 2 }, { a: 1, b: 2 }, { a: 3, b: 4 }], R));
    const dropped = new msgpackr.Unpackr().unpack(encode([{ a: 1, b: 2 }, { a: 3, b: undefined }, { a: 5, b: 6 }], { useRecords: true, ignoreUndefined: true })) as object[];
    expect(dropped.map((o) => Object.entries(o))).toEqual([[["a", 1], ["b", 2]], [["a", 3]], [["a", 5], ["b", 6]]]);
  });

  test("errors inside records name the path of the value, as for maps", () => {
    expect(() => encode([{ a: 1 }, { a: 2, b: { c: [1, () => 0] } }], R)).toThrow(/\[1\]\.b\.c\[1\]/);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => encode(cyclic, R)).toThrow(EncodeError);
  });

  test("the chunked stream encoders refuse useRecords", () => {
    expect(() => [...encodeIterable({ a: 1 }, R)]).toThrow(/useRecords/);
  });

  test("invalid options throw INVALID_ARGUMENT", () => {
    expect(() => new Encoder({ useRecords: 1 as never })).toThrow(EncodeError);
    expect(() => new Encoder({ useRecords: true, structures: {} as never })).toThrow(EncodeError);
    expect(() => new Encoder({ useRecords: true, structures: [], maxSharedStructures: 8161 })).toThrow(EncodeError);
    expect(() => encode({ a: 1 }, { useRecords: true, structures: [[1 as never]] })).toThrow(EncodeError);
    expect(() => encode({ a: 1 }, { useRecords: true, structures: [["a"], ["b"]], maxSharedStructures: 1 })).toThrow(EncodeError);
    expect(() => new Decoder({ useRecords: "yes" as never })).toThrow(DecodeError);
    expect(() => new Decoder({ useRecords: true, structures: "a" as never })).toThrow(DecodeError);
    expect(() => decode(new Uint8Array([0xc0]), { useRecords: true, structures: [[1 as never]] })).toThrow(/structures\[0\]/);
    // the limit is named in the message: maxSharedStructures when encoding, msgpackr's ceiling when decoding
    expect(() => encode({ a: 1 }, { useRecords: true, structures: [["a"], ["b"]], maxSharedStructures: 1 })).toThrow(/2 structures.*at most maxSharedStructures \(1\) structures/);
    const tooMany = Array.from({ length: 8161 }, () => ["a"]);
    expect(() => decode(new Uint8Array([0xc0]), { useRecords: true, structures: tooMany })).toThrow(/8161 structures.*at most 8160 structures/);
    // a hole is no structure when decoding, and not a structure to encode with
    expect(decode(new Uint8Array([0x41, 0x01]), { useRecords: true, structures: [null, ["b"]] })).toEqual({ b: 1 });
    expect(() => decode(new Uint8Array([0x40, 0x01]), { useRecords: true, structures: [null, ["b"]] })).toThrow(/no record structure for identifier 0x40/);
    expect(() => encode({ a: 1 }, { useRecords: true, structures: [null as never, ["b"]] })).toThrow(/structures\[0\]/);
  });
});

/** Record-shaped data: arrays of objects whose keys come from a few key sets, with random values (nested records too). */
function recordData(r: Random, rich: boolean): unknown {
  const shapes = Array.from({ length: r.int(1, 80) }, () => Array.from({ length: r.int(0, 12) }, () => string(r, 10)));
  const make = (depth: number): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    for (const k of r.pick(shapes)) obj[k] = depth < 2 && r.bool(0.2) ? make(depth + 1) : value(r, { rich, maxDepth: 2, maxItems: 4 });
    return obj;
  };
  return Array.from({ length: r.int(0, 60) }, () => make(0));
}

describe("records: properties over random record-shaped data", () => {
  test("decode(encode(x)) with useRecords deep-equals x; msgpackr reads our bytes to x", () => {
    const unpackr = new msgpackr.Unpackr({ int64AsType: "auto" } as unknown as msgpackr.Options);
    forSeeds(80, (r) => {
      const x = recordData(r, false);
      const bytes = encode(x, R);
      expectEqual(plain(decode(bytes, R)), plain(x));
      expectEqual(plain(unpackr.unpack(bytes)), plain(x));
      expect(encodedSize(x, R)).toBe(bytes.length);
    });
  });

  test("rich values (bigint, Date, Map, -0, NaN) round-trip with records", () => {
    forSeeds(100, (r) => {
      const x = recordData(r, true);
      expectEqual(decode(encode(x, R), { useRecords: true, useMap: true }), x);
    });
  });

  test("msgpackr's Packr bytes of random record data decode to what its Unpackr gives", () => {
    const packr = new msgpackr.Packr();
    const unpackr = new msgpackr.Unpackr();
    forSeeds(150, (r) => {
      const bytes = packr.pack(recordData(r, false));
      expectEqual(plain(decode(bytes, { useRecords: true, useMap: true })), plain(unpackr.unpack(bytes)));
    });
  });

  test("sequential messages from one encoder decode in order (decodeMulti, msgpackr's unpackMultiple)", () => {
    forSeeds(15, (r) => {
      const encoder = new Encoder({ useRecords: true, sequential: true });
      const messages = Array.from({ length: r.int(1, 20) }, () => recordData(r, false));
      const all = Buffer.concat(messages.map((m) => encoder.encode(m)));
      expectEqual(plain([...decodeMulti(all, R)]), plain(messages));
      expectEqual(plain(new msgpackr.Unpackr({ sequential: true, int64AsType: "auto" } as unknown as msgpackr.Options).unpackMultiple(all)), plain(messages));
    });
  });

  test("random bytes decode with useRecords to a value or a DecodeError, never another error", () => {
    forSeeds(3000, (r) => {
      const bytes = r.bytes(r.int(1, 40));
      // bias toward record bytes: identifiers and declarations
      for (let i = 0; i < bytes.length; i++) if (r.bool(0.3)) bytes[i] = r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xa1]);
      try {
        decode(bytes, { useRecords: true, structures: [["a"], ["b", "c"]] });
      } catch (e) {
        expect(e).toBeInstanceOf(DecodeError);
      }
    });
  });
});

/** A declaration of identifier `id` (fixext 1) with `names` (fixstr), then `values` (single bytes). */
function declare(id: number, names: string[], values: number[] = []): number[] {
  const out = [0xd4, 0x72, id, ...(names.length < 16 ? [0x90 | names.length] : [0xdc, names.length >> 8, names.length & 0xff])];
  for (const n of names) out.push(0xa0 | n.length, ...new TextEncoder().encode(n));
  return [...out, ...values];
}

describe("records: hostile input", () => {
  const d = (bytes: number[] | Uint8Array, options = {}): unknown => decode(new Uint8Array(bytes), { useRecords: true, ...options });
  const error = (f: () => unknown): DecodeError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(DecodeError);
      return e as DecodeError;
    }
    throw new Error("did not throw");
  };

  test("an identifier with no structure is INVALID_BYTE at its offset", () => {
    const e = error(() => d([0x92, 0x01, 0x45]));
    expect([e.code, e.offset]).toEqual(["INVALID_BYTE", 2]);
    expect(e.message).toMatch(/no record structure for identifier 0x45/);
    // a two-byte identifier whose high byte names no structure
    const shared = Array.from({ length: 40 }, (_, i) => [`k${i}`]);
    expect(d([0x60, 0x00, 0x01], { structures: shared })).toEqual({ k32: 1 });
    expect(error(() => d([0x60, 0x05, 0x01], { structures: shared })).code).toBe("INVALID_BYTE");
  });

  test("bad declarations: identifier out of range, no array of names, non-string names", () => {
    expect(error(() => d([0xd4, 0x72, 0x20, 0x90])).code).toBe("INVALID_BYTE");
    expect(error(() => d([0xd5, 0x72, 0x40, 0x01, 0x90])).code).toBe("INVALID_BYTE");
    const noArray = error(() => d([0x91, 0xd4, 0x72, 0x40, 0xa1, 0x61]));
    expect([noArray.code, noArray.offset]).toEqual(["INVALID_EXT", 1]);
    const badName = error(() => d([0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xc3, 0x01, 0x02]));
    expect([badName.code, badName.offset]).toEqual(["INVALID_KEY", 6]);
    // numbers become names, as map keys do
    expect(d([0xd4, 0x72, 0x40, 0x92, 0x01, 0xa1, 0x61, 0x05, 0x06])).toEqual({ 1: 5, a: 6 });
  });

  test("limits: fields count against maxMapLength, nesting against maxDepth, lengths before allocating", () => {
    const names = Array.from({ length: 20 }, (_, i) => `f${i}`);
    const bytes = declare(0x40, names, names.map(() => 1));
    expect(Object.keys(d(bytes) as object)).toHaveLength(20);
    const over = error(() => d(bytes, { maxMapLength: 19 }));
    expect([over.code, over.offset]).toEqual(["MAX_LENGTH", 0]);
    // a record in a record in a record: depth 3
    const nested = [...declare(0x40, ["a"]), ...declare(0x41, ["b"]), ...declare(0x42, ["c"], [1])];
    expect(d(nested)).toEqual({ a: { b: { c: 1 } } });
    expect(error(() => d(nested, { maxDepth: 2 })).code).toBe("MAX_DEPTH");
    // a declaration of 2^32-1 names in a few bytes: refused before allocating anything
    expect(error(() => d([0xd4, 0x72, 0x40, 0xdd, 0xff, 0xff, 0xff, 0xff, 0xa1, 0x61])).code).toBe("TRUNCATED");
    // a record of many fields with too few bytes left
    expect(error(() => d([...declare(0x40, names, [1, 2]), 0x40])).code).toBe("TRUNCATED");
  });

  test("a declaration of 10,000 fields decodes, its fields in order", () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `field${i}`);
    const obj = Object.fromEntries(names.map((n, i) => [n, i % 50]));
    const back = d(encode([obj, obj], R)) as Record<string, number>[];
    expect(back).toEqual([obj, obj]);
    expect(Object.keys(back[1]!)).toEqual(names);
  });

  test("duplicate field names: the last value wins, as with duplicate map keys", () => {
    expect(d(declare(0x40, ["a", "b", "a"], [1, 2, 3]))).toEqual({ a: 3, b: 2 });
    expect(d([0x83, 0xa1, 0x61, 1, 0xa1, 0x62, 2, 0xa1, 0x61, 3])).toEqual({ a: 3, b: 2 });
  });

  test("__proto__ as a field name is an own property; no prototype changes", () => {
    const bytes = [0x92, ...declare(0x40, ["__proto__", "x"], [0x81, 0xa1, 0x70, 0x01, 0x02]), 0x40, 0x81, 0xa1, 0x70, 0x01, 0x03];
    const [a, b] = d(bytes) as Record<string, unknown>[];
    for (const o of [a!, b!]) {
      expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
      expect(Object.keys(o)).toEqual(["__proto__", "x"]);
      expect((o as { p?: unknown }).p).toBeUndefined();
    }
    expect(Object.getOwnPropertyDescriptor(a, "__proto__")?.value).toEqual({ p: 1 });
    expect(({} as { p?: unknown }).p).toBeUndefined();
    // and "constructor", "toString": plain own properties
    expect(d(declare(0x40, ["constructor", "toString"], [1, 2]))).toEqual({ constructor: 1, toString: 2 });
  });

  test("objects built from a structure are plain objects", () => {
    const [a] = d(encode([{ a: 1, b: 2 }], R)) as object[];
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(a!.constructor).toBe(Object);
    expect(JSON.stringify(a)).toBe('{"a":1,"b":2}');
  });

  test("a redefinition storm: 100,000 declarations of one identifier decode, each record with its latest structure", () => {
    const parts: number[] = [0xdd, 0x00, 0x01, 0x86, 0xa0];
    for (let i = 0; i < 100_000; i++) parts.push(...declare(0x40 + (i % 64), [i % 2 ? "a" : "b"], [i % 60]));
    const out = d(parts) as Record<string, number>[];
    expect(out).toHaveLength(100_000);
    expect(out[99_999]).toEqual({ a: 99_999 % 60 });
    expect(out[99_998]).toEqual({ b: 99_998 % 60 });
  });

  test("a structure declared in one message is not defined in the next decode()", () => {
    const decoder = new Decoder(R);
    expect(decoder.decode(new Uint8Array(declare(0x40, ["a"], [1])))).toEqual({ a: 1 });
    expect(error(() => decoder.decode(new Uint8Array([0x40, 0x01]))).code).toBe("INVALID_BYTE");
  });

  test("definitions over shared identifiers last until the message ends: the next decode(), after a failed one too, has the shared structures", () => {
    const decoder = new Decoder({ useRecords: true, structures: [["s"]] });
    // 0x40 defined twice in one message, 0x41 once
    const twice = [0x94, ...declare(0x40, ["a"], [1]), ...declare(0x40, ["b"], [2]), 0x40, 3, ...declare(0x41, ["c"], [4])];
    expect(decoder.decode(new Uint8Array(twice))).toEqual([{ a: 1 }, { b: 2 }, { b: 3 }, { c: 4 }]);
    expect(decoder.decode(new Uint8Array([0x40, 5]))).toEqual({ s: 5 });
    expect(error(() => decoder.decode(new Uint8Array([0x41, 6]))).code).toBe("INVALID_BYTE");
    expect(error(() => decoder.decode(new Uint8Array([0x92, ...declare(0x40, ["d"], [7]), 0x42]))).code).toBe("INVALID_BYTE");
    expect(decoder.decode(new Uint8Array([0x40, 8]))).toEqual({ s: 8 });
  });

  test("a stream value cut short undoes its declarations: a record before a redefinition keeps the earlier structure", async () => {
    const encoder = new Encoder({ useRecords: true, sequential: true });
    const first = encoder.encode({ a: 1 }); // declares 0x40 = [a]
    // a second message by hand: a record of [a], then 0x40 redeclared as [b]
    const second = new Uint8Array([0x92, 0x40, 0x02, ...declare(0x40, ["b"], [0x03])]);
    const bytes = new Uint8Array([...first, ...second, 0x40, 0x04]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const chunks = async function* () {
        yield bytes.subarray(0, cut);
        yield bytes.subarray(cut);
      };
      const out: unknown[] = [];
      for await (const v of decodeMultiStream(chunks(), R)) out.push(v);
      expect(out, `cut at ${cut}`).toEqual([{ a: 1 }, [{ a: 2 }, { b: 3 }], { b: 4 }]);
    }
  });
});

describe("records: streams decode each value once, whatever the chunking", () => {
  /** An array of `n` small records, as msgpackr's default Packr writes it. */
  const rows = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ i, s: `r${i % 10}` }));
  async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }

  test("a value that declares its structures and reuses them, split anywhere: one try with the first chunk, then one decode once complete", async () => {
    // msgpackr declares the rows' two structures inside the one value, before their first records: the decoder has not read
    // them while the value is incomplete, so the counter follows what the value declares to count the later records' values
    const values = Array.from({ length: 300 }, (_, i) => ({ name: `row ${i}`, tags: [i, { deep: "x".repeat(i % 50) }] }));
    const bytes = new msgpackr.Packr().pack(values);
    for (const size of [1, 7, 64]) {
      const stats = createStreamStats();
      expectEqual(await decodeAsync(chunksOf(bytes, size), { ...R, stats }), values);
      expect(stats.bytesDecoded, `chunks of ${size}`).toBeLessThanOrEqual(bytes.length + size);
      expect(stats.bytesScanned, `chunks of ${size}`).toBeLessThanOrEqual(bytes.length);
    }
  });

  test("a stream that ends inside a record or a declaration: decode()'s TRUNCATED error, which says where the stream ended", async () => {
    const bytes = new msgpackr.Packr().pack([{ a: 1, b: 2 }, { a: 3, b: 4 }]);
    for (let end = 1; end < bytes.length; end++) {
      const whole = (() => {
        try {
          return decode(bytes.subarray(0, end), R);
        } catch (e) {
          return e as DecodeError;
        }
      })() as DecodeError;
      expect(whole, `end ${end}`).toMatchObject({ code: "TRUNCATED" });
      const err = (await decodeAsync(chunksOf(bytes.subarray(0, end), 3), R).catch((e: unknown) => e)) as DecodeError;
      expect({ code: err.code, offset: err.offset, needed: err.needed, message: err.message }, `end ${end}`).toEqual({
        code: "TRUNCATED",
        offset: whole.offset,
        needed: whole.needed,
        message: `${whole.message} (the stream ended at offset ${end})`,
      });
    }
  });

  test("an array of 40,000 records in 256-byte chunks: every stream decoder decodes about its bytes, not bytes x chunks", async () => {
    const values = rows(40_000);
    const bytes = new msgpackr.Packr().pack(values);
    const check = (stats: StreamStats, where: string): void => {
      expect(stats.bytesIn, where).toBe(bytes.length);
      // one try with the first chunk, then once complete: a re-decode per chunk would be ~1,000x the bytes
      expect(stats.bytesDecoded, where).toBeLessThanOrEqual(2 * bytes.length);
      expect(stats.bytesScanned, where).toBeLessThanOrEqual(bytes.length);
    };
    let stats = createStreamStats();
    expectEqual(await decodeAsync(chunksOf(bytes, 256), { ...R, stats }), values);
    check(stats, "decodeAsync");
    stats = createStreamStats();
    const multi: unknown[] = [];
    for await (const v of decodeMultiStream(chunksOf(bytes, 256), { ...R, stats })) multi.push(v);
    expectEqual(multi, [values]);
    check(stats, "decodeMultiStream");
    stats = createStreamStats();
    const own: unknown[] = [];
    for await (const v of new Decoder({ ...R, stats }).decodeStream(chunksOf(bytes, 256))) own.push(v);
    expectEqual(own, [values]);
    check(stats, "Decoder#decodeStream");
    const transform = new DecoderStream({ ...R, stats: (stats = createStreamStats()) });
    const out: unknown[] = [];
    const reading = (async () => {
      const reader = transform.readable.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    })();
    const writer = transform.writable.getWriter();
    for await (const chunk of chunksOf(bytes, 256)) await writer.write(chunk);
    await writer.close();
    await reading;
    expectEqual(out, [values]);
    check(stats, "DecoderStream");
  });

  test("sequential messages that span chunks (structures from earlier values, two-byte identifiers, redefinitions): decoded once each", async () => {
    const packr = new msgpackr.Packr({ sequential: true });
    const values = [...apiRecords(30), ...manyShapes(70), rows(500), { a: { b: { c: [{ d: 1 }] } } }];
    const bytes = Buffer.concat(values.map((v) => packr.pack(v)));
    for (const size of [1, 5, 256]) {
      const stats = createStreamStats();
      const out: unknown[] = [];
      for await (const v of decodeMultiStream(chunksOf(bytes, size), { ...R, stats })) out.push(v);
      expectEqual(out, values, `chunks of ${size}`);
      expect(stats.bytesDecoded, `chunks of ${size}`).toBeLessThanOrEqual(2 * bytes.length);
    }
  });

  test("property: chunked stream decoding with records agrees with decodeMulti on the whole input, corrupted input too", async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = new Random(seed);
      const packr = new msgpackr.Packr({ sequential: true });
      const bytes = Buffer.concat(Array.from({ length: r.int(1, 4) }, () => packr.pack(recordData(r, false))));
      if (r.bool(0.5)) bytes[r.int(0, bytes.length - 1)] = r.int(0, 255);
      const cut = r.bool(0.3) ? bytes.subarray(0, r.int(0, bytes.length)) : bytes;
      const whole: unknown[] = [];
      let wholeError: DecodeError | null = null;
      try {
        for (const v of decodeMulti(cut, R)) whole.push(v);
      } catch (e) {
        wholeError = e as DecodeError;
      }
      const size = r.pick([1, 2, 3, 7, 64, 1000]);
      const streamed: unknown[] = [];
      let streamError: DecodeError | null = null;
      try {
        for await (const v of decodeMultiStream(chunksOf(cut, size), R)) streamed.push(v);
      } catch (e) {
        streamError = e as DecodeError;
      }
      const where = `seed ${seed}, chunks of ${size}`;
      expectEqual(streamed, whole, where);
      expect(streamError?.code, where).toBe(wholeError?.code);
      expect(streamError?.offset, where).toBe(wholeError?.offset);
    }
  });
});

describe("records: defects found by attack", () => {
  test("decode() keeps no structure past its message: 100 hostile messages of 195 KiB of field names leave the heap as it was", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // each message declares ten structures of 10 names of 2,000 characters, new to the program
    const message = (m: number): Uint8Array => {
      const parts: Uint8Array[] = [Uint8Array.of(0x9a)];
      for (let k = 0; k < 10; k++) {
        const names = Array.from({ length: 10 }, (_, i) => `${m}:${k}:${i}:`.padEnd(2000, "x"));
        parts.push(Uint8Array.of(0xd4, 0x72, 0x40 + k), encode(names), new Uint8Array(10).fill(1));
      }
      return Buffer.concat(parts);
    };
    const decoder = new Decoder(R);
    const first = message(-1);
    expect(first.length).toBeGreaterThan(195 * 1024);
    decoder.decode(first);
    decode(first, R);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let m = 0; m < 100; m++) {
      const bytes = message(m);
      expect((decoder.decode(bytes) as object[]).length).toBe(10);
      expect((decode(bytes, R) as object[]).length).toBe(10);
    }
    gc();
    // the structures of 100 messages were ~40 MB of names; what stays is at most the bounded cache
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 1024 * 1024);
  });

  /** A declaration (identifier `id`) of the field names `names`, then its record: a nil per field. */
  const declaration = (names: string[], id = 0x40): Uint8Array => Buffer.concat([Uint8Array.of(0xd4, 0x72, id), encode(names), new Uint8Array(names.length).fill(0xc0)]);
  /** An array of `values`, each already encoded. */
  const arrayOf = (values: Uint8Array[]): Uint8Array => Buffer.concat([Uint8Array.of(0xdd, 0, 0, values.length >> 8, values.length & 255), ...values]);
  /** Heap bytes still used after `run` (kept alive through its result), garbage collected before and after. */
  const retainedBy = (run: () => unknown): number => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = run();
    gc();
    const after = process.memoryUsage().heapUsed;
    expect(kept).toBeDefined();
    return after - before;
  };

  test("a declaration of 65,535 empty field names leaves no more than its own size behind, in every decoder that read it", () => {
    const bytes = declaration(new Array<string>(65_535).fill(""));
    expect(bytes.length).toBe(65_535 * 2 + 6);
    // eight decoders kept alive, and sixteen calls with a context of their own (each gets a decoder of its own)
    const decoders = Array.from({ length: 8 }, () => new Decoder(R));
    const kept = retainedBy(() => {
      for (const d of decoders) expect(Object.keys(d.decode(bytes) as object)).toEqual([""]);
      for (let i = 0; i < 16; i++) decode(bytes, { ...R, context: { i } } as typeof R);
      return decoders;
    });
    // a structure cache of a node per name kept 120 times the message per decoder (15.7 MB each)
    expect(kept).toBeLessThan(24 * 2 * bytes.length);
  });

  test("declarations made to fill the structure cache: each decoder keeps a bounded amount, 16 per-call contexts a few MB", () => {
    // small structures of new names, structures of 2,000 short names, and of 30 names: each past the cache's budget
    const messages = [
      arrayOf(Array.from({ length: 6000 }, (_, j) => declaration([`k${j}`], 0x40 + (j & 31)))),
      arrayOf(Array.from({ length: 40 }, (_, j) => declaration(Array.from({ length: 2000 }, (_, i) => `${j}:${i}`), 0x40 + (j & 31)))),
      arrayOf(Array.from({ length: 1000 }, (_, j) => declaration(Array.from({ length: 30 }, (_, i) => `f${j}_${i}`), 0x40 + (j & 31)))),
    ];
    for (const bytes of messages) {
      expect(bytes.length).toBeGreaterThan(60_000);
      const kept = retainedBy(() => {
        for (let i = 0; i < 16; i++) expect((decode(bytes, { ...R, context: { i } } as typeof R) as unknown[]).length).toBeGreaterThan(0);
        return 1;
      });
      // at most about 256 KiB per decoder (the cache's budget, in what its entries keep alive)
      expect(kept, `${bytes.length} bytes`).toBeLessThan(16 * 512 * 1024);
    }
  });

  test("a shape declared again by each of 20 separate messages is the same structure each time: its reader is compiled once", () => {
    const real = globalThis.Function;
    let made = 0;
    globalThis.Function = new Proxy(real, { construct: (target, args) => (made++, Reflect.construct(target, args)) });
    try {
      const decoder = new Decoder(R);
      for (let i = 0; i < 20; i++) expect(decoder.decode(declaration(["alpha", "beta"]))).toEqual({ alpha: null, beta: null });
      expect(made).toBe(1);
      // a structure too large to cache is new in each message: never read often enough to compile
      const large = declaration(Array.from({ length: 3000 }, (_, i) => `n${i}`));
      for (let i = 0; i < 20; i++) decoder.decode(large);
      expect(made).toBe(1);
    } finally {
      globalThis.Function = real;
    }
  });

  test("maxSharedStructures above 32 without structures is INVALID_ARGUMENT (its two-byte identifiers would not decode); up to 32 the records decode", () => {
    for (const max of [33, 64, 8160]) {
      for (const f of [() => new Encoder({ useRecords: true, maxSharedStructures: max }), () => encode([{ a: 1 }, { a: 2 }], { useRecords: true, maxSharedStructures: max })]) {
        expect(f).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/maxSharedStructures/) }));
      }
    }
    const values = [...manyShapes(80), { a: 1 }, { a: 2 }];
    for (const max of [0, 10, 32]) {
      const bytes = encode(values, { useRecords: true, maxSharedStructures: max });
      expectEqual(decode(bytes, R), values, `maxSharedStructures ${max}`);
      expectEqual(new msgpackr.Unpackr().unpack(bytes), values, `maxSharedStructures ${max}`);
    }
  });

  test("a sequential encoder's encodeInto that fails with OUT_OF_SPACE declares nothing: the retry declares its structures again", () => {
    const encoder = new Encoder({ useRecords: true, sequential: true });
    const small = new Uint8Array(4);
    expect(() => encoder.encodeInto({ alpha: 1, beta: 2 }, small)).toThrow(expect.objectContaining({ code: "OUT_OF_SPACE" }));
    const target = new Uint8Array(64);
    const n = encoder.encodeInto({ alpha: 1, beta: 2 }, target);
    const second = encoder.encode({ alpha: 3, beta: 4 });
    const bytes = Buffer.concat([target.subarray(0, n), second]);
    expect([...decodeMulti(bytes, R)]).toEqual([{ alpha: 1, beta: 2 }, { alpha: 3, beta: 4 }]);
    expect(new msgpackr.Unpackr({ sequential: true }).unpackMultiple(bytes)).toEqual([{ alpha: 1, beta: 2 }, { alpha: 3, beta: 4 }]);
  });

  test("sequential in encode() and encodedSize() is INVALID_ARGUMENT: a sequence needs an Encoder to hold it", () => {
    const S = { useRecords: true, sequential: true } as const;
    for (const f of [() => encode({ a: 1 }, S), () => encodedSize({ a: 1 }, S), () => encode(1, { sequential: true })]) {
      expect(f).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/sequential.*new Encoder/) }));
    }
    // two modules' one-shot calls no longer share one hidden sequence: each message decodes alone
    expect(decode(encode({ a: 1 }, R), R)).toEqual({ a: 1 });
    expect(decode(encode({ a: 2 }, R), R)).toEqual({ a: 2 });
  });

  test("extension type 0x72 with useRecords is INVALID_EXT (it would read as a record declaration); without records it is written", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 0x72, encode: (v) => (v instanceof Set ? Uint8Array.of(0x40) : null), decode: () => "r" });
    const cases: [unknown, object][] = [[[new ExtData(0x72, Uint8Array.of(0x40)), "x", "y"], {}], [[new Set([1]), "x"], { extensionCodec: codec }], [new ExtData(0x72, new Uint8Array(300)), {}]];
    for (const [value, options] of cases) {
      expect(() => encode(value, { ...R, ...options })).toThrow(expect.objectContaining({ code: "INVALID_EXT", message: expect.stringMatching(/0x72.*useRecords/) }));
      expect(() => new Encoder({ ...R, sequential: true, ...options }).encode(value)).toThrow(EncodeError);
    }
    expect([...decodeMulti(encode([new ExtData(0x72, Uint8Array.of(0x40)), "x", "y"]))]).toEqual([[new ExtData(0x72, Uint8Array.of(0x40)), "x", "y"]]);
  });

  test("the records hint wherever a record declaration comes before the failure: arrays of rows, maps of records, a top-level record", () => {
    const packr = new msgpackr.Packr();
    for (const value of [[{ a: 1 }, { a: 2 }], { a: 1 }, { rows: [{ id: 1, name: "x" }, { id: 2, name: "y" }] }, [1, "two", { deep: [{ x: 1 }, { x: 2 }] }], apiRecords(5)]) {
      expect(() => decode(packr.pack(value)), JSON.stringify(value)).toThrow(/looks like msgpackr records \(decode them with useRecords: true, from "@resizable\/msgpack\/records"\)/);
    }
    // plain MessagePack with extra bytes still points to decodeMulti
    expect(() => decode(Uint8Array.of(0x01, 0x02))).toThrow(/see decodeMulti/);
    expect(() => decode(Uint8Array.of(0x92, 0xd4, 0x73, 0x40, 0x91, 0xa1, 0x61, 0x01, 0x40, 0x02))).toThrow(/see decodeMulti/);
  });
});

describe("records: compiled readers (compileRecordReaders)", () => {
  const HOSTILE = [
    'a"b', "a\\b", "`", "${x}", "${", "`${globalThis.pwned = 1}`", '"+(globalThis.pwned=1)+"', "'", "constructor", "toString", "hasOwnProperty", "valueOf",
    "\u2028", "\u2029", "</script>", "<!--", "*/", "/*", "//", "})", "});globalThis.pwned=1;({", "\n", "\r", "\u0000", "\ud800", "\udc00x", "0", "1", "10", "-1", "1.5",
    "4294967295", "", " ", "x".repeat(10_000), "日本", "😀", "__defineGetter__", "prototype", "length", "then",
  ];
  const COMPILED = { useRecords: true } as const;
  const PLAIN = { useRecords: true, compileRecordReaders: false } as const;
  /** `n` records of `keys` with distinct values, written by msgpackr (duplicates and all). */
  const recordsOf = (keys: string[], n: number): Uint8Array => {
    const parts: Uint8Array[] = [Uint8Array.of(0xdc, n >> 8, n & 0xff), Uint8Array.of(0xd4, 0x72, 0x40), encode(keys)];
    for (let i = 0; i < n; i++) {
      if (i > 0) parts.push(Uint8Array.of(0x40));
      // no integers 64-127: their fixint bytes would start records
      for (let k = 0; k < keys.length; k++) parts.push(encode(k % 3 === 0 ? -(i * keys.length + k) : k % 3 === 1 ? `v${i}:${k}` : [String(k), null, true]));
    }
    return Buffer.concat(parts);
  };
  /** Own keys in order with their values, and the prototype: what two readers must agree on. */
  const shapeOf = (o: object): unknown => [Object.getPrototypeOf(o), Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)])];

  test("each hostile field name is read as data, with exactly the values and key order of the reader that generates no code", () => {
    (globalThis as { pwned?: unknown }).pwned = undefined;
    const groups = [HOSTILE.slice(0, 12), HOSTILE.slice(12, 24), HOSTILE.slice(24, 36), HOSTILE.slice(36), ["a", "a", "b", "a"], ["__proto__", "a"], ["1", "a", "0"]];
    for (const keys of [...groups, ...HOSTILE.map((k) => [k])]) {
      const bytes = recordsOf(keys, 40);
      const compiled = new Decoder(COMPILED).decode(bytes) as object[];
      const plain = new Decoder(PLAIN).decode(bytes) as object[];
      expect(compiled.length).toBe(40);
      for (let i = 0; i < 40; i++) expectEqual(shapeOf(compiled[i]!), shapeOf(plain[i]!), JSON.stringify(keys).slice(0, 80));
      expect(Object.getPrototypeOf(compiled[39]!)).toBe(Object.prototype);
    }
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("a");
  });

  test("property: compiled and plain readers agree on random record data from msgpackr, structures read past the compile threshold", () => {
    forSeeds(30, (r) => {
      // msgpackr writes lone surrogates as bytes that are no UTF-8: those names are in the test above only
      const names = HOSTILE.filter((k) => k.isWellFormed());
      const shapes = Array.from({ length: r.int(1, 6) }, () => Array.from({ length: r.int(0, 70) }, () => (r.bool(0.2) ? r.pick(names) : string(r, 12))));
      const rows = Array.from({ length: r.int(16, 80) }, () => {
        const o: Record<string, unknown> = {};
        for (const k of r.pick(shapes)) o[k] = value(r, { rich: false, maxDepth: 2, maxItems: 3 });
        return o;
      });
      const bytes = new msgpackr.Packr().pack(rows);
      const compiled = decode(bytes, COMPILED) as object[];
      const plain = decode(bytes, PLAIN) as object[];
      expectEqual(compiled.map(shapeOf), plain.map(shapeOf));
    });
  });

  test("where new Function throws (a CSP without 'unsafe-eval'), records decode the same values with no error", async () => {
    const bytes = new msgpackr.Packr().pack(apiRecords(200));
    const expected = decode(bytes, PLAIN);
    const original = globalThis.Function;
    let refused = 0;
    globalThis.Function = new Proxy(original, {
      construct() {
        refused++;
        throw new EvalError("Code generation from strings disallowed for this context");
      },
    });
    try {
      vi.resetModules();
      const fresh = await import("../src/records.ts");
      expectEqual(fresh.decode(bytes, COMPILED), expected);
      expectEqual(new fresh.Decoder(COMPILED).decode(bytes), expected);
    } finally {
      globalThis.Function = original;
    }
    expect(refused).toBe(1); // tried once, then never again
  });

  test("compileRecordReaders: false generates no code; a non-boolean is INVALID_ARGUMENT", () => {
    const original = globalThis.Function;
    let calls = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        calls++;
        return Reflect.construct(target, args);
      },
    });
    try {
      const bytes = new msgpackr.Packr().pack(apiRecords(100));
      expectEqual(new Decoder(PLAIN).decode(bytes), apiRecords(100).map((o) => plain(o)));
      expect(calls).toBe(0);
    } finally {
      globalThis.Function = original;
    }
    expect(() => new Decoder({ useRecords: true, compileRecordReaders: "no" as never })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
