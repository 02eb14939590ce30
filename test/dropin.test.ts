// What programs written for other MessagePack libraries need to run with
// this one put in place: boxed primitives, wrong input named, register()
// checking its argument, Buffers for Node programs, msgpackr's and
// notepack.io's `undefined`, @msgpack/msgpack 2.x constructors and
// replaceable invalid UTF-8. The peers in node_modules are the oracles.
import { gzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { Packr, unpack } from "msgpackr";
import notepack from "notepack.io";
import { encode as theirEncode } from "@msgpack/msgpack";
// programs written for @msgpack/msgpack import its compatibility entry; notepack.io's, theirs (which installs `buffers`)
import { decode, decodeArrayStream, decodeAsync, DecodeError, Decoder as StreamDecoder, encode, EncodeError, Encoder, ExtData, ExtensionCodec } from "../src/compat/msgpack.ts";
import * as notepackEntry from "../src/compat/notepack.ts";
import { EncoderStream, encodeIterable } from "../src/streams.ts";
import { Decoder } from "../src/core.ts";
import { encodedSize, estimateSize } from "../src/compat/msgpack.ts";
import "../src/records.ts"; // useRecords below
import { forSeeds, hex } from "./_support/arbitrary.ts";
import { rejection, thrown } from "./_support/thrown.ts";

describe("boxed primitives encode as their values, as JSON.stringify writes them", () => {
  const CASES: Array<[unknown, unknown]> = [
    [new Number(5), 5],
    [new Number(1.5), 1.5],
    [new Number(-0), -0],
    [new String("s"), "s"],
    [new String(""), ""],
    [new String("ü".repeat(100)), "ü".repeat(100)],
    [new Boolean(false), false],
    [new Boolean(true), true],
  ];

  test.for(CASES)("%o is written as %o", ([boxed, value]) => {
    expect(hex(encode(boxed))).toBe(hex(encode(value)));
    expect(Object.is(decode(encode(boxed)), value)).toBe(true);
    expect(encodedSize(boxed)).toBe(encode(value).length);
    expect(estimateSize(boxed)).toBeGreaterThanOrEqual(1);
  });

  test("inside objects and arrays; the value held is read without calling an overridden valueOf", () => {
    const value = { n: new Number(3), list: [new String("a"), new Boolean(true)] };
    expect(decode(encode(value))).toEqual(JSON.parse(JSON.stringify(value)));
    const lying = new Number(7);
    (lying as unknown as { valueOf(): number }).valueOf = () => 99;
    expect(decode(encode({ lying }))).toEqual({ lying: 7 });
  });

  test("an object that only inherits from Number.prototype is a record, not a number", () => {
    const fake = Object.assign(Object.create(Number.prototype) as object, { a: 1 });
    expect(decode(encode(fake))).toEqual({ a: 1 });
  });
});

describe("ExtensionCodec.register() checks its argument at once", () => {
  test.for([
    ["no functions", { type: 1 }, /encode of type 1 is undefined, not a function/],
    ["no decode", { type: 1, encode: () => null }, /decode of type 1 is undefined, not a function/],
    ["encode not a function", { type: 2, encode: "x", decode: () => 1 }, /encode of type 2 is "x", not a function/],
    ["no object", undefined, /the argument is undefined, not an object/],
    ["null", null, /the argument is null, not an object/],
    ["a type out of range", { type: 200, encode: () => null, decode: () => 1 }, /type 200: not an integer in -128\.\.127/],
  ] as const)("%s: an EncodeError with code INVALID_EXT", ([, arg, message]) => {
    const codec = new ExtensionCodec();
    const e = thrown(() => codec.register(arg as never)) as EncodeError;
    expect(e).toBeInstanceOf(EncodeError);
    expect(e.code).toBe("INVALID_EXT");
    expect(e.message).toMatch(message);
    // nothing was registered
    expect(decode(encode(new Set([1]), { extensionCodec: codec }), { extensionCodec: codec })).toEqual([1]);
  });
});

describe("input that is no MessagePack is named, not sent to decodeMulti", () => {
  const text = (s: string): Uint8Array => new TextEncoder().encode(s);
  const CASES: Array<[string, Uint8Array, RegExp]> = [
    ["JSON text", text('{"id":1,"name":"a value of JSON text"}'), /the input looks like JSON text/],
    ["a JSON array with leading whitespace", text('\n  [1, 2, 3]'), /the input looks like JSON text/],
    ["JSON text after a byte order mark", text('\ufeff{"a":1}'), /the input looks like JSON text/],
    ["an HTML error page", text("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"), /the input looks like HTML or XML text/],
    ["XML", text('<?xml version="1.0"?><a/>'), /the input looks like HTML or XML text/],
    ["gzip data", new Uint8Array(gzipSync(Buffer.from(encode({ a: 1 })))), /the input looks like gzip data/],
    ["zstd data", Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x03, 0x19, 0x00, 0x00, 0x01]), /the input looks like zstd data/],
    ["msgpackr records", new Uint8Array(new Packr().pack({ a: 1, b: [{ x: 1 }, { x: 2 }] })), /the input looks like msgpackr records/],
    ["plain text", text("hello world, this is text"), /the input looks like text, not MessagePack/],
  ];

  test.for(CASES)("%s", async ([, input, message]) => {
    const e0 = thrown(() => decode(input)) as DecodeError;
    expect(e0).toBeInstanceOf(DecodeError);
    expect(e0.code).toBe("EXTRA_BYTES");
    expect(e0.message).toMatch(message);
    expect(e0.message).not.toMatch(/decodeMulti/);
    // judged from the bytes at hand when the extra bytes are found: here the first chunk's 10
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield input.subarray(0, 10);
      yield input.subarray(10);
    }
    const e = (await rejection(decodeAsync(chunks()))) as DecodeError;
    expect(e.code).toBe("EXTRA_BYTES");
    expect(e.message).toMatch(message);
  });

  test("back-to-back MessagePack values still point to decodeMulti", () => {
    for (const input of [Uint8Array.from([1, 2, 3]), Uint8Array.from([...encode({ a: 1 }), ...encode("b")]), Uint8Array.from([0x41, 0x42])]) {
      const e = thrown(() => decode(input)) as DecodeError;
      expect(e.code).toBe("EXTRA_BYTES");
      expect(e.message).toMatch(/see decodeMulti$/);
    }
  });
});

describe("@msgpack/msgpack 2.x constructors: new Encoder(extensionCodec, context, ...) and new Decoder(extensionCodec, context, ...)", () => {
  // a log forwarder's EventTime (fluentd's extension type 0: seconds and nanoseconds, 8 bytes)
  class EventTime {
    readonly epoch: number;
    readonly nano: number;
    constructor(epoch: number, nano: number) {
      this.epoch = epoch;
      this.nano = nano;
    }
  }
  type Ctx = { tag: string };
  const codec = new ExtensionCodec<Ctx>();
  codec.register({
    type: 0,
    encode: (v) => {
      if (!(v instanceof EventTime)) return null;
      const out = new Uint8Array(8);
      new DataView(out.buffer).setUint32(0, v.epoch);
      new DataView(out.buffer).setUint32(4, v.nano);
      return out;
    },
    decode: (data, _type, ctx) => {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      return { time: new EventTime(view.getUint32(0), view.getUint32(4)), tag: ctx.tag };
    },
  });

  test("the codec and the context are used (typed: Encoder<Ctx>, Decoder<Ctx>)", () => {
    const encoder: Encoder<Ctx> = new Encoder(codec, { tag: "app" });
    const bytes = encoder.encode([new EventTime(1_700_000_000, 5)]);
    expect(hex(bytes)).toBe("91-d7-00-65-53-f1-00-00-00-00-05");
    const decoder: Decoder<Ctx> = new Decoder(codec, { tag: "app" });
    expect(decoder.decode(bytes)).toEqual([{ time: new EventTime(1_700_000_000, 5), tag: "app" }]);
    const streamDecoder: StreamDecoder<Ctx> = new StreamDecoder(codec, { tag: "s" });
    expect(streamDecoder.decode(bytes)).toEqual([{ time: new EventTime(1_700_000_000, 5), tag: "s" }]);
  });

  test("every positional encode option: maxDepth, initialBufferSize, sortKeys, forceFloat32, ignoreUndefined, forceIntegerToFloat", () => {
    expect(() => new Encoder(undefined, undefined, 1).encode([[1]])).toThrow(/too deep/);
    expect(new Encoder(undefined, undefined, undefined, 1).encode("x".repeat(100))).toEqual(encode("x".repeat(100)));
    const all = new Encoder(undefined, undefined, undefined, undefined, true, true, true, true);
    expect(hex(all.encode({ b: 1.5, a: 2, u: undefined }))).toBe(hex(encode({ a: 2, b: 1.5 }, { sortKeys: true, forceFloat32: true, forceIntegerToFloat: true })));
    expect(hex(new Encoder(undefined, undefined, undefined, undefined, false, false, true).encode({ u: undefined }))).toBe("80");
    expect(() => new Encoder(undefined, undefined, -1)).toThrow(/maxDepth/);
  });

  test("a null context given by position reaches the extension encoders as null", () => {
    const seen: unknown[] = [];
    const extensionCodec = new ExtensionCodec<unknown>();
    extensionCodec.register({ type: 1, encode: (v, ctx) => (v instanceof Set ? (seen.push(ctx), new Uint8Array(0)) : null), decode: () => null });
    new Encoder(extensionCodec, null).encode(new Set());
    new Encoder(extensionCodec).encode(new Set());
    expect(seen).toEqual([null, undefined]);
  });

  test("every positional decode limit: maxStrLength, maxBinLength, maxArrayLength, maxMapLength, maxExtLength", () => {
    const CASES: Array<[number, unknown]> = [
      [2, "abc"],
      [3, new Uint8Array(3)],
      [4, [1, 2, 3]],
      [5, { a: 1, b: 2, c: 3 }],
      [6, new Date(1)],
    ];
    for (const [position, value] of CASES) {
      const args: unknown[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];
      args[position] = 2;
      const make = (...a: unknown[]) => new Decoder(...(a as [undefined]));
      const e = thrown(() => make(...args).decode(encode(value))) as DecodeError;
      expect([e.code, String(position)]).toEqual(["MAX_LENGTH", String(position)]);
      args[position] = 10;
      expect(make(...args).decode(encode(value))).toEqual(value);
    }
  });

  test("an options object, nothing, or undefined still mean what they did", () => {
    expect(hex(new Encoder({ sortKeys: true }).encode({ b: 1, a: 2 }))).toBe("82-a1-61-02-a1-62-01");
    expect(hex(new Encoder(undefined).encode({ b: 1 }))).toBe("81-a1-62-01");
    expect(new Decoder({ useMap: true }).decode(encode({ a: 1 }))).toEqual(new Map([["a", 1]]));
    expect(new Decoder(undefined).decode(encode({ a: 1 }))).toEqual({ a: 1 });
  });
});

describe('invalidUtf8: "replace" decodes invalid UTF-8 with U+FFFD, string by string', () => {
  const loose = new TextDecoder();
  /** A str 32 of `bytes` (any length). */
  const str = (bytes: Uint8Array): number[] => [0xdb, bytes.length >>> 24, (bytes.length >>> 16) & 0xff, (bytes.length >>> 8) & 0xff, bytes.length & 0xff, ...bytes];
  const REPLACE = { invalidUtf8: "replace" } as const;

  test("random bytes of every length decode as TextDecoder decodes them by default (values and map keys), in the decoder", async () => {
    let invalid = 0;
    forSeeds(300, (r) => {
      // mostly UTF-8-like bytes, so that valid, truncated and overlong sequences all occur
      const n = r.pick([1, 2, 3, 5, 15, 16, 17, 47, 48, 49, 200]);
      const bytes = Uint8Array.from({ length: n }, () => (r.bool(0.6) ? r.pick([0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0x80, 0xc0, 0xff]) : r.below(256)));
      const want = loose.decode(bytes);
      if (want.includes("\ufffd")) invalid++;
      const input = Uint8Array.from([0x92, ...str(bytes), 0x81, ...str(bytes), 0x01]);
      const expected = [want, { [want]: 1 }];
      expect(decode(input, REPLACE)).toEqual(expected);
      if (want.includes("\ufffd")) expect((thrown(() => decode(input)) as DecodeError).code).toBe("INVALID_UTF8");
    });
    expect(invalid).toBeGreaterThan(100);
  });

  test("one bad string does not spoil the others; the default stays strict", () => {
    // @msgpack/msgpack writes a lone surrogate as ed a0 80
    const input = theirEncode({ ok: "välid", bad: "a\ud800b", list: ["x", "\udfff"] });
    expect(decode(input, REPLACE)).toEqual({ ok: "välid", bad: "a\ufffd\ufffd\ufffdb", list: ["x", "\ufffd\ufffd\ufffd"] });
    const e = thrown(() => decode(input)) as DecodeError;
    expect([e.code, e.offset]).toEqual(["INVALID_UTF8", 16]); // the payload of "bad"
  });

  test("in the stream decoders, whatever the chunking; with rawStrings, string values stay bytes", async () => {
    const input = theirEncode([{ k: "a\ud800" }, "x\udc00".repeat(40)]);
    const want = decode(input, REPLACE);
    for (const size of [1, 3, input.length]) {
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < input.length; i += size) yield input.subarray(i, i + size);
      }
      expect(await decodeAsync(chunks(), REPLACE)).toEqual(want);
      const items: unknown[] = [];
      for await (const item of decodeArrayStream(chunks(), REPLACE)) items.push(item);
      expect(items).toEqual(want);
    }
    const raw = decode(theirEncode({ "k\ud800": "v\ud800" }), { ...REPLACE, rawStrings: true }) as Record<string, Uint8Array>;
    expect(Object.keys(raw)).toEqual(["k\ufffd\ufffd\ufffd"]);
    expect(Array.from(raw["k\ufffd\ufffd\ufffd"]!)).toEqual([0x76, 0xed, 0xa0, 0x80]);
  });

  test("any other value is INVALID_ARGUMENT", () => {
    for (const invalidUtf8 of ["ignore", true, "REPLACE"]) {
      const e = thrown(() => decode(encode(1), { invalidUtf8 } as never)) as DecodeError;
      expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", expect.stringMatching(/option invalidUtf8 .* not "throw" or "replace"/)]);
    }
    expect(decode(encode("a"), { invalidUtf8: "throw" })).toBe("a");
  });
});

describe("buffers: Node Buffers for programs written for notepack.io or msgpackr", () => {
  const value = { id: 7, bin: Uint8Array.from([0, 1, 2, 0xff]), nested: [Uint8Array.from([9])] };

  test("encode returns a Buffer over the result's own bytes (no copy) that Buffer APIs accept", () => {
    const encoder = new Encoder({ buffers: true });
    const bytes = encoder.encode(value) as Buffer; // an Encoder's methods are typed Uint8Array
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.toString("hex")).toBe(Buffer.from(encode(value)).toString("hex"));
    expect(Buffer.concat([Buffer.from([0xaa]), bytes]).subarray(1).equals(bytes)).toBe(true);
    // no copy: the Buffer is the encoder's result itself, an exact-size ArrayBuffer of its own
    expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, bytes.length]);
    const u32: Buffer = encode(2 ** 31 + 5, { buffers: true }); // typed Buffer where Node's types are loaded
    expect(u32.readUInt32BE(1)).toBe(2 ** 31 + 5);
    // long strings (their own path), encodeSharedRef, encodeChunks, poolResults
    expect(Buffer.isBuffer(encoder.encode("x".repeat(5000)))).toBe(true);
    const shared = encoder.encodeSharedRef([1, 2]);
    expect(Buffer.isBuffer(shared) && shared.toString("hex")).toBe("920102");
    const chunks = encoder.encodeChunks(new Uint8Array(1 << 20));
    expect(chunks.every((c) => Buffer.isBuffer(c))).toBe(true);
    expect(Buffer.concat(chunks).length).toBe((1 << 20) + 5);
    const pooled = new Encoder({ buffers: true, poolResults: true }).encode([1]);
    expect(Buffer.isBuffer(pooled) && pooled.toString("hex")).toBe("9101");
  });

  test("decode returns binaries as Buffers: copies, or views into the input with binaryAsView", () => {
    const bytes = encode(value);
    const copies = decode(bytes, { buffers: true }) as typeof value;
    expect(Buffer.isBuffer(copies.bin) && Buffer.isBuffer(copies.nested[0])).toBe(true);
    expect((copies.bin as Buffer).toString("hex")).toBe("000102ff");
    expect(copies.bin.buffer).not.toBe(bytes.buffer);
    const views = decode(bytes, { buffers: true, binaryAsView: true }) as typeof value;
    expect(Buffer.isBuffer(views.bin)).toBe(true);
    expect(views.bin.buffer).toBe(bytes.buffer);
    expect((views.bin as Buffer).readUInt16BE(2)).toBe(0x02ff);
    // rawStrings give Buffers too; extension payloads stay Uint8Arrays
    const raw = decode(encode(["ab", new ExtData(3, Uint8Array.of(1))]), { buffers: true, rawStrings: true }) as [Buffer, ExtData];
    expect(raw[0].toString("latin1")).toBe("ab");
    expect(Buffer.isBuffer(raw[1].data)).toBe(false);
  });

  test("as in @msgpack/msgpack, binaryAsView with a Buffer input gives Buffer views, without the option; copies stay Uint8Arrays", async () => {
    const input = Buffer.from(encode(value));
    const theirs = (await import("@msgpack/msgpack")).decode(input) as typeof value;
    expect(Buffer.isBuffer(theirs.bin)).toBe(true);
    const views = decode(input, { binaryAsView: true }) as typeof value;
    expect(Buffer.isBuffer(views.bin)).toBe(true);
    expect(views.bin.buffer).toBe(input.buffer);
    expect([views.bin.byteOffset, (views.bin as Buffer).toString("hex")]).toEqual([theirs.bin.byteOffset, "000102ff"]);
    const many = [...new Decoder({ binaryAsView: true }).decodeMulti(Buffer.concat([input, input]))] as Array<typeof value>;
    expect(many.every((v) => Buffer.isBuffer(v.bin))).toBe(true);
    const copies = decode(input) as typeof value;
    expect(copies.bin.constructor).toBe(Uint8Array);
    // a plain input gives plain views
    expect((decode(encode(value), { binaryAsView: true }) as typeof value).bin.constructor).toBe(Uint8Array);
  });

  test("the stream decoders and encoders take the option too", async () => {
    const bytes = encode([value, value]);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
    }
    const whole = (await decodeAsync(chunks(), { buffers: true })) as Array<typeof value>;
    expect(whole.every((v) => Buffer.isBuffer(v.bin))).toBe(true);
    for await (const item of decodeArrayStream(chunks(), { buffers: true })) expect(Buffer.isBuffer((item as typeof value).bin)).toBe(true);
    const parts = [...encodeIterable({ big: new Uint8Array(100_000), small: [1, 2] }, { buffers: true, chunkSize: 4096 })];
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((c) => Buffer.isBuffer(c))).toBe(true);
    const stream = new EncoderStream({ buffers: true, lengthPrefixed: true });
    const writer = stream.writable.getWriter();
    void writer.write({ a: 1 }).then(() => writer.close());
    const out: Uint8Array[] = [];
    for await (const c of stream.readable as unknown as AsyncIterable<Uint8Array>) out.push(c);
    expect(out.every((c) => Buffer.isBuffer(c))).toBe(true);
    expect(Buffer.concat(out).readUInt32BE(0)).toBe(encode({ a: 1 }).length);
  });

  test("where there is no Buffer class, buffers: true is INVALID_ARGUMENT (encode and decode); false is fine", () => {
    const saved = globalThis.Buffer;
    (globalThis as { Buffer?: unknown }).Buffer = undefined;
    try {
      expect((thrown(() => new Encoder({ buffers: true })) as EncodeError).code).toBe("INVALID_ARGUMENT");
      expect((thrown(() => new Decoder({ buffers: true })) as DecodeError).code).toBe("INVALID_ARGUMENT");
      expect((thrown(() => decode(encode(1), { buffers: true, maxDepth: 3 })) as DecodeError).message).toMatch(/buffers .* no Buffer class/);
      expect(new Encoder({ buffers: false }).encode(1)).toEqual(Uint8Array.of(1));
    } finally {
      globalThis.Buffer = saved;
    }
  });
});

describe("undefinedAsExtension: undefined as msgpackr writes it (d4 00 00), and back", () => {
  test("encode writes it where undefined is a value; ignoreUndefined still leaves properties out; msgpackr and notepack.io read it as undefined", () => {
    const value = [undefined, { a: undefined, b: 1 }];
    const bytes = encode(value, { undefinedAsExtension: true });
    expect(hex(bytes)).toBe("92-d4-00-00-82-a1-61-d4-00-00-a1-62-01");
    expect(hex(bytes.subarray(1, 4))).toBe(hex(new Packr({ useRecords: false }).pack(undefined)));
    expect(unpack(bytes)).toEqual(value);
    expect(notepack.decode(Buffer.from(bytes))).toEqual(value);
    expect(hex(encode(value, { undefinedAsExtension: true, ignoreUndefined: true }))).toBe("92-d4-00-00-81-a1-62-01");
    expect(encodedSize(value, { undefinedAsExtension: true })).toBe(bytes.length);
    const streamed = [...encodeIterable(value, { undefinedAsExtension: true })];
    expect(hex(Uint8Array.from(streamed.flatMap((c) => [...c])))).toBe(hex(bytes));
  });

  test("decode reads fixext 1 of type 0 as undefined only when asked; a codec registering type 0 still wins", () => {
    const fromMsgpackr = new Packr({ useRecords: false }).pack({ data: undefined, list: [undefined] });
    expect(decode(fromMsgpackr, { undefinedAsExtension: true })).toEqual({ data: undefined, list: [undefined] });
    const plain = decode(fromMsgpackr) as { data: ExtData };
    expect(plain.data).toBeInstanceOf(ExtData);
    expect([plain.data.type, [...plain.data.data]]).toEqual([0, [0]]);
    // notepack.io reads any payload byte so; so do we, only the payload length counts
    expect(decode(Uint8Array.of(0xd4, 0, 7), { undefinedAsExtension: true })).toBeUndefined();
    expect(decode(Uint8Array.of(0xd5, 0, 0, 0), { undefinedAsExtension: true })).toBeInstanceOf(ExtData);
    const codec = new ExtensionCodec();
    codec.register({ type: 0, encode: () => null, decode: () => "mine" });
    expect(decode(Uint8Array.of(0xd4, 0, 0), { undefinedAsExtension: true, extensionCodec: codec })).toBe("mine");
  });
});

// A program written for notepack.io, in the style of socket.io's msgpack
// parser: packets are encoded to a Buffer (handed to a socket or a Redis
// client that wants one), binary attachments come back as Buffers, and
// packets carry `data: undefined` / no `id`. It runs with notepack.io, and
// with this library after changing only the import, to
// @resizable/msgpack/compat/notepack; the main entry gives the same with
// the options that entry sets.
describe("a notepack.io program runs with the import changed to compat/notepack", () => {
  type Codec = { encode(value: unknown): Uint8Array; decode(bytes: Uint8Array): unknown };
  interface Packet {
    type: number;
    nsp: string;
    data?: unknown;
    id?: number;
  }

  /** The program: a parser and a pub/sub wire that wants Buffers. */
  function program(msgpack: Codec): string[] {
    const log: string[] = [];
    const isPacket = (p: unknown): p is Packet => {
      const q = p as Packet;
      const idOk = q.id === undefined || Number.isInteger(q.id);
      const dataOk = q.data === undefined || Array.isArray(q.data) || (typeof q.data === "object" && q.data !== null);
      return typeof q.type === "number" && typeof q.nsp === "string" && idOk && dataOk;
    };
    // a Redis-like client: refuses anything but a Buffer (node-redis does), frames messages with Buffer.concat
    const wire: Buffer[] = [];
    const publish = (message: unknown): void => {
      if (!Buffer.isBuffer(message)) throw new TypeError("publish: expected a Buffer");
      const header = Buffer.alloc(4);
      header.writeUInt32BE(message.length);
      wire.push(Buffer.concat([header, message]));
    };
    const packets: Packet[] = [
      { type: 2, nsp: "/", data: ["hello", { text: "hi" }], id: undefined },
      { type: 0, nsp: "/admin", data: undefined },
      { type: 5, nsp: "/", data: ["file", Buffer.from("cafe", "hex"), { nested: Buffer.from([1, 2]) }], id: 12 },
    ];
    for (const p of packets) publish(msgpack.encode(p));
    for (const frame of wire) {
      const length = frame.readUInt32BE(0);
      const packet = msgpack.decode(frame.subarray(4, 4 + length));
      if (!isPacket(packet)) {
        log.push(`invalid packet ${JSON.stringify(packet)}`);
        continue;
      }
      const parts = Array.isArray(packet.data) ? packet.data : [packet.data];
      const shown = parts.map((x) =>
        Buffer.isBuffer(x) ? `<${x.toString("hex")}>` : x !== null && typeof x === "object" && "nested" in x ? `{nested <${(x.nested as Buffer).toString("hex")}>}` : JSON.stringify(x),
      );
      log.push(`${packet.type} ${packet.nsp} ${packet.id ?? "-"} ${"data" in packet ? "has data" : "no data"}: ${shown.join(" ")}`);
    }
    return log;
  }

  const OPTIONS = { buffers: true, ignoreUndefined: true, undefinedAsExtension: true } as const;

  test("the same log as with notepack.io", () => {
    const expected = program(notepack);
    expect(expected).toEqual([
      '2 / - has data: "hello" {"text":"hi"}',
      "0 /admin - no data: ",
      "5 / 12 has data: \"file\" <cafe> {nested <0102>}",
    ]);
    // the import line changed: `import notepack from "@resizable/msgpack/compat/notepack"`
    expect(program(notepackEntry.default)).toEqual(expected);
    expect(program(notepackEntry)).toEqual(expected);
    const ours: Codec = { encode: (v) => encode(v, OPTIONS), decode: (b) => decode(b, OPTIONS) };
    expect(program(ours)).toEqual(expected);
    // and each side reads the other's bytes
    expect(program({ encode: (v) => notepack.encode(v), decode: (b) => decode(b, OPTIONS) })).toEqual(expected);
    expect(program({ encode: (v) => encode(v, OPTIONS), decode: (b) => notepack.decode(b as Buffer) })).toEqual(expected);
    expect(program({ encode: (v) => notepack.encode(v), decode: (b) => notepackEntry.decode(b) })).toEqual(expected);
    expect(program({ encode: (v) => notepackEntry.encode(v), decode: (b) => notepack.decode(b as Buffer) })).toEqual(expected);
  });

  test("without the options it fails as a migrating program would see it", () => {
    expect(() => program({ encode: (v) => encode(v), decode: (b) => decode(b) })).toThrow(/expected a Buffer/);
    const log = program({ encode: (v) => encode(v, { buffers: true }), decode: (b) => decode(b) });
    expect(log[0]).toMatch(/^invalid packet/); // id: null
  });
});

describe("the drop-in options are options like the others", () => {
  test("misspelled, they are refused with the name meant; one object serves encode and decode", () => {
    expect(() => decode(encode("a"), { invalidUtf: "replace" } as never)).toThrow(/did you mean invalidUtf8\?/);
    expect(() => encode(1, { buffer: true } as never)).toThrow(/did you mean buffers\?/);
    expect(() => decode(encode(1), { undefinedAsExtensions: true } as never)).toThrow(/did you mean undefinedAsExtension\?/);
    const both = { buffers: true, ignoreUndefined: true, undefinedAsExtension: true, invalidUtf8: "replace" } as const;
    expect(decode(encode({ a: undefined, b: [undefined] }, both), both)).toEqual({ b: [undefined] });
  });

  test("each is read once, as the others (a getter runs once per coder made)", () => {
    let reads = 0;
    const options = {
      get buffers(): boolean {
        reads++;
        return true;
      },
    };
    const encoder = new Encoder(options);
    encoder.encode(1);
    encoder.encode(2);
    expect(reads).toBe(1);
  });
});

describe("invalidUtf8: \"replace\" with records", () => {
  test("record field names and string fields with invalid UTF-8 are replaced as map keys and strings are", () => {
    // a record of structure 0x40, declared inline with one field named "a\xff", whose field is the string "b\xff"
    const bytes = Uint8Array.of(0xd4, 0x72, 0x40, 0x91, 0xa2, 0x61, 0xff, 0xa2, 0x62, 0xff);
    expect(() => decode(bytes, { useRecords: true })).toThrow(DecodeError);
    expect(decode(bytes, { useRecords: true, invalidUtf8: "replace" })).toEqual({ "a\ufffd": "b\ufffd" });
  });
});
