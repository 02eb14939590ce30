// The stream decoders against decode() / decodeMulti(): extension decoders
// that decode their own payloads (a truncated inner decode is INVALID_EXT,
// never "need more bytes"), the scanner framing with the decoder's limits,
// DecoderStream decoding as the reader reads, the source cancelled after an
// error without waiting, array-like chunks checked before allocating, and a
// property test over random and hostile inputs, chunkings and options.
import { describe, expect, it } from "vitest";
import { chunked, chunkings, collect, concat, readableOf, split } from "./_support/streams.ts";
import { hex, Random, value as randomValue } from "./_support/arbitrary.ts";
import { decode, DecodeError, type DecodeOptions, decodeMulti, Decoder as MainDecoder, encode, ExtData, ExtensionCodec } from "../src/index.ts";
import { createStreamStats, decodeArrayStream, decodeAsync, DecoderStream, decodeMultiStream, type ByteChunk, type StreamStats } from "../src/streams.ts";

// ---- helpers ----

/** What a decode gave: the values, then the error's class, code and offset if it threw. */
type Outcome = { values: unknown[]; error?: { isDecodeError: boolean; code: unknown; offset: unknown } };

function failureOf(e: unknown): Outcome["error"] {
  return { isDecodeError: e instanceof DecodeError, code: (e as DecodeError).code, offset: (e as DecodeError).offset };
}

function syncOutcome(run: (push: (v: unknown) => void) => void): Outcome {
  const values: unknown[] = [];
  try {
    run((v) => values.push(v));
    return { values };
  } catch (e) {
    return { values, error: failureOf(e) };
  }
}

async function asyncOutcome(run: (push: (v: unknown) => void) => Promise<void>): Promise<Outcome> {
  const values: unknown[] = [];
  try {
    await run((v) => values.push(v));
    return { values };
  } catch (e) {
    return { values, error: failureOf(e) };
  }
}

/** Chunks as a `ReadableStream` piped through a DecoderStream, read to the end. */
async function throughDecoderStream(chunks: Uint8Array[], options: DecodeOptions<unknown> | undefined, push: (v: unknown) => void): Promise<void> {
  for await (const v of readableOf(chunks).pipeThrough(new DecoderStream(options)) as unknown as AsyncIterable<unknown>) push(v);
}

/** A source that yields `head`, then `tail` again and again; it counts the chunks pulled, and gives up (throws) past `limit`. */
function endless(head: Uint8Array[], tail: Uint8Array, limit = 10_000): { source: AsyncGenerator<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  async function* source(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (;;) {
      if (++pulled > limit) throw new Error("the decoder kept reading: it never failed");
      yield tail;
    }
  }
  return { source: source(), pulled: () => pulled };
}

/** The codec of the README's recipes: extensions whose decoders decode their own payloads. */
function recipeCodec(): ExtensionCodec {
  const codec = new ExtensionCodec();
  // a Set: its payload is an array of the items
  codec.register({ type: 1, encode: () => null, decode: (data) => new Set(decode(data, { extensionCodec: codec }) as unknown[]) });
  // a Map: its payload is back-to-back keys and values
  codec.register({
    type: 2,
    encode: () => null,
    decode: (data) => {
      const flat = [...decodeMulti(data, { extensionCodec: codec })];
      const map = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < flat.length; i += 2) map.set(flat[i], flat[i + 1]);
      return map;
    },
  });
  // a decoder that fails in its own words, @msgpack/msgpack style, and one that throws a plain Error
  codec.register({
    type: 3,
    encode: () => null,
    decode: (data) => {
      if (data.length % 2 === 1) throw new DecodeError("odd payload");
      return data.length;
    },
  });
  codec.register({
    type: 4,
    encode: () => null,
    decode: (data) => {
      if (data[0] === 0xff) throw new Error("custom failure");
      return [...data];
    },
  });
  return codec;
}

// ---- 1. an extension decoder's failure is never TRUNCATED of the outer input ----

describe("extension decoders that decode their own payloads", () => {
  const codec = recipeCodec();
  const options = { extensionCodec: codec };
  // fixext 1 of type 1 holding 0x92 (an array of 2 items, cut short), then 0x01
  const packet = Uint8Array.of(0xd5, 0x01, 0x92, 0x01);

  it("decode() and decodeMulti() report a truncated inner decode as INVALID_EXT at the extension, with the inner error as cause", () => {
    let error: unknown;
    try {
      decode(packet, options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ code: "INVALID_EXT", offset: 0, needed: 0 });
    expect((error as Error).message).toBe("Cannot decode extension type 1 at offset 0: its decoder failed");
    expect((error as Error).cause).toBeInstanceOf(DecodeError);
    expect((error as Error).cause).toMatchObject({ code: "TRUNCATED" });
    const lead = encode("lead");
    const all = concat([lead, packet]);
    const many = syncOutcome((push) => {
      for (const v of decodeMulti(all, options)) push(v);
    });
    expect(many).toEqual({ values: ["lead"], error: { isDecodeError: true, code: "INVALID_EXT", offset: lead.length } });
  });

  it("decodeMultiStream() fails at the packet at once, instead of waiting for bytes that cannot help", async () => {
    const { source, pulled } = endless([encode("a"), packet], encode(1));
    const stats = createStreamStats();
    const got = await asyncOutcome(async (push) => {
      for await (const v of decodeMultiStream(source, { ...options, stats })) push(v);
    });
    expect(got).toEqual({ values: ["a"], error: { isDecodeError: true, code: "INVALID_EXT", offset: 2 } });
    expect(pulled()).toBeLessThanOrEqual(1);
    expect(stats.bytesIn).toBeLessThan(16);
  });

  it("DecoderStream errors at the packet after the values before it, and stops pulling its source", async () => {
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encode("a"));
        c.enqueue(packet);
      },
      pull(c) {
        if (++pulled > 10_000) c.error(new Error("the decoder kept reading: it never failed"));
        else c.enqueue(encode(1));
      },
    });
    const got = await asyncOutcome(async (push) => {
      for await (const v of source.pipeThrough(new DecoderStream(options)) as unknown as AsyncIterable<unknown>) push(v);
    });
    expect(got).toEqual({ values: ["a"], error: { isDecodeError: true, code: "INVALID_EXT", offset: 2 } });
    expect(pulled).toBeLessThan(10);
  });

  it("nested extensions: the error is at the inner extension's offset in the stream, for every chunking", async () => {
    // Set([Set(<array of 2, cut short>)]) inside a Map extension, after a lead value
    const inner = Uint8Array.of(0xd5, 0x01, 0x92, 0x01);
    const mid = concat([Uint8Array.of(0xc7, inner.length + 1, 0x01, 0x91), inner]);
    const outer = concat([Uint8Array.of(0xc7, mid.length + 2, 0x02, 0xa1, 0x6b), mid]);
    const all = concat([encode([1, 2]), outer]);
    const want = syncOutcome((push) => {
      for (const v of decodeMulti(all, options)) push(v);
    });
    expect(want.error).toEqual({ isDecodeError: true, code: "INVALID_EXT", offset: all.length - inner.length });
    for (const chunks of [[all], Array.from(all, (b) => Uint8Array.of(b)), split(all, () => 3)]) {
      const got = await asyncOutcome(async (push) => {
        for await (const v of decodeMultiStream(chunked(chunks), options)) push(v);
      });
      expect(got, `${chunks.length} chunks`).toEqual(want);
      expect(await asyncOutcome((push) => throughDecoderStream(chunks, options, push))).toEqual(want);
    }
    // one value: decodeAsync, with the error at the same offset in `outer` as decode() gives
    const alone = syncOutcome((push) => push(decode(outer, options)));
    expect(alone.error).toEqual({ isDecodeError: true, code: "INVALID_EXT", offset: outer.length - inner.length });
    for (const chunks of [[outer], Array.from(outer, (b) => Uint8Array.of(b))]) {
      expect(await asyncOutcome(async (push) => push(await decodeAsync(chunked(chunks), options)))).toEqual(alone);
    }
  });

  it("valid Set and Map recipes decode the same through every stream decoder, split at every byte", async () => {
    const set = new ExtData(1, encode([1, "two", new ExtData(1, encode([3]))]));
    const map = new ExtData(2, concat([encode("k"), encode([1, 2]), encode(5), encode(new ExtData(1, encode([])))]));
    const bytes = concat([encode(set), encode({ m: map }), encode([set, map])]);
    const want = [...decodeMulti(bytes, options)];
    expect(want[0]).toEqual(new Set([1, "two", new Set([3])]));
    expect((want[1] as { m: Map<unknown, unknown> }).m.get(5)).toEqual(new Set());
    for (let at = 0; at <= bytes.length; at++) {
      const chunks = [bytes.subarray(0, at), bytes.subarray(at)];
      expect(await collect(decodeMultiStream(chunked(chunks), options)), `split at ${at}`).toEqual(want);
    }
    const ones = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(await collect(readableOf(ones).pipeThrough(new DecoderStream(options)))).toEqual(want);
    expect(await collect(decodeArrayStream(chunked(Array.from(encode([set, map]), (b) => Uint8Array.of(b))), options))).toEqual(want[2]);
  });
});

// ---- 2. one decoder: the scanner frames with the decoder's limits, and the work is linear ----

describe("the stream scanner applies the decoder's limits, with linear work", () => {
  it("with rawStrings, a value string is bounded by maxBinLength and a map key by maxStrLength, before the rest arrives", async () => {
    // a str 32 declaring 2^31 bytes: a value within maxStrLength but over maxBinLength
    const huge = Uint8Array.of(0xdb, 0x80, 0x00, 0x00, 0x00);
    const options = { rawStrings: true, maxStrLength: 2 ** 32 - 1, maxBinLength: 1000 };
    let { source, pulled } = endless([Uint8Array.of(0x91), huge], new Uint8Array(64));
    const err = await decodeAsync(source, options).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "MAX_LENGTH", offset: 1 });
    expect((err as Error).message).toMatch(/maxBinLength \(1000\)/);
    expect(pulled()).toBeLessThanOrEqual(1);
    // the same string as a map key is text: maxStrLength bounds it, maxBinLength does not
    ({ source, pulled } = endless([Uint8Array.of(0x81), huge], new Uint8Array(64)));
    const keyErr = await decodeAsync(source, { rawStrings: true, maxStrLength: 1000, maxBinLength: 2 ** 32 - 1 }).catch((e: unknown) => e);
    expect(keyErr).toMatchObject({ code: "MAX_LENGTH", offset: 1 });
    expect((keyErr as Error).message).toMatch(/maxStrLength \(1000\)/);
    expect(pulled()).toBeLessThanOrEqual(1);
  });

  it("a string value over maxStrLength but within maxBinLength is read with rawStrings, decoded once when complete", async () => {
    const values = [{ k: "x".repeat(139_000) }, Array.from({ length: 5000 }, (_, i) => `s${i}`)];
    for (const value of values) {
      const bytes = encode(value);
      const options = { rawStrings: true, maxStrLength: 1 };
      const want = decode(bytes, options);
      const stats = createStreamStats();
      const got = await collect(decodeMultiStream(chunked(split(bytes, () => 64)), { ...options, stats }));
      expect(got).toEqual([want]);
      // a retry per chunk decoded the value hundreds of times over
      expect(stats.bytesDecoded).toBeLessThanOrEqual(3 * bytes.length);
      expect(stats.bytesScanned).toBeLessThanOrEqual(bytes.length);
    }
  });

  it("a map key over maxStrLength with rawStrings is reported by every stream decoder as by decode()", async () => {
    const bytes = encode({ short: 1, ["k".repeat(40)]: 2 });
    const options = { rawStrings: true, maxStrLength: 10 };
    const want = syncOutcome((push) => push(decode(bytes, options)));
    expect(want.error).toMatchObject({ code: "MAX_LENGTH" });
    for (const chunks of [[bytes], Array.from(bytes, (b) => Uint8Array.of(b))]) {
      expect(await asyncOutcome(async (push) => push(await decodeAsync(chunked(chunks), options)))).toEqual(want);
    }
  });
});

// ---- 3. DecoderStream decodes as the reader reads ----

describe("DecoderStream: chunks holding thousands of tiny values", () => {
  it("a 64 KiB chunk of 1-byte values: each read decodes one value, none is decoded ahead of the reader", async () => {
    const n = 64 * 1024;
    const chunk = new Uint8Array(n).map((_, i) => i & 0x7f);
    const stream = new DecoderStream();
    const writer = stream.writable.getWriter();
    const written = writer.write(chunk);
    let settled = false;
    void written.then(() => (settled = true));
    const reader = stream.readable.getReader();
    for (let i = 0; i < 10; i++) expect((await reader.read()).value).toBe(i);
    // enqueuing the whole chunk at once decoded all of it before the first read
    expect(stream.stats.bytesDecoded).toBeLessThanOrEqual(11);
    expect(settled).toBe(false); // backpressure: the write waits for its values to be read
    let count = 10;
    let ok = true;
    const closing = (async () => {
      await written;
      await writer.close();
    })();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      if (r.value !== (count & 0x7f)) ok = false;
      count++;
    }
    await closing;
    expect(ok).toBe(true);
    expect(count).toBe(n);
    expect(stream.stats.bytesDecoded).toBe(n);
  });

  it("thousands of tiny values in each of several chunks, piped: every value in order, the buffer held small", async () => {
    const values = Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? null : i % 3 === 1 ? i & 0x7f : "s"));
    const bytes = concat(values.map((v) => encode(v)));
    const stats = createStreamStats();
    const got = await collect(readableOf(split(bytes, () => 8192)).pipeThrough(new DecoderStream({ stats })));
    expect(got).toEqual(values);
    expect(stats.maxBufferedBytes).toBeLessThanOrEqual(8192 + 4096);
  });

  it("a consumer that cancels stops the writer; an error after values comes once they are read", async () => {
    const stream = new DecoderStream();
    const writer = stream.writable.getWriter();
    const written = writer.write(new Uint8Array(1000));
    const reader = stream.readable.getReader();
    expect((await reader.read()).value).toBe(0);
    await reader.cancel(new Error("enough"));
    await expect(written).rejects.toThrow("enough");
    const failing = new DecoderStream();
    const w = failing.writable.getWriter();
    void w.write(Uint8Array.of(1, 2, 0xc1)).catch(() => undefined);
    const r = failing.readable.getReader();
    expect((await r.read()).value).toBe(1);
    expect((await r.read()).value).toBe(2);
    await expect(r.read()).rejects.toMatchObject({ code: "INVALID_BYTE", offset: 2 });
  });
});

// ---- 4. a source whose return() never settles or throws cannot hold back or hide the error ----

describe("stream decoders: the source after a decode error", () => {
  /** An async iterator yielding `chunks`, whose return() is `onReturn`. */
  function iterable(chunks: Uint8Array[], onReturn: () => Promise<IteratorResult<Uint8Array>>): AsyncIterable<Uint8Array> & { returned: () => number } {
    let returned = 0;
    return {
      returned: () => returned,
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          next: async () => (i < chunks.length ? { done: false, value: chunks[i++]! } : { done: true, value: undefined }),
          return: () => {
            returned++;
            return onReturn();
          },
        };
      },
    };
  }
  const never = (): Promise<IteratorResult<Uint8Array>> => new Promise(() => undefined);
  const throwing = (): Promise<IteratorResult<Uint8Array>> => {
    throw new Error("return failed");
  };
  const rejecting = (): Promise<IteratorResult<Uint8Array>> => Promise.reject(new Error("return failed"));
  const bad = [Uint8Array.of(0x92, 0x01), Uint8Array.of(0xc1), Uint8Array.of(0x00)];

  for (const [label, onReturn] of [
    ["never settles", never],
    ["throws", throwing],
    ["rejects", rejecting],
  ] as const) {
    it(`return() that ${label}: every stream decoder rejects with the DecodeError, and return() was called`, async () => {
      const runs: [string, (s: AsyncIterable<Uint8Array>) => Promise<unknown>][] = [
        ["decodeAsync", (s) => decodeAsync(s)],
        ["decodeMultiStream", (s) => collect(decodeMultiStream(s))],
        ["decodeArrayStream", (s) => collect(decodeArrayStream(s))],
        ["Decoder#decodeAsync", (s) => new MainDecoder().decodeAsync(s)],
      ];
      for (const [name, run] of runs) {
        const source = iterable(bad, onReturn);
        const err = await run(source).catch((e: unknown) => e);
        expect(err, name).toBeInstanceOf(DecodeError);
        expect(err, name).toMatchObject({ code: "INVALID_BYTE", offset: 2 });
        expect(source.returned(), name).toBe(1);
      }
    });
  }
});

// ---- 5. array-like chunks are checked before they are allocated ----

describe("stream decoders: array-like chunks with huge lengths", () => {
  it("{ length: 2 ** 33 } and { length: 2 ** 30 } are INVALID_ARGUMENT (element 0 is no byte), with no buffer of their length", async () => {
    const Original = globalThis.Uint8Array;
    let largest = 0;
    class Watched extends Original {
      constructor(...args: unknown[]) {
        if (typeof args[0] === "number") largest = Math.max(largest, args[0]);
        super(...(args as [number]));
      }
    }
    for (const chunk of [{ length: 2 ** 33 }, { length: 2 ** 30 }]) {
      largest = 0;
      globalThis.Uint8Array = Watched as unknown as Uint8ArrayConstructor;
      let err: unknown;
      try {
        err = await decodeAsync(chunked([chunk as unknown as ByteChunk])).catch((e: unknown) => e);
      } finally {
        globalThis.Uint8Array = Original;
      }
      expect(err).toBeInstanceOf(DecodeError);
      expect(err).toMatchObject({ code: "INVALID_ARGUMENT", offset: 0 });
      expect((err as Error).message).toMatch(/element 0 is undefined, not a byte value/);
      expect(largest).toBeLessThanOrEqual(64 * 1024);
    }
  });

  it("a long array chunk with a bad element late is still checked to the end; a good one decodes", async () => {
    const good = Array.from(encode(Array.from({ length: 40_000 }, (_, i) => i & 0x7f)));
    expect(await decodeAsync(chunked([good]))).toHaveLength(40_000);
    const badLate = good.slice();
    badLate[good.length - 1] = 256;
    await expect(decodeAsync(chunked([badLate]))).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(`element ${good.length - 1} is 256`) });
  });
});

// ---- 6. property: every stream decoder agrees with decode() / decodeMulti() ----

describe("property: the stream decoders give what decode() and decodeMulti() give, for any chunking and options", () => {
  const codec = recipeCodec();

  /** Every decode option, varied. */
  function randomOptions(r: Random): DecodeOptions<unknown> {
    const o: Record<string, unknown> = {};
    const lengths = [0, 1, 2, 5, 16, 31, 32, 100, 300, 2 ** 32 - 1];
    if (r.bool(0.3)) o.rawStrings = true;
    if (r.bool(0.3)) o.maxStrLength = r.pick(lengths);
    if (r.bool(0.3)) o.maxBinLength = r.pick(lengths);
    if (r.bool(0.2)) o.maxArrayLength = r.int(0, 8);
    if (r.bool(0.2)) o.maxMapLength = r.int(0, 8);
    if (r.bool(0.2)) o.maxExtLength = r.pick(lengths);
    if (r.bool(0.3)) o.useMap = true;
    if (r.bool(0.2)) o.int64 = r.pick(["auto", "number", "bigint"]);
    else if (r.bool(0.1)) o.useBigInt64 = true;
    if (r.bool(0.3)) o.binaryAsView = true;
    if (r.bool(0.3)) o.maxDepth = r.int(0, 6);
    if (r.bool(0.5)) o.extensionCodec = codec;
    if (r.bool(0.1)) o.mapKeyConverter = (k: unknown) => (typeof k === "string" ? k.toUpperCase() : k);
    return o as DecodeOptions<unknown>;
  }

  /** A random value with extensions whose decoders decode their payloads (Set and Map recipes) or fail. */
  function richValue(r: Random, depth = 0): unknown {
    if (depth < 2 && r.bool(0.25)) {
      switch (r.int(0, 3)) {
        case 0:
          return new ExtData(1, encode(Array.from({ length: r.int(0, 3) }, () => richValue(r, depth + 1))));
        case 1:
          return new ExtData(2, concat(Array.from({ length: 2 * r.int(0, 2) }, () => encode(richValue(r, depth + 1)))));
        case 2:
          return new ExtData(3, r.bytes(r.int(0, 3)));
        default:
          return new ExtData(4, r.bytes(r.int(0, 3)));
      }
    }
    if (depth < 2 && r.bool(0.3)) return Array.from({ length: r.int(0, 4) }, () => richValue(r, depth + 1));
    return randomValue(r, { rich: true, maxDepth: 2, maxItems: 5 });
  }

  /** Encodings of random values, then the same changed, cut short, extended, wrapped or replaced with hostile headers. */
  function input(r: Random): Uint8Array {
    let bytes = concat(Array.from({ length: r.int(1, 3) }, () => encode(richValue(r))));
    switch (r.int(0, 7)) {
      case 0:
        return bytes;
      case 1:
      case 2: {
        bytes = bytes.slice();
        for (let k = r.int(1, 3); k > 0; k--) bytes[r.int(0, bytes.length - 1)] = r.pick([0xc1, 0xff, 0x00, 0xdc, 0xdf, 0xc6, 0xd9, 0xdb, 0x80, 0x92, 0xd5, r.int(0, 255)]);
        return bytes;
      }
      case 3:
        return bytes.subarray(0, r.int(0, bytes.length));
      case 4: {
        // an extension of type 1 or 2 around bytes cut short: its decoder's inner decode is often truncated
        const payload = bytes.subarray(0, r.int(0, Math.min(bytes.length, 200)));
        return concat([Uint8Array.of(0xc7, payload.length, r.pick([1, 2])), payload]);
      }
      case 5:
        // huge declared lengths and counts, and deep nesting
        return concat([
          r.pick([Uint8Array.of(0xdb, 0x7f, 0xff, 0xff, 0xff), Uint8Array.of(0xc6, 0x10, 0, 0, 0), Uint8Array.of(0xdd, 0, 1, 0, 0), Uint8Array.of(0xdf, 0, 0, 1, 0), Uint8Array.of(0xc9, 0, 1, 0, 0, 1), new Uint8Array(r.int(1, 12)).fill(0x91)]),
          bytes.subarray(0, r.int(0, bytes.length)),
        ]);
      case 6:
        return concat([bytes, Uint8Array.of(r.pick([0xc1, 0x91, 0xdd, 0x00, 0xd5]))]);
      default:
        return r.bytes(r.int(0, 40));
    }
  }

  function expectLinearWork(stats: StreamStats, n: number, where: string): void {
    expect(stats.bytesDecoded, where).toBeLessThanOrEqual(3 * n + 8);
    expect(stats.bytesScanned, where).toBeLessThanOrEqual(n);
  }

  it("decodeAsync, decodeMultiStream, decodeArrayStream, DecoderStream and Decoder#decodeStream agree with decode() / decodeMulti()", async () => {
    const base = Number(process.env.SEED ?? 1);
    let checked = 0;
    let failures = 0;
    for (let i = 0; i < 300; i++) {
      const seed = base + i;
      const r = new Random(seed);
      const bytes = input(r);
      const options = randomOptions(r);
      const one = syncOutcome((push) => push(decode(bytes, options)));
      const many = syncOutcome((push) => {
        for (const v of decodeMulti(bytes, options)) push(v);
      });
      if (many.error !== undefined) failures++;
      // TRUNCATED means the input ends inside a value: the bytes it says are missing (zeros, added
      // as often as it asks again) get the decoder past the offset it reported
      if (many.error?.code === "TRUNCATED") {
        let longer = bytes;
        let error: DecodeError | undefined;
        for (let round = 0; round < 32; round++) {
          error = undefined;
          try {
            for (const _ of decodeMulti(longer, options));
          } catch (e) {
            error = e as DecodeError;
          }
          if (error?.code !== "TRUNCATED" || error.offset !== many.error.offset || error.needed > 1 << 20) break;
          longer = concat([longer, new Uint8Array(error.needed)]);
        }
        if (!(error!?.needed > 1 << 20)) {
          expect({ code: error?.code, offset: error?.offset }, `[seed ${seed}] ${hex(bytes)}: TRUNCATED, yet the bytes it asks for change nothing`).not.toEqual({ code: "TRUNCATED", offset: many.error.offset });
        }
      } else if (many.error !== undefined) {
        // any other error is final: a stream decoder reports it without reading on
        const { source, pulled } = endless([bytes], Uint8Array.of(0), 64);
        const got = await asyncOutcome(async (push) => {
          for await (const v of decodeMultiStream(source, options)) push(v);
        });
        expect(got, `[seed ${seed}] ${hex(bytes)} then an endless stream of values`).toEqual(many);
        expect(pulled()).toBeLessThanOrEqual(1);
      }
      // decodeArrayStream: decode()'s array, item by item, or its error
      const isArray = bytes.length > 0 && (bytes[0]! & 0xf0) === 0x90 ? true : bytes[0] === 0xdc || bytes[0] === 0xdd;
      for (const chunks of chunkings(r, bytes)) {
        const where = `[seed ${seed}; rerun with SEED=${seed}] input ${hex(bytes)} in ${chunks.length} chunks, options ${JSON.stringify(Object.keys(options))}`;
        const stats = createStreamStats();
        expect(await asyncOutcome(async (push) => push(await decodeAsync(chunked(chunks), { ...options, stats }))), where).toEqual(one);
        expectLinearWork(stats, bytes.length, where);
        const multiStats = createStreamStats();
        const gotMany = await asyncOutcome(async (push) => {
          for await (const v of decodeMultiStream(chunked(chunks), { ...options, stats: multiStats })) push(v);
        });
        expect(gotMany, where).toEqual(many);
        expectLinearWork(multiStats, bytes.length, where);
        expect(await asyncOutcome((push) => throughDecoderStream(chunks, options, push)), where).toEqual(many);
        const gotMethod = await asyncOutcome(async (push) => {
          for await (const v of new MainDecoder(options).decodeStream(chunked(chunks))) push(v);
        });
        expect(gotMethod, where).toEqual(many);
        if (isArray) {
          const items = await asyncOutcome(async (push) => {
            for await (const v of decodeArrayStream(chunked(chunks), options)) push(v);
          });
          if (one.error === undefined) expect(items, where).toEqual({ values: one.values[0] });
          else expect(items.error, where).toEqual(one.error);
        }
        checked++;
      }
    }
    expect(checked).toBe(1500);
    expect(failures).toBeGreaterThan(50); // hostile inputs did reach the error paths
  }, 300_000);
});
