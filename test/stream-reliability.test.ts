// Tests for the stream decoders' reliability (src/stream/decode.ts,
// src/stream/reader.ts): results never hold views of the source's chunks,
// memory bounded in bytes whatever the chunking, the same result as a
// whole-input decode for every chunking, and checked array chunks.
import { execFile } from "node:child_process";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { chunked, chunkings, collect, concat, split } from "./_support/streams.ts";
import { hex, Random, value as randomValue } from "./_support/arbitrary.ts";
import { decode, DecodeError, decodeMulti, encode, ExtData } from "../src/index.ts";
import { createStreamStats, decodeArrayStream, decodeAsync, DecoderStream, decodeMultiStream, type ByteChunk } from "../src/streams.ts";
import { expectEqual } from "./_support/equal.ts";

// ---- helpers ----

/** What a decode gave: the values, then the error's class, code and offset if it threw. */
type Outcome = { values: unknown[]; error?: { isDecodeError: boolean; code: unknown; offset: unknown } };

function outcomeOf(values: unknown[], e?: unknown): Outcome {
  if (e === undefined) return { values };
  return { values, error: { isDecodeError: e instanceof DecodeError, code: (e as DecodeError).code, offset: (e as DecodeError).offset } };
}

function syncOutcome(run: (push: (v: unknown) => void) => void): Outcome {
  const values: unknown[] = [];
  try {
    run((v) => values.push(v));
    return outcomeOf(values);
  } catch (e) {
    return outcomeOf(values, e);
  }
}

async function asyncOutcome(run: (push: (v: unknown) => void) => Promise<void>): Promise<Outcome> {
  const values: unknown[] = [];
  try {
    await run((v) => values.push(v));
    return outcomeOf(values);
  } catch (e) {
    return outcomeOf(values, e);
  }
}

// ---- 1. results never hold the source's chunks ----

describe("stream decoders: results own their bytes", () => {
  const value = { bin: Uint8Array.of(1, 2, 3), ext: new ExtData(7, Uint8Array.of(4, 5)), list: [Uint8Array.of(9)] };
  const bytes = encode(value);

  /** Node Buffer chunks, as a socket or file stream gives them, each a slice of one larger Buffer. */
  function bufferChunks(): Buffer[] {
    const pool = Buffer.alloc(64 * 1024);
    Buffer.from(bytes).copy(pool, 100);
    const mid = 7;
    return [pool.subarray(100, 100 + mid), pool.subarray(100 + mid, 100 + bytes.length)];
  }

  function expectOwned(v: unknown, chunks: Buffer[]): void {
    const got = v as { bin: Uint8Array; ext: ExtData; list: Uint8Array[] };
    for (const b of [got.bin, got.ext.data, got.list[0]!]) {
      expect(b.constructor).toBe(Uint8Array);
      expect(Buffer.isBuffer(b)).toBe(false);
      expect(b.buffer.byteLength).toBeLessThan(1024); // not the 64 KiB chunk
    }
    // a producer that reuses its buffer does not change decoded values
    for (const c of chunks) c.fill(0xee);
    expect([...got.bin]).toEqual([1, 2, 3]);
    expect([...got.ext.data]).toEqual([4, 5]);
    expect([...got.list[0]!]).toEqual([9]);
  }

  it("decodeAsync() over Node Buffer chunks (a Readable) gives plain Uint8Array copies", async () => {
    const chunks = bufferChunks();
    expectOwned(await decodeAsync(Readable.from(chunks, { objectMode: true })), chunks);
    const whole = [Buffer.from(bytes)];
    expectOwned(await decodeAsync(chunked(whole)), whole);
  });

  it("decodeMultiStream(), decodeArrayStream() and DecoderStream give plain copies too", async () => {
    let chunks = bufferChunks();
    expectOwned((await collect(decodeMultiStream(chunked(chunks))))[0], chunks);
    const array = Buffer.from(encode([value]));
    expectOwned((await collect(decodeArrayStream(chunked([array]))))[0], [array]);
    chunks = bufferChunks();
    const out = await collect(new Blob([bytes]).stream().pipeThrough(new DecoderStream()) as unknown as AsyncIterable<unknown>);
    expect((out[0] as { bin: Uint8Array }).bin.constructor).toBe(Uint8Array);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of chunks) c.enqueue(b);
        c.close();
      },
    });
    expectOwned((await collect(stream.pipeThrough(new DecoderStream()) as unknown as AsyncIterable<unknown>))[0], chunks);
  });

  it("with binaryAsView, binaries are views that later chunks never overwrite", async () => {
    const values = Array.from({ length: 300 }, (_, i) => ({ i, b: new Uint8Array(i % 50).fill(i & 0xff) }));
    const bytes = concat(values.map((v) => encode(v)));
    for (const size of [1, 7, 4096]) {
      const got = await collect(decodeMultiStream(chunked(split(bytes, () => size)), { binaryAsView: true }));
      expectEqual(got, values, `chunks of ${size}`); // checked after the whole stream went through
    }
  });

  it("a producer that refills one buffer for every chunk still gives the right values", async () => {
    const values = Array.from({ length: 50 }, (_, i) => ({ i, s: "x".repeat(i * 7), b: new Uint8Array(i).fill(i) }));
    const bytes = concat(values.map((v) => encode(v)));
    const buf = new Uint8Array(13);
    async function* reusing(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < bytes.length; at += buf.length) {
        const n = Math.min(buf.length, bytes.length - at);
        buf.set(bytes.subarray(at, at + n));
        yield buf.subarray(0, n);
        buf.fill(0xc1); // the producer scribbles over its buffer once the consumer asks for more
      }
    }
    expectEqual(await collect(decodeMultiStream(reusing())), values);
  });
});

// ---- 2. memory bounded in bytes, work linear, whatever the chunking ----

describe("stream decoders: memory and work with 1-byte chunks", () => {
  it("a 1 MiB value in 1-byte chunks: the queue holds about the value, the work is linear", async () => {
    const value = { bin: new Uint8Array(512 * 1024).fill(3), list: Array.from({ length: 40_000 }, (_, i) => i * 3) };
    const bytes = encode(value);
    const stats = createStreamStats();
    async function* ones(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    }
    expectEqual(await decodeAsync(ones(), { stats }), value);
    expect(stats.bytesIn).toBe(bytes.length);
    expect(stats.bytesDecoded).toBeLessThanOrEqual(2 * bytes.length);
    expect(stats.bytesScanned).toBeLessThanOrEqual(bytes.length);
    expect(stats.bytesCopied).toBeLessThanOrEqual(3 * bytes.length);
    expect(stats.maxBufferedBytes).toBeLessThanOrEqual(2 * bytes.length + 4096);
  });

  it("many small values in 1-byte chunks, with maxValueBytes: the queue stays small and is reused", async () => {
    const values = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const bytes = concat(values.map((v) => encode(v)));
    const stats = createStreamStats();
    async function* ones(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    }
    expectEqual(await collect(decodeMultiStream(ones(), { stats, maxValueBytes: 64 })), values);
    expect(stats.maxBufferedBytes).toBeLessThanOrEqual(4096 + 1);
    expect(stats.bytesCopied).toBeLessThanOrEqual(2 * bytes.length);
    expect(stats.bytesDecoded).toBeLessThanOrEqual(2 * bytes.length);
  });

  // The process's memory, measured in a child (a clean heap): 1-byte Buffer chunks used to cost
  // well over 100 bytes held per byte of value (one object per chunk); now about one byte each.
  it("decoding a 2 MiB value from 2 million 1-byte Buffer chunks grows the heap by a few MiB, not hundreds", async () => {
    const dist = fileURLToPath(new URL("../dist/", import.meta.url));
    const script = `
      import { encode } from ${JSON.stringify(dist + "index.js")};
      import { decodeAsync } from ${JSON.stringify(dist + "streams.js")};
      const n = 2 * 1024 * 1024;
      const bytes = Buffer.from(encode(new Uint8Array(n).fill(7)));
      globalThis.gc();
      const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
      const base = used();
      let peak = 0;
      async function* ones() {
        for (let i = 0; i < bytes.length; i++) {
          if ((i & 0xffff) === 0) { globalThis.gc(); peak = Math.max(peak, used() - base); }
          yield bytes.subarray(i, i + 1);
        }
      }
      const v = await decodeAsync(ones(), { maxValueBytes: 4 * n });
      if (v.length !== n || v[n - 1] !== 7) throw new Error("wrong value");
      console.log(JSON.stringify({ peak }));
    `;
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    const { peak } = JSON.parse(out) as { peak: number };
    // the value's own bytes (2 MiB) and a queue buffer of up to twice that
    expect(peak).toBeLessThan(12 * 1024 * 1024);
  }, 120_000);
});

// ---- 3. the same result as a whole-input decode, for every chunking ----

describe("stream decoders: the same result as decode() / decodeMulti() for every chunking", () => {
  const MALFORMED = Uint8Array.of(0x92, 0x85, 0x01, 0xc1, 0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b);

  it("92 85 01 c1 ... in 1-byte chunks reports INVALID_BYTE at offset 3, as decode() does", async () => {
    expect(() => decode(MALFORMED)).toThrow(expect.objectContaining({ code: "INVALID_BYTE", offset: 3 }));
    const ones = Array.from(MALFORMED, (b) => Uint8Array.of(b));
    const err = await decodeAsync(chunked(ones)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecodeError);
    expect(err).toMatchObject({ code: "INVALID_BYTE", offset: 3 });
    expect((err as Error).message).toMatch(/^Cannot decode value at offset 3: unrecognized type byte 0xc1 \(reserved\)$/);
    expect(() => decode(MALFORMED)).toThrow(expect.objectContaining({ message: (err as Error).message }));
    // cut short, the whole input is truncated at the map (offset 1): so is the stream
    const short = MALFORMED.subarray(0, 6);
    expect(() => decode(short)).toThrow(expect.objectContaining({ code: "TRUNCATED", offset: 1 }));
    await expect(decodeAsync(chunked(Array.from(short, (b) => Uint8Array.of(b))))).rejects.toMatchObject({ code: "TRUNCATED", offset: 1 });
  });

  it("DecoderStream delivers the values before a malformed or truncated one, then errors", async () => {
    for (const tail of [Uint8Array.of(0xc1), Uint8Array.of(0x92, 0x01)]) {
      const bytes = concat([encode("a"), encode([1, 2]), tail]);
      const values: unknown[] = [];
      const source = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      });
      const err = await (async () => {
        for await (const v of source.pipeThrough(new DecoderStream()) as unknown as AsyncIterable<unknown>) values.push(v);
      })().catch((e: unknown) => e);
      expect(values).toEqual(["a", [1, 2]]);
      expect(err).toBeInstanceOf(DecodeError);
      expect(err).toMatchObject({ code: tail[0] === 0xc1 ? "INVALID_BYTE" : "TRUNCATED", offset: 5 });
    }
  });

  /** Inputs: encodings of random values, the same with bytes changed, cut short or extended, and random bytes. */
  function input(r: Random): Uint8Array {
    const values = Array.from({ length: r.int(1, 3) }, () => randomValue(r, { rich: true, maxDepth: 3, maxItems: 6 }));
    let bytes = concat(values.map((v) => encode(v)));
    switch (r.int(0, 5)) {
      case 0:
        return bytes; // valid
      case 1:
      case 2: {
        // a few bytes changed: often a reserved byte, a bad length or a bad UTF-8 sequence
        bytes = bytes.slice();
        for (let k = r.int(1, 3); k > 0; k--) bytes[r.int(0, bytes.length - 1)] = r.pick([0xc1, 0xff, 0x00, 0xdc, 0xdf, 0xc6, 0xd9, 0x80, r.int(0, 255)]);
        return bytes;
      }
      case 3:
        return bytes.subarray(0, r.int(0, bytes.length)); // cut short
      case 4:
        return concat([bytes, Uint8Array.of(r.pick([0xc1, 0x91, 0xdd, 0x00]))]);
      default:
        return r.bytes(r.int(0, 40));
    }
  }

  it("decodeAsync() and DecoderStream/decodeMultiStream agree with decode() and decodeMulti() on random and mutated inputs", async () => {
    const base = Number(process.env.SEED ?? 1);
    const options = [undefined, { maxDepth: 3 }, { maxStrLength: 20, maxArrayLength: 5 }, { binaryAsView: true, useMap: true }] as const;
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const seed = base + i;
      const r = new Random(seed);
      const bytes = input(r);
      const opts = options[i % options.length];
      const one = syncOutcome((push) => push(decode(bytes, opts)));
      const many = syncOutcome((push) => {
        for (const v of decodeMulti(bytes, opts)) push(v);
      });
      for (const chunks of chunkings(r, bytes)) {
        const where = `[seed ${seed}; rerun with SEED=${seed}] input ${hex(bytes)} in ${chunks.length} chunks`;
        const gotOne = await asyncOutcome(async (push) => push(await decodeAsync(chunked(chunks), opts)));
        expectEqual(gotOne, one, where);
        const gotMany = await asyncOutcome(async (push) => {
          for await (const v of decodeMultiStream(chunked(chunks), opts)) push(v);
        });
        expectEqual(gotMany, many, where);
        const source = new ReadableStream<Uint8Array>({
          start(c) {
            for (const x of chunks) c.enqueue(x);
            c.close();
          },
        });
        const gotTransform = await asyncOutcome(async (push) => {
          for await (const v of source.pipeThrough(new DecoderStream(opts)) as unknown as AsyncIterable<unknown>) push(v);
        });
        expectEqual(gotTransform, many, where);
        checked++;
      }
    }
    expect(checked).toBe(2000);
  }, 120_000);
});

// ---- 4. array chunks are checked ----

describe("stream decoders: chunks that are arrays of numbers", () => {
  it("accepts arrays and array-likes of byte values, as @msgpack/msgpack does", async () => {
    const bytes = encode({ a: [1, "b"] });
    expect(await decodeAsync(chunked([Array.from(bytes.subarray(0, 3)), Array.from(bytes.subarray(3))]))).toEqual({ a: [1, "b"] });
    const arrayLike = { length: bytes.length, ...Object.fromEntries(Array.from(bytes, (b, i) => [i, b])) } as ArrayLike<number>;
    expect(await decodeAsync(chunked([arrayLike]))).toEqual({ a: [1, "b"] });
  });

  const bad: [string, unknown, number, RegExp][] = [
    ["a number above 255", [0x93, 300, 0xff, 0xff], 1, /element 1 is 300, not a byte value/],
    ["a negative number", [0x93, 1, -1, 2], 2, /element 2 is -1, not a byte value/],
    ["a string", [0x91, "a"], 1, /element 1 is "a", not a byte value/],
    ["a fraction", [0x91, 1.5], 1, /element 1 is 1.5, not a byte value/],
    ["NaN", [NaN], 0, /element 0 is NaN/],
    ["a hole", [0x91, , 1], 1, /element 1 is undefined/], // eslint-disable-line no-sparse-arrays
  ];
  for (const [what, chunk, , message] of bad) {
    it(`rejects an array chunk holding ${what} with DecodeError INVALID_ARGUMENT, in every stream decoder`, async () => {
      const first = Uint8Array.of(0x92); // an array of two: the bad chunk comes at stream offset 1
      const runs: Promise<unknown>[] = [
        decodeAsync(chunked([first, chunk as ByteChunk])),
        collect(decodeMultiStream(chunked([first, chunk as ByteChunk]))),
        collect(decodeArrayStream(chunked([first, chunk as ByteChunk]))),
      ];
      for (const run of runs) {
        const err = await run.catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DecodeError);
        expect(err).toMatchObject({ code: "INVALID_ARGUMENT", offset: 1 });
        expect((err as Error).message).toMatch(/^Cannot decode a stream chunk at offset 1: /);
        expect((err as Error).message).toMatch(message);
      }
    });
  }

  it("rejects chunks that are not bytes at all (a number, a string, null) with INVALID_ARGUMENT", async () => {
    for (const chunk of [5, "abc", null, { length: -1 }]) {
      const err = await decodeAsync(chunked([chunk as unknown as ByteChunk])).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DecodeError);
      expect(err).toMatchObject({ code: "INVALID_ARGUMENT", offset: 0 });
      expect((err as Error).message).toMatch(/^Cannot decode a stream chunk at offset 0: .* not (bytes|a byte value)/);
    }
  });
});
