import { describe, expect, test } from "vitest";
import { decode, DecodeError, Decoder, encode, EncodeError, encodedSize, Encoder, ExtData, ExtensionCodec } from "../src/index.ts";
import { DecoderStream, EncoderStream, encodeIterable } from "../src/streams.ts";
import { coderCache, misspelling } from "../src/common/options.ts";
import { encodeOptionsOf } from "../src/encode/options.ts";
import { decodeOptionsOf } from "../src/decode/options.ts";
import { hex } from "./_support/arbitrary.ts";

/** The options a side knows: the keys of what its resolver returns. */
const namesOf = (resolve: (o: unknown) => object): Set<string> => new Set(Object.keys(resolve({})));

/** `depth` arrays nested in one another around a 0. */
function nested(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe("coderCache: one coder per resolved options", () => {
  test("equal fields find the same coder; different values, types or identities another; the cache is bounded", () => {
    let made = 0;
    const get = coderCache<number>(() => ++made);
    const codec = {};
    const first = get({ a: true, codec, n: 1 });
    for (let i = 0; i < 100; i++) expect(get({ a: true, codec, n: 1 })).toBe(first);
    expect(get({ a: true, codec: {}, n: 1 })).not.toBe(first); // objects by identity
    expect(get({ a: true, codec, n: "1" })).not.toBe(first);
    expect(get({ a: true, codec, n: 2 })).not.toBe(first);
    expect(get({ n: NaN })).toBe(get({ n: NaN })); // NaN is NaN
    expect(get({ a: true, codec, n: 1 })).toBe(first);
    for (let i = 0; i < 200; i++) get({ n: i });
    const before = made;
    get({ a: true, codec, n: 1 }); // evicted after 64 newer ones
    expect(made).toBe(before + 1);
  });

  test("encode() and decode() with equal inline options share a coder, whatever the literal's key order", () => {
    const codec = new ExtensionCodec();
    expect(encodeOptionsOf({ sortKeys: true, extensionCodec: codec })).toEqual(encodeOptionsOf({ extensionCodec: codec, sortKeys: true }));
    expect(decodeOptionsOf({ useMap: true, maxDepth: 3 })).toEqual(decodeOptionsOf({ maxDepth: 3, useMap: true }));
    expect(decodeOptionsOf({ useMap: true })).not.toEqual(decodeOptionsOf({ useMap: false }));
  });
});

describe("options are read once, by property access, and no object can poison another call", () => {
  const deep = encode(nested(4)); // 4 levels of arrays

  test("a getter that answers 2, then 1000, leaves no maxDepth: 1000 decoder behind for maxDepth: 2", () => {
    let n = 0;
    const shifty = {
      get maxDepth() {
        return n++ === 0 ? 2 : 1000;
      },
    };
    expect(() => decode(deep, shifty)).toThrow(DecodeError); // read once: 2
    expect(decode(deep, shifty)).toEqual(nested(4)); // read again: 1000
    for (let i = 0; i < 3; i++) expect(() => decode(deep, { maxDepth: 2 })).toThrow(/maxDepth|deep/);
    expect(n).toBe(2);
  });

  test("a Proxy that answers differently on each read cannot poison maxStrLength", () => {
    const long = encode("x".repeat(100));
    let reads = 0;
    const proxy = new Proxy({ maxStrLength: 10 }, {
      get: (target, name) => (name === "maxStrLength" ? (reads++ % 2 === 0 ? 1000 : 10) : Reflect.get(target, name)),
    });
    decode(long, proxy);
    for (let i = 0; i < 3; i++) expect(() => decode(long, { maxStrLength: 10 })).toThrow(/maxStrLength/);
    expect(reads).toBe(1);
  });

  test("each known option is read exactly once per call, and names that are not options are never read", () => {
    const reads = new Map<string | symbol, number>();
    const target: object = { sortKeys: true, foreign: "a".repeat(1 << 20) };
    const proxy = new Proxy(target, {
      get: (t, name) => {
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return Reflect.get(t, name);
      },
    });
    encode({ b: 1, a: 2 }, proxy);
    expect(reads.get("sortKeys")).toBe(1);
    expect(reads.get("foreign")).toBeUndefined();
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    reads.clear();
    decode(encode({ a: 1 }), proxy);
    expect(reads.get("maxDepth")).toBe(1);
    expect(reads.get("foreign")).toBeUndefined();
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
  });

  test("a class instance with a getter, an inherited option and a non-enumerable one count, inline as in the constructor", () => {
    class Limits {
      get maxStrLength(): number {
        return 3;
      }
    }
    const long = encode("abcdef");
    expect(() => decode(long, new Limits())).toThrow(/maxStrLength/);
    expect(() => new Decoder(new Limits()).decode(long)).toThrow(/maxStrLength/);
    const inherited = Object.create({ maxStrLength: 3 }) as object;
    expect(() => decode(long, inherited)).toThrow(/maxStrLength/);
    const hidden = Object.defineProperty({}, "maxDepth", { value: 2, enumerable: false });
    expect(() => decode(deep, hidden)).toThrow(/maxDepth|deep/);
    expect(() => new Decoder(hidden).decode(deep)).toThrow(/maxDepth|deep/);
  });

  test("an extensionCodec getter is honoured by encode() as by new Encoder()", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 5, encode: (v) => (v instanceof Map ? new Uint8Array([7]) : null), decode: () => "map" });
    const options = {
      get extensionCodec() {
        return codec;
      },
    };
    // fixext 1 of type 5, not the empty map 80
    expect(hex(encode(new Map(), options))).toBe("d4-05-07");
    expect(hex(new Encoder(options).encode(new Map()))).toBe("d4-05-07");
  });

  test("a misspelled option throws, with the option it was meant to be; other libraries' options are ignored", () => {
    expect(() => new Decoder({ maxStrLenght: 2 } as object)).toThrow(/maxStrLenght.*did you mean maxStrLength/);
    expect(() => decode(encode(1), { maxdepth: 2 } as object)).toThrow(/did you mean maxDepth/);
    expect(() => encode(1, { sortkeys: true } as object)).toThrow(EncodeError);
    expect(() => encode(1, { sortkeys: true } as object)).toThrow(/did you mean sortKeys/);
    expect(() => new Encoder({ ignoreUndefind: true } as object)).toThrow(/did you mean ignoreUndefined/);
    // msgpackr's and notepack's names, and an encode option given to decode, pass
    expect(decode(encode(1), { mapsAsObjects: true, int64AsType: "number", sortKeys: true } as object)).toBe(1);
    expect(hex(encode(1, { variableMapSize: true, maxStrLength: 4 } as object))).toBe("01");
  });

  test("a misspelled name with a control character in it is quoted in the message, so no terminal acts on it", () => {
    for (const [name, quoted] of [["sortKey\x1b", '"sortKey\\u001b"'], ["sortKeys\r", '"sortKeys\\r"'], ["maxDepth\n", '"maxDepth\\n"']] as const) {
      let message = "";
      try {
        if (name.startsWith("max")) decode(encode(1), { [name]: 1 } as object);
        else encode(1, { [name]: 1 } as object);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, JSON.stringify(name)).toContain(quoted);
      expect(message).toMatch(/did you mean (sortKeys|maxDepth)\?/);
      expect(message).not.toMatch(/[\x00-\x1f\x7f]/);
    }
  });

  test("ExtensionCodec.defaultCodec registrations are used by encode, decode, Decoder and the streaming encoder", () => {
    class P {
      readonly n: number;
      constructor(n: number) {
        this.n = n;
      }
    }
    ExtensionCodec.defaultCodec.register({
      type: 11,
      encode: (v) => (v instanceof P ? new Uint8Array([v.n]) : null),
      decode: (data) => new P(data[0]!),
    });
    try {
      const bytes = encode(new P(5));
      expect(hex(bytes)).toBe("d4-0b-05");
      expect(decode(bytes)).toEqual(new P(5));
      expect(new Decoder().decode(bytes)).toEqual(new P(5));
      expect(decode(bytes, { useMap: true })).toEqual(new P(5));
      const streamed = [...encodeIterable({ big: new Array(5000).fill(new P(1)) }, { chunkSize: 64 })];
      expect(hex(Uint8Array.from(streamed.flatMap((c) => [...c])))).toBe(hex(encode({ big: new Array(5000).fill(new P(1)) })));
      expect(Uint8Array.from(streamed.flatMap((c) => [...c])).includes(0x0b)).toBe(true);
    } finally {
      ExtensionCodec.defaultCodec.register({ type: 11, encode: () => null, decode: (data, type) => new ExtData(type, data.slice()) });
    }
  });
});

describe("encodeSharedRef: the view stays valid until the next call on the same encoder", () => {
  test("other encoders, encode() and encodedSize never write into it", () => {
    const a = new Encoder();
    const view = a.encodeSharedRef({ kept: [1, 2, 3] });
    const before = hex(view);
    new Encoder().encode({ other: "x".repeat(100) });
    encode({ other: "y".repeat(100) });
    encodedSize({ other: "z".repeat(100) });
    new Encoder().encodeSharedRef("another view");
    expect(hex(view)).toBe(before);
    a.encodeSharedRef("now it changes");
    expect(hex(view)).not.toBe(before);
  });

  test("a view from one encoder given to encode() as a payload is written as it is", () => {
    const view = new Encoder().encodeSharedRef({ inner: "payload", n: 7 });
    const copy = view.slice();
    const out = decode(encode({ type: "envelope", payload: view })) as { payload: Uint8Array };
    expect(hex(out.payload)).toBe(hex(copy));
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

  test("null options are no options (as in @msgpack/msgpack); a primitive is an INVALID_ARGUMENT error", () => {
    const v = { b: 1, a: 2 };
    encode(v, {}); // an empty options object is the last one seen
    expect(hex(encode(v, null as unknown as undefined))).toBe(hex(encode(v)));
    expect(decode(encode(v), null as unknown as undefined)).toEqual(v);
    expect(() => encode(v, 5 as never)).toThrow(EncodeError);
    expect(() => decode(encode(v), 5 as never)).toThrow(DecodeError);
  });

  test("a null context reaches the extension encoders as null, not as the default undefined", () => {
    const seen: unknown[] = [];
    const extensionCodec = new ExtensionCodec<unknown>();
    extensionCodec.register({ type: 1, encode: (v, ctx) => (v instanceof Set ? (seen.push(ctx), new Uint8Array(0)) : null), decode: () => null });
    encode(new Set(), { extensionCodec, context: null });
    new Encoder({ extensionCodec, context: null }).encode(new Set());
    encode(new Set(), { extensionCodec });
    expect(seen).toEqual([null, null, undefined]);
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


describe("each direction reads its options by name", () => {
  test("an invalid value for any option is reported under that option's name", () => {
    const bad = Symbol("not a valid value for any option");
    for (const name of namesOf(encodeOptionsOf)) {
      if (name === "context") continue; // anything goes
      expect(() => new Encoder({ [name]: bad } as object), name).toThrow(new RegExp(`option ${name}\\b`));
    }
    for (const name of namesOf(decodeOptionsOf)) {
      if (name === "context") continue; // anything goes
      expect(() => new Decoder({ [name]: bad } as object), name).toThrow(new RegExp(`option ${name}\\b`));
    }
  });
});

describe("the misspelling check sees every name the options object has, as the readers do", () => {
  const long = encode("abcdef");

  test("a misspelled getter of a class is refused, as a correctly spelled one is honoured", () => {
    class Right {
      get maxStrLength(): number {
        return 3;
      }
    }
    class Wrong {
      get maxStrLenght(): number {
        return 3;
      }
    }
    expect(() => decode(long, new Right())).toThrow(/maxStrLength/);
    expect(() => decode(long, new Wrong() as object)).toThrow(/option maxStrLenght.*did you mean maxStrLength\?/);
    expect(() => new Decoder(new Wrong() as object)).toThrow(DecodeError);
    class Sorted {
      get sortkeys(): boolean {
        return true;
      }
    }
    expect(() => encode({ b: 1, a: 2 }, new Sorted() as object)).toThrow(/did you mean sortKeys\?/);
  });

  test("a misspelled non-enumerable or inherited option is refused, its value never read but for the message", () => {
    let reads = 0;
    const hidden = Object.defineProperty({}, "maxDeph", { get: () => (reads++, 2), enumerable: false });
    expect(() => decode(long, hidden)).toThrow(/did you mean maxDepth\?/);
    expect(reads).toBe(1);
    expect(() => decode(long, Object.create({ maxStrlength: 3 }))).toThrow(/did you mean maxStrLength\?/);
    expect(() => encode(1, Object.create(Object.create({ ignoreundefined: true })))).toThrow(/did you mean ignoreUndefined\?/);
    // names far from every option pass, wherever they sit, and their getters are never called
    const foreign = Object.defineProperty(Object.create({ mapsAsObjects: true }), "variableMapSize", { get: () => (reads++, true) });
    expect(decode(encode(1), foreign)).toBe(1);
    expect(hex(encode(1, foreign))).toBe("01");
    expect(reads).toBe(1);
  });
});

// This file imports the main entry only: no compatibility entry has installed anything here.
describe("the drop-in behaviours, without the compatibility entry that installs them", () => {
  /** What `f` throws: its class, code and message. */
  const failure = (f: () => unknown): { error: unknown; code: unknown; message: string } => {
    try {
      f();
    } catch (error) {
      return { error, code: (error as { code?: unknown }).code, message: String((error as Error).message) };
    }
    throw new Error("did not throw");
  };
  const MSGPACK = 'add import "@resizable/msgpack/compat/msgpack" (once, anywhere in the program)';
  const NOTEPACK = 'add import "@resizable/msgpack/compat/notepack" (once, anywhere in the program)';
  const foreign = { tryToEncode: () => null, decode: () => null };

  test.each([
    ["encode buffers", () => encode(1, { buffers: true }), EncodeError, "The encode option buffers needs its module", NOTEPACK],
    ["new Encoder buffers", () => new Encoder({ buffers: true }), EncodeError, "The encode option buffers needs its module", NOTEPACK],
    ["decode buffers", () => decode(encode(1), { buffers: true }), DecodeError, "The decode option buffers needs its module", NOTEPACK],
    ["new Decoder buffers", () => new Decoder({ buffers: true }), DecodeError, "The decode option buffers needs its module", NOTEPACK],
    ["encodeIterable buffers", () => [...encodeIterable(1, { buffers: true })], EncodeError, "The encode option buffers needs its module", NOTEPACK],
    ["new EncoderStream buffers", () => new EncoderStream({ buffers: true }), EncodeError, "The encode option buffers needs its module", NOTEPACK],
    ["new DecoderStream buffers", () => new DecoderStream({ buffers: true }), DecodeError, "The decode option buffers needs its module", NOTEPACK],
    ['decode invalidUtf8: "replace"', () => decode(encode("a"), { invalidUtf8: "replace" }), DecodeError, "The decode option invalidUtf8 needs its module", MSGPACK],
    ["new Encoder(codec, context)", () => new Encoder(new ExtensionCodec(), undefined), EncodeError, "The encode option form new Encoder(extensionCodec, context, ...) needs its module", MSGPACK],
    ["new Encoder(codec)", () => new (Encoder as new (codec: unknown) => unknown)(new ExtensionCodec()), EncodeError, "new Encoder(extensionCodec", MSGPACK],
    ["new Decoder(undefined, undefined, 2)", () => new Decoder(undefined, undefined, 2), DecodeError, "The decode option form new Decoder(extensionCodec, context, ...) needs its module", MSGPACK],
    ["encode with a codec of another kind", () => encode(1, { extensionCodec: foreign }), EncodeError, "The encode option extensionCodec needs its module", MSGPACK],
    ["decode with a codec of another kind", () => decode(encode(1), { extensionCodec: foreign }), DecodeError, "The decode option extensionCodec needs its module", MSGPACK],
  ] as const)("%s is INVALID_ARGUMENT naming the import", (_name, f, cls, what, entry) => {
    const { error, code, message } = failure(f);
    expect(error).toBeInstanceOf(cls);
    expect(code).toBe("INVALID_ARGUMENT");
    expect(message).toContain(what);
    expect(message).toContain(entry);
  });

  test("the options that stay in the main entry work without any import: undefinedAsExtension, an ExtensionCodec, invalidUtf8: \"throw\", buffers: false", () => {
    const both = { undefinedAsExtension: true, extensionCodec: new ExtensionCodec(), invalidUtf8: "throw", buffers: false } as const;
    expect(hex(encode([undefined], both))).toBe("91-d4-00-00");
    expect(decode(encode([undefined], both), both)).toEqual([undefined]);
    expect(new Encoder({ extensionCodec: new ExtensionCodec() }).encode(1)).toEqual(Uint8Array.of(1));
  });
});

describe("each option declared once per side: the resolver's reads are the names the checks and the docs know", () => {
  const SIDES = [
    { side: "encode", names: namesOf(encodeOptionsOf), resolve: encodeOptionsOf, error: EncodeError },
    { side: "decode", names: namesOf(decodeOptionsOf), resolve: decodeOptionsOf, error: DecodeError },
  ] as const;

  /** The property names `resolve` loads from an options object, in order (a proxy that records every get). */
  const loads = (resolve: (o: unknown) => unknown): string[] => {
    const seen: string[] = [];
    resolve(new Proxy({}, { get: (_t, key) => (typeof key === "string" && seen.push(key), undefined) }));
    return seen;
  };

  /** Each side's options in the order they are read, with what they resolve to when absent: written out by hand, not taken from the tables. */
  const U = undefined;
  const MAX32 = 2 ** 32 - 1;
  const DEFAULTS: Record<(typeof SIDES)[number]["side"], Record<string, unknown>> = {
    encode: {
      extensionCodec: ExtensionCodec.defaultCodec, context: U, sortKeys: false, forceFloat32: false, forceIntegerToFloat: false, useBigInt64: false, ignoreUndefined: false,
      poolResults: false, maxDepth: 512, initialBufferSize: 256 * 1024, maxByteLength: 2 ** 32, useRecords: false, structures: U, maxSharedStructures: 0, sequential: false,
      undefinedAsExtension: false, buffers: false, lengthPrefixed: false, chunkSize: 64 * 1024, preventClose: false,
    },
    decode: {
      extensionCodec: U, context: U, useBigInt64: false, useMap: false, rawStrings: false, binaryAsView: false, int64: "auto", mapKeyConverter: U, maxDepth: 512,
      maxStrLength: MAX32, maxBinLength: MAX32, maxArrayLength: MAX32, maxMapLength: MAX32, maxExtLength: MAX32, useRecords: false, structures: U, buffers: false,
      undefinedAsExtension: false, invalidUtf8: "throw", compileRecordReaders: true, schema: U, maxValueBytes: Infinity, stats: U, lengthPrefixed: false,
    },
  };

  test.each(SIDES)("$side: the resolver loads exactly the side's options, each once, and the misspelling check knows exactly those", ({ side, names, resolve }) => {
    const loaded = loads(resolve);
    expect(new Set(loaded).size).toBe(loaded.length);
    expect([...loaded].sort()).toEqual(Object.keys(DEFAULTS[side]).sort());
    expect([...loaded].sort()).toEqual([...names].sort());
  });

  test("keyDecoder, @msgpack/msgpack's option, is accepted by the decoders and never read", () => {
    let reads = 0;
    const options = {
      get keyDecoder(): null {
        reads++;
        return null;
      },
    };
    expect(decode(encode({ a: 1 }), options)).toEqual({ a: 1 });
    expect(new Decoder(options).decode(encode("k"))).toBe("k");
    expect(reads).toBe(0);
  });

  test("the stream helpers' options are their side's: every encoder and decoder checks them and refuses their misspellings, and ignores them", () => {
    expect(() => encode(1, { chunkSize: 0 } as object)).toThrow(/option chunkSize\b/);
    expect(() => new Encoder({ chunksize: 4096 } as object)).toThrow(/did you mean chunkSize\?/);
    expect(() => decode(encode(1), { maxValueBytes: -1 } as object)).toThrow(/option maxValueBytes\b/);
    expect(() => new Decoder({ maxValueByte: 10 } as object)).toThrow(/did you mean maxValueBytes\?/);
    expect(hex(encode([1, 2], { chunkSize: 1, lengthPrefixed: true, preventClose: true } as object))).toBe(hex(encode([1, 2])));
    expect(decode(encode([1, 2]), { maxValueBytes: 1, lengthPrefixed: true } as object)).toEqual([1, 2]);
  });

  test("no option of one side is a misspelling of another side's option: one options object serves every side", () => {
    for (const a of SIDES) {
      for (const b of SIDES) {
        if (a === b) continue;
        for (const name of a.names) {
          if (b.names.has(name)) continue; // the same option on both sides
          expect(misspelling(name, b.names), `${a.side} ${name} near a ${b.side} option`).toBeUndefined();
        }
      }
    }
  });

  test.each(SIDES)("$side: every option without a value resolves to its default; left out, undefined or null alike; resolved options resolve to equal ones", ({ side, resolve }) => {
    const resolved = resolve({}) as unknown as Record<string, unknown>;
    for (const [name, fallback] of Object.entries(DEFAULTS[side])) expect(resolved[name], name).toBe(fallback);
    expect(resolve(undefined)).toEqual(resolved);
    expect(resolve(null)).toEqual(resolved);
    expect(resolve(resolved)).toEqual(resolved);
    const given = resolve({ maxDepth: 7, lengthPrefixed: true, useBigInt64: true });
    expect(resolve(given)).toEqual(given);
  });

  test.each(SIDES)("$side: a value of the wrong kind is INVALID_ARGUMENT naming the option; a misspelled name is refused with the name meant", ({ side, names, resolve, error }) => {
    for (const name of names) {
      const misspelled = name.slice(0, -2) + name.slice(-1) + name.slice(-2, -1); // the last two letters swapped
      const typo = (() => {
        try {
          resolve({ [misspelled]: 1 });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(typo, misspelled).toBeInstanceOf(error);
      expect(String((typo as Error).message)).toContain(`did you mean ${name}?`);
      if (name === "context") continue; // takes anything
      for (const bad of [Symbol("bad"), -1.5, "nonsense"]) {
        let thrown: unknown;
        try {
          resolve({ [name]: bad });
        } catch (e) {
          thrown = e;
        }
        expect(thrown, `${side} ${name}: ${String(bad)}`).toBeInstanceOf(error);
        expect((thrown as { code?: unknown }).code).toBe("INVALID_ARGUMENT");
        expect(String((thrown as Error).message)).toMatch(new RegExp(`option ${name}\\b`));
      }
    }
  });
});
