import * as msgpackJs from "@msgpack/msgpack";
import { Packr, Unpackr } from "msgpackr";
import { describe, expect, test } from "vitest";
import { decode, encode, encodedSize, Encoder, ExtensionCodec } from "../src/index.ts";
import { encodeIterable } from "../src/streams.ts";
import { DEFAULT_SCRATCH_BYTES } from "../src/encode/output.ts";
import { forSeeds, hex, value } from "./_support/arbitrary.ts";
import { STRATEGIES, withStrategy } from "./_support/strategy.ts";
import { expectSameBytes } from "./_support/bytes.ts";
import { concat } from "./_support/streams.ts";
import { expectEqual } from "./_support/equal.ts";

/** Plain Uint8Array copies of Buffers, so deep equality compares contents only. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [plain(k), plain(x)]));
  if (v && typeof v === "object" && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * `x` as decode() gives it back under the map-key policy: a `Map` whose
 * keys are all strings, numbers or bigints becomes an object (number keys
 * as property names); any other `Map` stays one, number keys as strings.
 */
function asDecoded(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(asDecoded);
  if (x instanceof Map) {
    const entries = [...x].map(([k, v]) => [typeof k === "number" || typeof k === "bigint" ? String(k) : asDecoded(k), asDecoded(v)] as const);
    return entries.every(([k]) => typeof k === "string") ? Object.fromEntries(entries) : new Map(entries);
  }
  if (x && typeof x === "object" && Object.getPrototypeOf(x) === Object.prototype) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, asDecoded(v)]));
  return x;
}

describe("property: round trip", () => {
  test("decode(encode(x)) deep-equals x (maps as the map-key policy decodes them), for rich seeded values", () => {
    forSeeds(400, (r) => {
      const x = value(r, { rich: true, maxDepth: 4, maxItems: 10 });
      expectEqual(decode(encode(x)), asDecoded(x));
    });
  });

  test("large seeded values that leave the scratch round-trip too", () => {
    forSeeds(3, (r) => {
      const x = Array.from({ length: 3000 }, () => value(r, { rich: true, maxDepth: 3 }));
      const bytes = encode(x);
      expect(bytes.length).toBeGreaterThan(DEFAULT_SCRATCH_BYTES);
      expectEqual(decode(bytes), asDecoded(x));
    });
  });
});

describe("property: every output strategy writes identical bytes", () => {
  test("scratch only, resizable store, chunks, tiny ceilings and tiny scratches", () => {
    const encoders = [
      ...STRATEGIES.map((strategy) => new Encoder(withStrategy(strategy))),
      ...STRATEGIES.map((strategy) => new Encoder(withStrategy(strategy, { initialBufferSize: 64 }))),
      new Encoder({ initialBufferSize: 64, maxByteLength: 256 }), // store, then chunks past the ceiling
      new Encoder({ initialBufferSize: 64, maxByteLength: 4096 }), // a small store, then chunks
      new Encoder({ initialBufferSize: 128, maxByteLength: 100 }),
    ];
    forSeeds(150, (r) => {
      const x = r.bool(0.2) ? Array.from({ length: 400 }, () => value(r, { rich: true, maxDepth: 2 })) : value(r, { rich: true });
      const expected = encoders[0]!.encode(x);
      for (const [i, e] of encoders.entries()) {
        expectSameBytes(e.encode(x), expected, `encoder ${i}`);
        expectSameBytes(concat(e.encodeChunks(x)), expected, `chunks of encoder ${i}`);
      }
    });
  });
});

describe("property: sizes", () => {
  test("encode(x).length === encodedSize(x), with and without options", () => {
    forSeeds(400, (r) => {
      const x = value(r, { rich: true, maxDepth: 5 });
      expect(encodedSize(x)).toBe(encode(x).length);
      const options = { forceFloat32: true, ignoreUndefined: true };
      expect(encodedSize(x, options)).toBe(encode(x, options).length);
    });
  });
});

describe("differential: other msgpack libraries", () => {
  const mjDecode = (b: Uint8Array) => msgpackJs.decode(b, { useBigInt64: false });
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "auto" } as never);
  const packr = new Packr({ useRecords: false, variableMapSize: true } as never);

  test("@msgpack/msgpack and msgpackr decode our bytes to the same values", () => {
    forSeeds(300, (r) => {
      const x = value(r, { maxDepth: 4 });
      const bytes = encode(x);
      expectEqual(plain(mjDecode(bytes)), x);
      expectEqual(plain(unpackr.unpack(bytes)), x);
    });
  });

  test("we decode @msgpack/msgpack's and msgpackr's bytes to the same values", () => {
    forSeeds(300, (r) => {
      const x = value(r, { maxDepth: 4 });
      expectEqual(decode(msgpackJs.encode(x)), x);
      expectEqual(decode(packr.pack(x)), x);
    });
  });

  test("our bytes equal @msgpack/msgpack's for JSON-like values (both write shortest forms)", () => {
    forSeeds(300, (r) => {
      const x = value(r, { maxDepth: 4 });
      expect(hex(encode(x))).toBe(hex(msgpackJs.encode(x)));
    });
  });
});

describe("property: every output path writes the same bytes for the same value and options", () => {
  /** A class an extension claims, and a codec that claims it (type 9) with its payload encoded by the same options. */
  class Tagged {
    readonly v: unknown;
    constructor(v: unknown) {
      this.v = v;
    }
  }

  test("encode, Encoder#encode, encodeSharedRef, encodeInto, encodeChunks, encodedSize and encodeIterable agree, every encode option varied", () => {
    const codec = new ExtensionCodec();
    codec.register({ type: 9, encode: (v) => (v instanceof Tagged ? encode(v.v, { sortKeys: true }) : null), decode: (d) => new Tagged(decode(d)) });
    // the default codec claims another class, so that defaultCodec registrations are part of every path
    class Defaulted {
      readonly filler = "a field the streaming encoder would split as a map if it missed the extension";
    }
    ExtensionCodec.defaultCodec.register({ type: 10, encode: (v) => (v instanceof Defaulted ? new Uint8Array([1, 2]) : null), decode: () => new Defaulted() });
    forSeeds(150, (r) => {
      const options: Record<string, unknown> = {};
      for (const name of ["sortKeys", "forceFloat32", "forceIntegerToFloat", "useBigInt64", "ignoreUndefined", "poolResults"]) if (r.bool(0.3)) options[name] = true;
      if (r.bool(0.5)) options.extensionCodec = codec;
      if (r.bool(0.2)) options.initialBufferSize = r.pick([64, 1024]);
      const base = value(r, { rich: true, maxDepth: 3, maxItems: 6 });
      const x = { base, tagged: new Tagged(base), defaulted: new Defaulted(), gap: undefined, list: [1, 2.5, -3, 2 ** 40, "s"] };
      const expected = encode(x, options);
      const encoder = new Encoder(options);
      expectSameBytes(encoder.encode(x), expected, "Encoder#encode");
      expectSameBytes(encoder.encodeSharedRef(x), expected, "encodeSharedRef");
      const target = new Uint8Array(expected.length + 8);
      const n = encoder.encodeInto(x, target, 3);
      expectSameBytes(target.subarray(3, 3 + n), expected, "encodeInto");
      expectSameBytes(concat(encoder.encodeChunks(x)), expected, "encodeChunks");
      expect(encodedSize(x, options), "encodedSize").toBe(expected.length);
      expect(encoder.encodedSize(x), "Encoder#encodedSize").toBe(expected.length);
      const chunkSize = r.pick([1, 16, 256, 65536]);
      expectSameBytes(concat([...encodeIterable(x, { ...options, chunkSize })]), expected, `encodeIterable (chunkSize ${chunkSize})`);
    });
  });
});
