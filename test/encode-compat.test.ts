/**
 * Drop-in compatibility of the encoder with @msgpack/msgpack 3.x: the same
 * options with the same meaning, the same bytes, extensions tried where it
 * tries them (objects, bigints, functions, symbols), aligned extension
 * payloads, `encodeSharedRef`, `ExtensionCodec.defaultCodec` and the
 * exported type names. Run against @msgpack/msgpack itself as the oracle.
 */
import * as peer from "@msgpack/msgpack";
import { describe, expect, test } from "vitest";
import {
  decode,
  encode,
  EncodeError,
  Encoder,
  type EncoderOptions,
  ExtData,
  ExtensionCodec,
  type ExtensionCodecType,
  type ExtensionDecoderType,
  type ExtensionEncoderType,
} from "../src/compat/msgpack.ts";
import { extensionDecoders, extensionEncoders } from "../src/internal.ts";
import { hex, Random, string } from "./_support/arbitrary.ts";
import { withStrategy } from "./_support/strategy.ts";

/** JSON-like values both libraries encode the same way by default (no -0, no bigint, no Map/Set). */
function plainValue(r: Random, depth = 0): unknown {
  const kind = r.int(0, depth > 3 ? 5 : 8);
  switch (kind) {
    case 0:
      return r.pick([0, 1, -1, 127, 128, -32, -33, 255, 256, 65535, 65536, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40, -(2 ** 40), 2 ** 53 - 1, -(2 ** 53 - 1)]);
    case 1:
      return r.pick([0.5, -1.25, 1e300, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 64, Math.PI]);
    case 2:
      return string(r, r.pick([5, 40, 300]));
    case 3:
      return r.pick([null, true, false, undefined]);
    case 4:
      return r.bytes(r.pick([0, 3, 300]));
    case 5:
      return new Date(r.pick([0, 1, -1, 1.7e12, 2 ** 34 * 1000, -8.64e15]));
    case 6:
      return Array.from({ length: r.int(0, 20) }, () => plainValue(r, depth + 1));
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = r.int(0, 18); i > 0; i--) obj[string(r, 8)] = plainValue(r, depth + 1);
      return obj;
    }
  }
}

const OPTION_SETS: EncoderOptions[] = [
  {},
  { sortKeys: true },
  { ignoreUndefined: true },
  { forceFloat32: true },
  { forceIntegerToFloat: true },
  { forceIntegerToFloat: true, forceFloat32: true },
  { useBigInt64: true },
  { useBigInt64: true, forceFloat32: true, sortKeys: true, ignoreUndefined: true },
];

describe("the same bytes as @msgpack/msgpack for the same options", () => {
  test.each(OPTION_SETS.map((o) => [JSON.stringify(o), o] as const))("options %s over 300 seeded values", (_, options) => {
    const r = new Random(11);
    for (let i = 0; i < 300; i++) {
      const value = plainValue(r);
      expect(hex(encode(value, options)), `value #${i}`).toBe(hex(peer.encode(value, options)));
    }
  });

  test.each([
    ["forceIntegerToFloat: integers as float 64", 1, { forceIntegerToFloat: true }, "cb-3f-f0-00-00-00-00-00-00"],
    ["forceIntegerToFloat + forceFloat32: integers as float 32", -2, { forceIntegerToFloat: true, forceFloat32: true }, "ca-c0-00-00-00"],
    ["useBigInt64: a number past 32 bits is float 64", 2 ** 40, { useBigInt64: true }, "cb-42-70-00-00-00-00-00-00"],
    ["useBigInt64: a number in uint 32 stays an integer", 2 ** 32 - 1, { useBigInt64: true }, "ce-ff-ff-ff-ff"],
    ["useBigInt64: 0n is uint 64", 0n, { useBigInt64: true }, "cf-00-00-00-00-00-00-00-00"],
    ["useBigInt64: -1n is int 64", -1n, { useBigInt64: true }, "d3-ff-ff-ff-ff-ff-ff-ff-ff"],
    ["forceIntegerToFloat leaves bigint alone", 5n, { forceIntegerToFloat: true, useBigInt64: true }, "cf-00-00-00-00-00-00-00-05"],
  ])("%s", (_, value, options, bytes) => {
    expect(hex(encode(value, options))).toBe(bytes);
    expect(hex(peer.encode(value, options))).toBe(bytes);
  });

  test("useBigInt64 round-trips numbers as numbers and bigints as bigints with the decoder's useBigInt64", () => {
    const value = [0n, 1n, -(2n ** 63n), 2n ** 64n - 1n, 2 ** 40, -(2 ** 40), 1, 0.5];
    expect(decode(encode(value, { useBigInt64: true }), { useBigInt64: true })).toEqual(value);
    expect(peer.decode(encode(value, { useBigInt64: true }), { useBigInt64: true })).toEqual(value);
  });
});

describe("extensions are tried where @msgpack/msgpack tries them", () => {
  test("the README's BigInt-as-extension recipe works (the extension gets bigints before int 64)", () => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({
      type: 0,
      encode(input: unknown): Uint8Array | null {
        if (typeof input !== "bigint") return null;
        return input <= Number.MAX_SAFE_INTEGER && input >= Number.MIN_SAFE_INTEGER ? encode(Number(input)) : encode(String(input));
      },
      decode(data: Uint8Array): bigint {
        const val = decode(data);
        if (!(typeof val === "string" || typeof val === "number")) throw new Error(`unexpected BigInt source: ${String(val)}`);
        return BigInt(val);
      },
    });
    for (const value of [BigInt(Number.MAX_SAFE_INTEGER) + 1n, 5n, -(2n ** 70n), [1n, { a: 2n ** 100n }]]) {
      const bytes = encode(value, { extensionCodec });
      expect(decode(bytes, { extensionCodec })).toEqual(value);
      expect(hex(bytes)).toBe(hex(peer.encode(value, { extensionCodec: peerCodecLike(extensionCodec) })));
    }
    // useBigInt64 skips the extension
    expect(hex(encode(5n, { extensionCodec, useBigInt64: true }))).toBe("cf-00-00-00-00-00-00-00-05");
  });

  test("functions and symbols go to the extensions before they are refused", () => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({
      type: 2,
      encode: (v) => (typeof v === "function" ? encode(v.name) : typeof v === "symbol" ? encode(v.description) : null),
      decode: (data) => decode(data),
    });
    function handler(): void {}
    expect(decode(encode({ f: handler, s: Symbol("tag") }, { extensionCodec }), { extensionCodec })).toEqual({ f: "handler", s: "tag" });
  });

  test("@msgpack/msgpack's order: negative types from -1 down, then 0 up; registering a type again replaces it", () => {
    const extensionCodec = new ExtensionCodec();
    const claim = (type: number) => ({ type, encode: (v: unknown) => (v instanceof RegExp ? new Uint8Array([type & 0xff]) : null), decode: () => type });
    for (const type of [5, 0, -3, -1, 3]) extensionCodec.register(claim(type));
    expect(extensionEncoders(extensionCodec).map((e) => e.type)).toEqual([-1, -3, 0, 3, 5]);
    expect(hex(encode(/x/, { extensionCodec }))).toBe("d4-ff-ff"); // fixext 1, type -1
    extensionCodec.register({ type: -1, encode: () => null, decode: () => null });
    expect(extensionEncoders(extensionCodec).map((e) => e.type)).toEqual([-1, -3, 0, 3, 5]);
    expect(hex(encode(/x/, { extensionCodec }))).toBe("d4-fd-fd"); // type -3
  });

  test("an ExtensionCodec keeps its registries private: no own properties, nothing but its methods", () => {
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 4, encode: (v) => (v instanceof RegExp ? new Uint8Array([1]) : null), decode: () => "re" });
    expect(Reflect.ownKeys(extensionCodec)).toEqual([]);
    expect(Reflect.ownKeys(ExtensionCodec.prototype).sort()).toEqual(["constructor", "decode", "register", "tryToEncode"]);
    expect("encoders" in extensionCodec || "decoders" in extensionCodec).toBe(false);
    // the encoders and decoders still read them
    expect(decode(encode(/x/, { extensionCodec }), { extensionCodec })).toBe("re");
  });

  test("an extension registered after the encoder was made (and after first use) is honoured", () => {
    class Point {
      readonly x: number;
      constructor(x: number) {
        this.x = x;
      }
    }
    const extensionCodec = new ExtensionCodec();
    const options = { extensionCodec };
    const encoder = new Encoder(options);
    expect(hex(encoder.encode(new Point(1)))).toBe("81-a1-78-01"); // a map, nothing registered yet
    expect(hex(encode(new Point(1), options))).toBe("81-a1-78-01");
    extensionCodec.register({ type: 7, encode: (v) => (v instanceof Point ? new Uint8Array([v.x]) : null), decode: (d) => new Point(d[0]!) });
    expect(hex(encoder.encode(new Point(2)))).toBe("d4-07-02");
    expect(hex(encode(new Point(3), options))).toBe("d4-07-03");
  });

  test("ExtensionCodec.defaultCodec is what encoders without an extensionCodec use, registrations included", () => {
    class Marker {}
    const before = new Encoder();
    expect(hex(before.encode(new Marker()))).toBe("80");
    (ExtensionCodec.defaultCodec as ExtensionCodec).register({ type: 99, encode: (v) => (v instanceof Marker ? new Uint8Array([1]) : null), decode: () => "marker" });
    expect(hex(before.encode(new Marker()))).toBe("d4-63-01");
    expect(hex(encode([new Marker()]))).toBe("91-d4-63-01");
    // decoders without an extensionCodec read the same registrations
    expect(decode(Uint8Array.of(0xd4, 0x63, 0x01))).toBe("marker");
    // and a codec of one's own does not see them
    expect(hex(new Encoder({ extensionCodec: new ExtensionCodec() }).encode(new Marker()))).toBe("80");
    expect(ExtensionCodec.defaultCodec).toBeInstanceOf(ExtensionCodec);
  });

  test("a codec of another kind (anything with tryToEncode) is asked for whole ExtData", () => {
    const custom: ExtensionCodecType<undefined> = {
      tryToEncode: (v) => (v instanceof RegExp ? new ExtData(12, new Uint8Array([1, 2])) : null),
      decode: (data, type) => ({ type, n: data.length }),
    };
    expect(hex(encode([/x/, 1], { extensionCodec: custom as unknown as ExtensionCodec }))).toBe("92-d5-0c-01-02-01");
  });
});

/** A peer codec with the same registrations (in our order) as `ours`. */
function peerCodecLike(ours: ExtensionCodec): peer.ExtensionCodec {
  const codec = new peer.ExtensionCodec();
  for (const e of extensionEncoders(ours)) codec.register({ type: e.type, encode: e.encode as never, decode: extensionDecoders(ours).get(e.type)! });
  return codec;
}

describe("an extension encode may return a function of the payload's position (alignment)", () => {
  /** @msgpack/msgpack's README example: a Float32Array padded to 4-byte alignment. */
  function float32Codec<C extends typeof ExtensionCodec | typeof peer.ExtensionCodec>(Codec: C, seen: number[]): InstanceType<C> {
    const codec = new Codec() as InstanceType<C>;
    (codec as ExtensionCodec).register({
      type: 0,
      encode: (object: unknown) => {
        if (!(object instanceof Float32Array)) return null;
        return (pos: number) => {
          seen.push(pos);
          const bpe = Float32Array.BYTES_PER_ELEMENT;
          const padding = 1 + ((bpe - ((pos + 1) % bpe)) % bpe);
          const data = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
          const result = new Uint8Array(padding + data.length);
          result[0] = padding;
          result.set(data, padding);
          return result;
        };
      },
      decode: (data: Uint8Array) => {
        const padding = data[0]!;
        return new Float32Array(data.buffer.slice(data.byteOffset + padding, data.byteOffset + data.byteLength));
      },
    });
    return codec;
  }

  test("the same dataPos and the same bytes (ext 32) as @msgpack/msgpack, at every position", () => {
    const oursSeen: number[] = [];
    const peerSeen: number[] = [];
    const ours = float32Codec(ExtensionCodec, oursSeen);
    const theirs = float32Codec(peer.ExtensionCodec, peerSeen);
    for (let lead = 0; lead < 9; lead++) {
      const value = { pad: "x".repeat(lead), list: [1, new Float32Array([1.5, -2]), { f: new Float32Array(3) }] };
      const bytes = encode(value, { extensionCodec: ours });
      expect(hex(bytes), `lead ${lead}`).toBe(hex(peer.encode(value, { extensionCodec: theirs as peer.ExtensionCodec })));
      const f = (decode(bytes, { extensionCodec: ours }) as { list: [number, Float32Array] }).list[1];
      expect([...f]).toEqual([1.5, -2]);
    }
    expect(oursSeen).toEqual(peerSeen);
  });

  test("dataPos counts the whole output in every output strategy, and from the offset in encodeInto", () => {
    const seen: number[] = [];
    const extensionCodec = float32Codec(ExtensionCodec, seen);
    const value = [new Uint8Array(300_000), "y".repeat(70_000), new Float32Array([7])];
    const expected = 5 + 300_000 + 5 + 70_000 + 6; // bin 32, str 32, then the ext 32 header
    for (const strategy of ["default", "chunks", "doubling", "exact"] as const) {
      seen.length = 0;
      const bytes = new Encoder(withStrategy(strategy, { extensionCodec, initialBufferSize: 1024 })).encode(value);
      // "exact" sizes the output first with the encoder's own code, which asks for the payload too, at the same position
      expect(seen, strategy).toEqual(strategy === "exact" ? [1 + expected, 1 + expected] : [1 + expected]);
      expect(bytes[1 + expected]! + 1 + expected).toSatisfy((start: number) => start % 4 === 0);
    }
    seen.length = 0;
    const target = new Uint8Array(400_000);
    new Encoder({ extensionCodec }).encodeInto(value, target, 3);
    expect(seen).toEqual([3 + 1 + expected]);
  });
});

describe("Encoder.encodeSharedRef", () => {
  test("returns a view of the encoder's own buffer, overwritten by the next call", () => {
    const encoder = new Encoder();
    const a = encoder.encodeSharedRef({ a: 1 });
    expect(hex(a)).toBe("81-a1-61-01");
    const copy = a.slice();
    const b = encoder.encodeSharedRef([2]);
    expect(b.buffer).toBe(a.buffer);
    expect(hex(a.subarray(0, 2))).toBe("91-02");
    expect(hex(copy)).toBe("81-a1-61-01");
    expect(hex(encoder.encode([3]))).toBe("91-03");
  });

  test("an output larger than the scratch is returned as by encode(); re-entrant calls get their own buffer", () => {
    const encoder = new Encoder({ initialBufferSize: 64 });
    const big = { s: "z".repeat(1000), list: Array.from({ length: 100 }, (_, i) => i) };
    expect(hex(encoder.encodeSharedRef(big))).toBe(hex(encode(big)));
    const extensionCodec = new ExtensionCodec();
    const inner = new Encoder({ extensionCodec });
    extensionCodec.register({ type: 1, encode: (v) => (v instanceof Set ? inner.encodeSharedRef([...v]).slice() : null), decode: () => null });
    expect(hex(inner.encodeSharedRef([new Set([1, 2]), 3]))).toBe("92-c7-03-01-92-01-02-03");
  });
});

describe("names @msgpack/msgpack exports", () => {
  test("type names: ExtensionCodecType, ExtensionEncoderType, ExtensionDecoderType, EncoderOptions", () => {
    const codec: ExtensionCodecType<{ id: number }> = new ExtensionCodec<{ id: number }>();
    const enc: ExtensionEncoderType<undefined> = (v) => (v instanceof Date ? (pos: number) => new Uint8Array([pos]) : null);
    const dec: ExtensionDecoderType<undefined> = (data, type) => [data.length, type];
    const options: EncoderOptions<{ id: number }> = { context: { id: 1 }, maxDepth: 10 };
    expect(codec.tryToEncode(new ExtData(1, new Uint8Array(1)), { id: 1 })).toBeInstanceOf(ExtData);
    expect(codec.decode(new Uint8Array([0, 0, 0, 1]), -1, { id: 1 })).toEqual(new Date(1000));
    expect(codec.decode(new Uint8Array([5]), 3, { id: 1 })).toEqual(new ExtData(3, new Uint8Array([5])));
    expect(typeof enc).toBe("function");
    expect(dec(new Uint8Array(2), 1, undefined)).toEqual([2, 1]);
    expect(new Encoder(options).encode(1)[0]).toBe(1);
  });

  test("the words of @msgpack/msgpack's messages appear in ours", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 600; i++) deep = [deep];
    const errors = [() => encode(() => 1), () => encode(deep)].map((run) => {
      try {
        run();
      } catch (e) {
        return e as EncodeError;
      }
      throw new Error("no error");
    });
    expect(errors[0]!.message).toMatch(/unrecognized object/i);
    expect(errors[1]!.message).toMatch(/too deep objects in depth \d+/i);
  });
});
