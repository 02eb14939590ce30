// The "Coming from msgpackr" table: each msgpackr name (msgpackr 2.1.3, a
// devDependency) next to ours, run on the same data; rows without an
// equivalent show what happens instead. Bytes cross between the libraries
// in both directions.
import { Duplex } from "node:stream";
import { describe, expect, test, vi } from "vitest";
import * as msgpackr from "msgpackr";
// a msgpackr program's one import line: the records entry (the main entry's API, and records)
import { decode, decodeMulti, Decoder, encode, Encoder, ExtData, ExtensionCodec } from "@resizable/msgpack/records";
import { decodeMultiStream, EncoderStream } from "@resizable/msgpack/streams";
import { plain } from "./_support/plain.ts";
// `buffers: true` (msgpackr returns Buffers) is installed by the compatibility entry that has it
import "../src/compat/notepack.ts";

vi.mock("@resizable/msgpack/records", async () => await import("../src/records.ts"));
vi.mock("@resizable/msgpack/streams", async () => await import("../src/streams.ts"));

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** JSON-like values, binaries and dates: what both libraries write as standard MessagePack. */
const VALUES: unknown[] = [
  null, true, false, 0, 1, -1, 255, 65536, -40000, 2 ** 31, 1.5, -0.25, Math.PI, "", "ascii", "ünï日本😀", "x".repeat(70_000),
  new Uint8Array([1, 2, 3]), new Uint8Array(300), [], [1, [2, ["3"]]], Array.from({ length: 70 }, (_, i) => i),
  {}, { a: 1, nested: { list: [true, null, "s"], bin: new Uint8Array([9]) } }, new Date(0), new Date(1_700_000_000_123), new Date(-1),
];

/** msgpackr's decoder in standard mode (no records: maps decode as objects, as ours). */
const unpackr = new msgpackr.Unpackr({ useRecords: false });

describe("Coming from msgpackr", () => {
  test("pack()/unpack() and encode()/decode() read each other's bytes (msgpackr without records)", () => {
    for (const value of VALUES) {
      expect(plain(decode(msgpackr.pack(value))), `ours reads msgpackr's ${JSON.stringify(value)?.slice(0, 40)}`).toEqual(plain(msgpackr.unpack(msgpackr.pack(value))));
      expect(plain(msgpackr.unpack(encode(value))), `msgpackr reads ours`).toEqual(plain(decode(encode(value))));
    }
  });

  test("new Packr()/new Unpackr() are new Encoder()/new Decoder()", () => {
    const packr = new msgpackr.Packr({ useRecords: false });
    const encoder = new Encoder();
    const decoder = new Decoder();
    const value = { a: [1, "b"], c: new Date(5) };
    expect(decoder.decode(packr.pack(value))).toEqual(unpackr.unpack(encoder.encode(value)));
  });

  test("unpackMultiple(bytes) and the values its (value, start, end) callback gets are [...decodeMulti(bytes)]", () => {
    const bytes = new Uint8Array([...encode(1), ...encode([1, 2]), ...encode("three")]);
    expect([...decodeMulti(bytes)]).toEqual(msgpackr.unpackMultiple(bytes));
    const theirs: unknown[] = [];
    msgpackr.unpackMultiple(bytes, (value) => {
      theirs.push(value);
    });
    expect([...decodeMulti(bytes)]).toEqual(theirs);
  });

  test("mapsAsObjects: false is useMap: true", () => {
    const bytes = encode({ a: 1, 2: [3] });
    expect(decode(bytes, { useMap: true })).toEqual(new msgpackr.Unpackr({ mapsAsObjects: false }).unpack(bytes));
  });

  test("int64AsType \"bigint\", \"number\" and \"auto\" are int64 of the same names", () => {
    const bytes = encode([2n ** 60n, 5n, -(2n ** 60n), -5n]);
    for (const type of ["bigint", "number", "auto"] as const) {
      expect(decode(bytes, { int64: type }), type).toEqual(new msgpackr.Unpackr({ int64AsType: type } as unknown as msgpackr.Options).unpack(bytes));
    }
  });

  test("useFloat32: ALWAYS is forceFloat32: true", () => {
    for (const v of [1.5, 0.1, -2.75, 3]) {
      expect(hex(encode(v, { forceFloat32: true }))).toBe(hex(new msgpackr.Packr({ useFloat32: msgpackr.FLOAT32_OPTIONS.ALWAYS }).pack(v)));
    }
  });

  test("skipValues: [undefined] is ignoreUndefined: true; encodeUndefinedAsNil is our default", () => {
    const value = { a: undefined, b: 1 };
    expect(decode(encode(value, { ignoreUndefined: true }))).toEqual(unpackr.unpack(new msgpackr.Packr({ skipValues: [undefined], useRecords: false } as msgpackr.Options).pack(value)));
    expect(decode(new msgpackr.Packr({ encodeUndefinedAsNil: true }).pack(undefined))).toBeNull();
    // msgpackr's default writes undefined as extension 0, which is an ExtData here
    const ext = decode(msgpackr.pack(undefined)) as ExtData;
    expect(ext).toBeInstanceOf(ExtData);
    expect(ext.type).toBe(0);
  });

  test("pack()'s Buffer and unpack()'s Buffer binaries are buffers: true (copies, or views with binaryAsView)", () => {
    const value = { b: Buffer.from([1, 2, 3]) };
    const packed = msgpackr.pack(value);
    const ours = encode(value, { buffers: true });
    expect(Buffer.isBuffer(packed) && Buffer.isBuffer(ours)).toBe(true);
    expect((msgpackr.unpack(ours) as { b: Buffer }).b.equals(value.b)).toBe(true);
    const theirs = msgpackr.unpack(packed) as { b: Buffer };
    const back = decode(packed, { buffers: true }) as { b: Buffer };
    expect(Buffer.isBuffer(theirs.b) && Buffer.isBuffer(back.b)).toBe(true);
    expect(back.b.equals(theirs.b)).toBe(true);
    const view = decode(packed, { buffers: true, binaryAsView: true }) as { b: Buffer };
    expect(Buffer.isBuffer(view.b) && view.b.buffer === packed.buffer).toBe(true);
  });

  test("undefined as extension 0 (msgpackr's default, both ways) is undefinedAsExtension: true", () => {
    const value = [undefined, { u: undefined }];
    const packed = msgpackr.pack(value);
    expect(hex(encode(value, { undefinedAsExtension: true }))).toBe(hex(new msgpackr.Packr({ useRecords: false, variableMapSize: true } as msgpackr.Options).pack(value)));
    expect(decode(packed, { undefinedAsExtension: true })).toEqual(value);
    expect(msgpackr.unpack(encode(value, { undefinedAsExtension: true }))).toEqual(value);
  });

  test("copyBuffers: true is our default (copies); binaryAsView: true gives views like msgpackr's default", () => {
    const bytes = encode({ b: new Uint8Array([1, 2]) });
    const theirs = (msgpackr.unpack(bytes) as { b: Uint8Array }).b;
    expect(theirs.buffer).toBe(bytes.buffer);
    expect((decode(bytes) as { b: Uint8Array }).b.buffer).not.toBe(bytes.buffer);
    expect((decode(bytes, { binaryAsView: true }) as { b: Uint8Array }).b.buffer).toBe(bytes.buffer);
    expect((new msgpackr.Unpackr({ copyBuffers: true, useRecords: false }).unpack(bytes) as { b: Uint8Array }).b.buffer).not.toBe(bytes.buffer);
  });

  test("PackrStream/UnpackrStream: EncoderStream made a Node duplex with Duplex.fromWeb, and decodeMultiStream of a Node stream", async () => {
    const encoderStream = Duplex.fromWeb(new EncoderStream() as never, { objectMode: true });
    const unpackr = new msgpackr.UnpackrStream({ useRecords: false });
    const received: unknown[] = [];
    unpackr.on("data", (v) => received.push(v));
    const ended = new Promise((done) => unpackr.on("end", done));
    encoderStream.pipe(unpackr);
    for (const v of [{ a: 1 }, [2], "three"]) encoderStream.write(v);
    encoderStream.end();
    await ended;
    expect(received).toEqual([{ a: 1 }, [2], "three"]);

    const packr = new msgpackr.PackrStream({ useRecords: false });
    const decoded = (async () => {
      const out: unknown[] = [];
      for await (const v of decodeMultiStream(packr as AsyncIterable<Uint8Array>)) out.push(v);
      return out;
    })();
    for (const v of [{ x: 1 }, "y", [null]]) packr.write(v);
    packr.end();
    expect(await decoded).toEqual([{ x: 1 }, "y", [null]]);
  });

  test("addExtension({ Class, type, pack, unpack }) is ExtensionCodec#register, passed as extensionCodec; the bytes cross", () => {
    class Money {
      cents: number;
      constructor(cents: number) {
        this.cents = cents;
      }
    }
    msgpackr.addExtension({
      Class: Money,
      type: 42,
      pack: (m: Money) => encode(m.cents) as Buffer,
      unpack: (data: Uint8Array) => new Money(decode(data) as number),
    });
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 42, encode: (v) => (v instanceof Money ? encode(v.cents) : null), decode: (data) => new Money(decode(data) as number) });
    const value = [new Money(1999), { price: new Money(5) }];
    const ours = encode(value, { extensionCodec });
    const theirs = new msgpackr.Packr({ useRecords: false }).pack(value);
    expect(decode(theirs, { extensionCodec })).toEqual(value);
    expect(unpackr.unpack(ours)).toEqual(value);
    expect(hex(encode(new Money(7), { extensionCodec }))).toBe(hex(msgpackr.pack(new Money(7))));
  });

  test("useRecords (with the records entry imported): msgpackr's default Packr bytes need useRecords here; encode with useRecords writes what its Unpackr reads", () => {
    const value = [{ a: 1 }, { a: 2 }];
    const withRecords = new msgpackr.Packr().pack(value);
    let decoded: unknown;
    try {
      decoded = decode(withRecords);
    } catch {
      decoded = "threw";
    }
    expect(decoded).not.toEqual(value);
    expect(decode(withRecords, { useRecords: true })).toEqual(value);
    expect(hex(encode(value, { useRecords: true }))).toBe(hex(withRecords));
    expect(new msgpackr.Unpackr().unpack(encode(value, { useRecords: true }))).toEqual(value);
    expect(decode(new msgpackr.Packr({ useRecords: false }).pack(value))).toEqual(value);
  });

  test("no equivalent for structuredClone: a cycle throws an EncodeError", () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    const clone = new msgpackr.Packr({ structuredClone: true });
    const back = clone.unpack(clone.pack(cyclic)) as { self: unknown };
    expect(back.self).toBe(back);
    expect(() => encode(cyclic)).toThrow(/depth|cycle|itself/i);
  });

  test("__proto__ keys: msgpackr renames them to __proto_; we keep an own property __proto__", () => {
    const bytes = new Uint8Array([0x81, 0xa9, ...new TextEncoder().encode("__proto__"), 0x01]);
    expect(Object.keys(msgpackr.unpack(bytes) as object)).toEqual(["__proto_"]);
    expect(Object.keys(decode(bytes) as object)).toEqual(["__proto__"]);
  });

  test("integers above 2^32 as numbers: msgpackr writes float 64, we write uint 64, which msgpackr reads as a bigint by default", () => {
    expect(hex(msgpackr.pack(2 ** 40))).toBe("cb4270000000000000");
    expect(hex(encode(2 ** 40))).toBe("cf0000010000000000");
    expect(msgpackr.unpack(encode(2 ** 40))).toBe(2n ** 40n);
    expect(new msgpackr.Unpackr({ int64AsType: "auto" } as unknown as msgpackr.Options).unpack(encode(2 ** 40))).toBe(2 ** 40);
  });
});
